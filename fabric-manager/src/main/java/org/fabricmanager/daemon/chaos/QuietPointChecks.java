package org.fabricmanager.daemon.chaos;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongPredicate;
import java.util.function.Supplier;
import org.fabricmanager.daemon.VirtualDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;

/**
 * What a {@link ChaosSimulation} checks of the daemon against its own model ({@link SimulatedFabric}, the cables it
 * drained): at a quiet point, that the switches hold what the daemon says, the routes ({@link ChaosOracle}) and the
 * status; with everything back, that the tables are the intact fabric's full routing; across a restart, that the
 * drains and quarantines came back from the state directory. Each failure is a {@link ChaosViolation} of its kind,
 * which the simulation completes with the seed and the schedule.
 */
final class QuietPointChecks {
    private final Fabric intact;
    private final ChaosOracle oracle;
    private final SimulatedFabric fabric;

    QuietPointChecks(Fabric intact, ChaosOracle oracle, SimulatedFabric fabric) {
        this.intact = intact;
        this.oracle = oracle;
        this.fabric = fabric;
    }

    /** Every switch on holds exactly what the daemon says it holds (an empty table where it has no row). */
    void tablesAsSaid(VirtualDaemon daemon, String when) {
        tablesAsSaid(daemon, when, guid -> true);
    }

    /**
     * As {@link #tablesAsSaid(VirtualDaemon, String)} as the daemon says CONVERGED: of the switches with a link to
     * another in the fabric routed, as one without any is routed around and no packet meets its table.
     */
    void tablesAsSaidWhenConverged(VirtualDaemon daemon, String when) {
        Set<Long> linked = new HashSet<>();
        for (Link l : daemon.active().fabric().links()) {
            if (intact.switchByGuid(l.a()).isPresent() && intact.switchByGuid(l.b()).isPresent()) {
                linked.add(l.a());
                linked.add(l.b());
            }
        }
        tablesAsSaid(daemon, when, linked::contains);
    }

    private void tablesAsSaid(VirtualDaemon daemon, String when, LongPredicate judged) {
        ActiveRouting active = daemon.active();
        for (var e : fabric.on().entrySet()) {
            if (!judged.test(e.getKey())) {
                continue;
            }
            byte[] entries = e.getValue().entries();
            int row = active.tables().row(e.getKey());
            byte[] said = row < 0 ? new byte[0] : active.tables().row(row, 0, active.tables().length());
            if (!Arrays.equals(entries, said)) {
                throw new ChaosViolation(ChaosViolation.Kind.TABLES_DIFFER, when + ", but " + fabric.name(e.getKey())
                        + " holds v" + e.getValue().version() + " (" + entries.length + " entries) that differs from "
                        + "what the daemon says it holds, v" + active.version() + (row < 0 ? " (no row)" : "")
                        + " at entry " + Arrays.mismatch(entries, said) + "; it received: " + e.getValue().received,
                        null);
            }
        }
    }

    /**
     * Every route through the tables held is valid on the live fabric: cables up, not drained, not quarantined; from
     * every switch on but those drained ({@code drainedSwitches}, whose cables are among {@code drained}). The tables
     * judged, with the live fabric they were judged on.
     */
    LossChurn.Held routes(VirtualDaemon daemon, Set<Link> drained, Set<Long> drainedSwitches) {
        ActiveRouting active = daemon.active();
        Map<Long, byte[]> held = new HashMap<>();
        fabric.on().forEach((guid, sw) -> held.put(guid, sw.entries()));
        Map<Long, Integer> columnOf = new HashMap<>();
        active.fabric().nodes().forEach(n -> columnOf.put(n.guid(), n.index()));
        Set<Link> quarantined = quarantinedCables(daemon);
        Set<Long> on = new HashSet<>(fabric.on().keySet());
        on.removeAll(drainedSwitches);
        ChaosOracle.Live live = new ChaosOracle.Live(Set.copyOf(on), Set.copyOf(oracle.cables()
                .stream().filter(c -> fabric.physicallyUp(c) && !drained.contains(c) && !quarantined.contains(c))
                .toList()));
        try {
            oracle.check(live, held, columnOf);
        } catch (IllegalStateException e) {
            throw new ChaosViolation(ChaosViolation.Kind.ROUTE_INVALID, "CONVERGED on v" + active.version() + ", but "
                    + e.getMessage() + (quarantined.isEmpty() ? "" : " (quarantined: "
                    + quarantined.stream().map(fabric::describe).toList() + ")"), e);
        }
        return new LossChurn.Held(active.version(), live, Map.copyOf(held), Map.copyOf(columnOf));
    }

