package org.fabricmanager.daemon.chaos;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.fabricmanager.topology.Link;

/**
 * What a loss may change, judged from the tables the switches held at successive quiet points, never from the engine's
 * code: on a pure loss (cables down, switches off, cables drained, and nothing back), an entry of a switch still on may
 * change only when its route, followed hop by hop through the tables held before the loss, crossed something lost (a
 * cable down, drained or quarantined since, or a switch off since), or when it was unrouted and now reaches its node
 * over live elements (a route the loss made possible: {@link #gained}). That is the repair's contract (the tables in
 * force kept wherever their routes still step closer to the destination); the refinement that follows may move only
 * entries that moved already. Losses chain: the reference is the last quiet point after which nothing came back, and
 * every later quiet point is judged against it with everything lost since, as a route that two successive repairs
 * moved crossed one of their losses in the reference. Anything that may bring an element back or route in full (a
 * cable up, a flap, a switch on, an agent that answers again, an undrain, a step of a kind not known to be a loss or
 * to change nothing in force) ends the chain; the next quiet point with no refinement pending is the new reference.
 * Counts per loss the entries moved, those whose routes crossed it, those whose port led straight into it (which
 * any valid routing changes) and those that gained a route.
 */
final class LossChurn {
    /**
     * The tables the switches on held at a quiet point (by GUID), each end node's destination index in them, and the
     * live fabric they were judged on.
     */
    record Held(long version, ChaosOracle.Live live, Map<Long, byte[]> tables, Map<Long, Integer> columnOf) {
        int port(long sw, long node) {
            byte[] row = tables.get(sw);
            Integer column = columnOf.get(node);
            return row == null || column == null || column >= row.length ? 0xff : row[column] & 0xff;
        }
    }

    private final ChaosOracle oracle;
    private final LongFunction<String> names;
    private Held reference;
    private Held previous;
    /** Something may have come back (or been routed in full) since the reference: the chain ends. */
    private boolean chainEnded = true;
    /** Since the previous quiet point: any event, and a loss among them. */
    private boolean events;
    private boolean lost;
    private final Map<String, Integer> tally = new TreeMap<>();

    /** A judge of losses on {@code oracle}'s fabric, naming switches with {@code names}. */
    LossChurn(ChaosOracle oracle, LongFunction<String> names) {
        this.oracle = oracle;
        this.names = names;
    }

    /**
     * A step of the schedule was taken; {@code acted}: it changed something (it applied, and the daemon did not refuse
     * the drain it asked). A loss, a step that changes nothing in force, or one that ends the chain.
     */
    void step(ChaosStep step, boolean acted) {
        if (step instanceof ChaosStep.Pass || step instanceof ChaosStep.Check) {
            return;
        }
        events = true;
        if (!acted || neutral(step)) {
            return;
        }
        if (step instanceof ChaosStep.CableDown || step instanceof ChaosStep.PowerOff || step instanceof ChaosStep.Drain
                || step instanceof ChaosStep.SwitchDrain || step instanceof ChaosStep.AgentHangs) {
            // a switch drained is routed around as its cables drained; a hung agent's switch, once its session
            // closes, as a switch off (the model counts it down from the hang on)
            lost = true;
        } else {
            // a return, a flap (down and back), an undrain (routed in full), or a kind this judge does not know
            chainEnded = true;
        }
    }

    /**
     * A step that changes nothing in force: a restart or a takeover (whose chain {@link #restarted} judges), an agent
     * that restarts holding its table, and the actions the simulation holds to changing nothing ({@code
     * ACTION_CHANGED}): a what-if and a reload (what a reload changes later, a quarantine released, shows at the next
     * quiet point as something back, which ends the chain there).
     */
    private static boolean neutral(ChaosStep step) {
        return step instanceof ChaosStep.Restart || step instanceof ChaosStep.Failover
                || step instanceof ChaosStep.AgentRestart || step instanceof ChaosStep.WhatIf
                || step instanceof ChaosStep.Reload;
    }

    /**
     * The daemon restarted; {@code inForceWritten}: the routing in force when it stopped was the one written in its
     * state directory (the simulation judges that it is). When it was not, the next run does not know the tables the
     * switches hold and routes in full: the chain ends.
     */
    void restarted(boolean inForceWritten) {
        if (!inForceWritten) {
            notALoss();
        }
    }

    /** Something came back or was routed in full outside the schedule's steps (everything back at the end). */
    void notALoss() {
        events = true;
        chainEnded = true;
    }

    /** Entries moved by losses, forced by them, led straight into them, and moved by refinements, summed. */
    Map<String, Integer> tally() {
        return tally;
    }

    /**
     * Judges the quiet point {@code now}; {@code refinePending}: the daemon says its tables are a repair that a
     * refinement will change. Throws a {@link ChaosViolation} of kind {@link ChaosViolation.Kind#CHURN_BEYOND_LOSS}.
     */
    void quietPoint(Held now, boolean refinePending) {
        try {
            if (chainEnded || reference == null || cameBack(reference, now)) {
                // a refinement still to come moves entries of a repair judged against an older reference: wait for it
                reference = refinePending ? null : now;
                chainEnded = reference == null;
                return;
            }
            judge(now);
        } finally {
            previous = now;
            events = false;
            lost = false;
        }
    }