    /** The cables the daemon quarantined for their flaps: they carry no traffic until released, as drained ones. */
    private Set<Link> quarantinedCables(VirtualDaemon daemon) {
        Set<Link> quarantined = new LinkedHashSet<>();
        for (FaultReport.Quarantine q : daemon.quarantined()) {
            Link c = oracle.cableAt(Guids.parse(q.guid()), q.port());
            if (c != null) {
                quarantined.add(c);
            }
        }
        return quarantined;
    }

    /**
     * The status says what is true: CONVERGED on the version in force, every switch on connected and in sync, none
     * pending or failing, the drained cables the ones drained.
     */
    void status(VirtualDaemon daemon, Set<Link> drained, Set<Long> drainedSwitches) {
        Views.Status s = daemon.status();
        int on = fabric.on().size();
        String wrong = s.state() != DaemonState.CONVERGED ? "state " + s.state()
                : s.routing().version() != daemon.active().version() ? "routing v" + s.routing().version()
                        + " while v" + daemon.active().version() + " is in force"
                : s.switches().connected() != on ? s.switches().connected() + " switches connected of " + on + " on"
                : s.tables().inSync() != on || s.tables().pending() != 0 || s.tables().failing() != 0
                        ? "tables " + s.tables() + " with " + on + " switches on"
                : s.drained().links() != drained.size() || s.drained().switches() != drainedSwitches.size()
                        ? "drained " + s.drained() + " while " + drained.size() + " cables and "
                        + drainedSwitches.size() + " switches are"
                : null;
        if (wrong != null) {
            throw new ChaosViolation(ChaosViolation.Kind.STATUS_WRONG, "at a quiet point the status says " + wrong,
                    null);
        }
    }

    /** The cables the daemon keeps quarantined, by their index in the oracle's order. */
    Set<Integer> quarantines(VirtualDaemon daemon) {
        Set<Integer> out = new TreeSet<>();
        List<Link> cables = oracle.cables();
        for (FaultReport.Quarantine q : daemon.quarantined()) {
            out.add(cables.indexOf(oracle.cableAt(Guids.parse(q.guid()), q.port())));
        }
        return out;
    }

    /** A daemon restarted on the state directory has the drains and the quarantines its predecessor had. */
    void roundTrip(VirtualDaemon daemon, Set<Link> drained, Set<Long> drainedSwitches, Set<Integer> quarantinedBefore) {
        Views.Status s = daemon.status();
        Set<Integer> quarantined = quarantines(daemon);
        if (s.drained().links() != drained.size() || s.drained().switches() != drainedSwitches.size()
                || !quarantined.equals(quarantinedBefore)) {
            throw new ChaosViolation(ChaosViolation.Kind.STATE_LOST, "restarted from its state directory, the daemon "
                    + "has " + s.drained().links() + " cables drained of " + drained.size() + ", "
                    + s.drained().switches() + " switches of " + drainedSwitches.size() + " and quarantines "
                    + quarantined + " of " + quarantinedBefore, null);
        }
    }

    /** Every switch on, every cable up and undrained: the tables equal the full routing of the intact fabric. */
    void intact(VirtualDaemon daemon, Supplier<RoutingEngine> engines, String when) {
        ActiveRouting active = daemon.active();
        if (active.fabric().links().size() != intact.links().size()) {
            throw new ChaosViolation(ChaosViolation.Kind.NOT_INTACT, when + ", the routing in force has "
                    + active.fabric().links().size() + " links of " + intact.links().size(), null);
        }
        try (RoutingEngine engine = engines.get()) {
            var full = engine.routeSnapshot(active.fabric().index()).result().tables();
            for (int s = 0; s < full.switchCount(); s++) {
                byte[] held = fabric.on().get(full.switchGuid(s)).entries();
                if (!Arrays.equals(held, full.copyRow(s))) {
                    throw new ChaosViolation(ChaosViolation.Kind.NOT_INTACT, when + ", " + fabric.name(full.switchGuid(s))
                            + " holds tables that differ from the full routing of the intact fabric at entry "
                            + Arrays.mismatch(held, full.copyRow(s)), null);
                }
            }
        }
    }
}