    private void judge(Held now) {
        for (long sw : now.tables().keySet()) {
            if (!reference.tables().containsKey(sw)) {
                continue;
            }
            for (long node : reference.columnOf().keySet()) {
                if (!now.columnOf().containsKey(node)) {
                    continue;
                }
                int before = reference.port(sw, node);
                int after = now.port(sw, node);
                if (before == after) {
                    continue;
                }
                if (before == 0xff && reachesNode(now, sw, node)) {
                    continue; // a route gained: a switch's rank can change on a loss (see gained)
                }
                String route = crossing(reference, now.live(), sw, node);
                if (route != null) {
                    throw violation(now, sw, node, before, after, "its route " + route + " crossed nothing lost");
                }
                if (!events && previous.port(sw, node) != after && previous.port(sw, node) == before) {
                    throw violation(now, sw, node, before, after, "no event since the last quiet point, so a "
                            + "refinement, and no loss had moved that entry");
                }
            }
        }
        if (lost) {
            count("losses judged", 1);
            count("loss entries moved", changed(previous, now));
            count("loss entries forced", forced(previous, now, false));
            count("loss entries led into it", forced(previous, now, true));
            count("loss entries gained", gained(previous, now));
        } else if (!events) {
            count("refinement entries moved", changed(previous, now));
        }
    }

    private void count(String what, int n) {
        tally.merge(what, n, Integer::sum);
    }

    /** True when {@code now} has a switch on, a cable usable or an end node that {@code ref} had not. */
    private static boolean cameBack(Held ref, Held now) {
        return !ref.live().switchesOn().containsAll(now.live().switchesOn())
                || !ref.live().cablesUsable().containsAll(now.live().cablesUsable())
                || !ref.columnOf().keySet().containsAll(now.columnOf().keySet());
    }

    /** Entries of switches on at both points, for end nodes at both, that differ. */
    private static int changed(Held a, Held b) {
        int n = 0;
        for (long sw : b.tables().keySet()) {
            if (a.tables().containsKey(sw)) {
                for (long node : a.columnOf().keySet()) {
                    if (b.columnOf().containsKey(node) && a.port(sw, node) != b.port(sw, node)) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /**
     * Entries of {@code held} (of switches on at {@code now}, for end nodes still there) whose route crosses an element
     * not live at {@code now}; with {@code straight}, only those whose first hop does.
     */
    private int forced(Held held, Held now, boolean straight) {
        ChaosOracle.Live live = now.live();
        int n = 0;
        for (long sw : held.tables().keySet()) {
            if (!now.tables().containsKey(sw)) {
                continue;
            }
            for (long node : held.columnOf().keySet()) {
                if (!now.columnOf().containsKey(node)) {
                    continue;
                }
                if (straight ? leadsInto(held, live, sw, node) : crossing(held, live, sw, node) == null) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Entries unrouted in {@code held} that {@code now} routes to their node over live elements. A loss can give one a
     * route: Dmodc ranks a switch by its hop distance from the leaves, so a switch that loses its last leaf ranks
     * above the tops, and a top that lost its way down to a pod steps up to it and down again through another top.
     * The tables route every entry that has such a path, so this is a change the loss forces, not churn.
     */
    private int gained(Held held, Held now) {
        int n = 0;
        for (long sw : held.tables().keySet()) {
            if (now.tables().containsKey(sw)) {
                for (long node : held.columnOf().keySet()) {
                    if (now.columnOf().containsKey(node) && held.port(sw, node) == 0xff
                            && reachesNode(now, sw, node)) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /** Whether the route from {@code sw} to {@code node} through {@code held}'s tables reaches it over live links. */
    private boolean reachesNode(Held held, long sw, long node) {
        String route = crossing(held, held.live(), sw, node);
        return route != null && route.endsWith(" -> node");
    }

    private boolean leadsInto(Held held, ChaosOracle.Live live, long sw, long node) {
        int port = held.port(sw, node);
        if (port == 0xff || Long.valueOf(node).equals(oracle.nodeAt(sw, port))) {
            return false;
        }
        Link cable = oracle.cableAt(sw, port);
        return cable == null || !live.cablesUsable().contains(cable);
    }

    /**
     * {@code null} when the route from {@code sw} to {@code node} through {@code held}'s tables crosses an element not
     * in {@code live} (or goes nowhere valid, which the reference's own judgement would have caught); else the route,
     * which reaches the node or stops unrouted over live elements only.
     */
    private String crossing(Held held, ChaosOracle.Live live, long sw, long node) {
        Set<Long> seen = new HashSet<>();
        StringBuilder path = new StringBuilder(names.apply(sw));
        long at = sw;
        while (seen.add(at)) {
            if (!live.switchesOn().contains(at)) {
                return null;
            }
            int port = held.port(at, node);
            if (port == 0xff) {
                return path.append(" (unrouted)").toString();
            }
            if (Long.valueOf(node).equals(oracle.nodeAt(at, port))) {
                return path.append(" -> node").toString();
            }
            Link cable = oracle.cableAt(at, port);
            if (cable == null || !live.cablesUsable().contains(cable)) {
                return null;
            }
            at = cable.a() == at ? cable.b() : cable.a();
            path.append(" -> ").append(names.apply(at));
        }
        return null;
    }

    private ChaosViolation violation(Held now, long sw, long node, int before, int after, String why) {
        List<String> cables = reference.live().cablesUsable().stream()
                .filter(c -> !now.live().cablesUsable().contains(c))
                .map(c -> names.apply(c.a()) + "/" + c.aPort() + "-" + names.apply(c.b()) + "/" + c.bPort()).toList();
        List<String> off = reference.live().switchesOn().stream()
                .filter(s -> !now.live().switchesOn().contains(s)).map(names::apply).toList();
        return new ChaosViolation(ChaosViolation.Kind.CHURN_BEYOND_LOSS, "v" + now.version() + " after a pure loss "
                + "since v" + reference.version() + " (cables lost " + cables + ", switches off " + off + "): "
                + names.apply(sw) + "'s entry for node 0x" + Long.toHexString(node) + " moved from port " + before
                + " to " + after + ", but " + why + "; " + changed(reference, now) + " entries moved, "
                + forced(reference, now, false) + " forced", null);
    }
}
