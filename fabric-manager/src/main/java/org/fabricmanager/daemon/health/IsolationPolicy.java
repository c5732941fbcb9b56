package org.fabricmanager.daemon.health;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.topology.Link;

/**
 * What the daemon does about a link's judgement ({@code linkHealth.policy}), with its guards. A bad link is isolated
 * (under {@code isolate}) only when it is no end node's cable, the fabric has been converged for
 * {@code settleMs}, and fewer than {@code maxIsolated} links (and {@code maxIsolatedPercent} of the
 * switch-to-switch links, at least one) are isolated by the policy already; otherwise it gets advice, saying which guard held it.
 * An isolation is a proposal until the daemon confirms it (its what-if found the fabric routable without the link)
 * or refuses it; a refused link, or one an operator released, is not proposed again until it has been healthy once.
 * An isolated link whose judgement stays healthy for its probation is given back; an error during the probation
 * starts it again. A link given back that goes bad again within its last probation is isolated for twice as long
 * (at most eight times {@code probationMs}), so that a link that heals and breaks over and over spends ever longer
 * out. Pure: times are given (ms), nothing here reads a clock. Not thread-safe: the control thread's.
 */
public final class IsolationPolicy {
    /** The longest probation, in multiples of {@code probationMs}. */
    static final int MAX_PROBATION_FACTOR = 8;

    /** What to do about a link now. */
    public enum Action {
        /** Nothing new. */
        NONE,
        /** The link turned suspect: an event. */
        SUSPECT,
        /** The link is bad but not to be isolated: an event saying why (the reason). */
        ADVISE,
        /** The link is to be isolated (proposed: confirm or refuse it). */
        ISOLATE,
        /** The isolated link was quiet for its probation: to be given back. */
        REINSTATE
    }

    /** What to do and why. */
    public record Decision(Action action, String reason) {
        static final Decision NONE = new Decision(Action.NONE, null);
    }

    /**
     * What the daemon knows of the link and the fabric when it asks.
     *
     * @param endNodeCable whether one end of the link is an end node (its only way in)
     * @param switchLinks  the switch-to-switch links of the fabric routed now
     * @param settled      whether the fabric has been converged for {@code settleMs}
     */
    public record Fabric(boolean endNodeCable, int switchLinks, boolean settled) {
    }

    /** A link isolated by the policy: since when, its probation, and since when it is healthy (or -1). */
    public record Isolated(long sinceMillis, long probationMs, long healthySinceMillis) {
    }

    private final LinkHealthSection config;
    private final Map<Link, Isolated> isolated = new LinkedHashMap<>();
    /** Links given back: when, and the probation they had (for a relapse's longer one). */
    private final Map<Link, long[]> reinstated = new HashMap<>();
    /** Links not to propose again until healthy once: refused by the what-if, or released by an operator. */
    private final Set<Link> heldBack = new HashSet<>();
    /** Each link's last level, and the last advice's reason, for events on a change only. */
    private final Map<Link, LinkLevel> levels = new HashMap<>();
    private final Map<Link, String> lastAdvice = new HashMap<>();

    public IsolationPolicy(LinkHealthSection config) {
        this.config = config;
    }

    /** Decides about {@code link} judged {@code judgement} at {@code nowMillis}. */
    public Decision decide(Link link, LinkJudgement judgement, Fabric fabric, long nowMillis) {
        Link key = link.normalized();
        LinkLevel level = judgement.level();
        LinkLevel before = levels.put(key, level);
        if (level != LinkLevel.BAD) {
            lastAdvice.remove(key);
            if (level == LinkLevel.HEALTHY) {
                heldBack.remove(key);
            }
        }
        Isolated in = isolated.get(key);
        if (in != null) {
            return probation(key, in, level, nowMillis);
        }
        if (level == LinkLevel.SUSPECT) {
            return before == LinkLevel.SUSPECT ? Decision.NONE : new Decision(Action.SUSPECT, null);
        }
        if (level != LinkLevel.BAD) {
            return Decision.NONE;
        }
        String held = guard(key, fabric);
        if (held == null) {
            long[] last = reinstated.remove(key);
            long probation = config.probationMs();
            if (last != null && nowMillis - last[0] < last[1]) {
                probation = Math.min(last[1] * 2, (long) config.probationMs() * MAX_PROBATION_FACTOR);
            }
            isolated.put(key, new Isolated(nowMillis, probation, -1));
            lastAdvice.remove(key);
            return new Decision(Action.ISOLATE, null);
        }
        // advice once per turn to bad, and again whenever the guard that holds it changes
        return before == LinkLevel.BAD && held.equals(lastAdvice.get(key)) ? Decision.NONE
                : advise(key, held);
    }

    private Decision advise(Link key, String reason) {
        lastAdvice.put(key, reason);
        return new Decision(Action.ADVISE, reason);
    }

    /** The guard that keeps {@code key} from isolation, or {@code null}. */
    private String guard(Link key, Fabric fabric) {
        if (config.mode() != LinkHealthSection.Policy.ISOLATE) {
            return "policy " + config.policy() + ": advice only";
        }
        if (fabric.endNodeCable()) {
            return "an end node's only cable: isolating it would cut the node off";
        }
        if (heldBack.contains(key)) {
            return "held back until healthy once (refused or released before)";
        }
        if (!fabric.settled()) {
            return "the fabric is settling (converged less than " + config.settleMs() + " ms)";
        }
        if (isolated.size() >= config.maxIsolated()) {
            return isolated.size() + " link(s) isolated already, linkHealth.maxIsolated " + config.maxIsolated();
        }
        if (isolated.size() >= allowedByShare(fabric.switchLinks())) {
            return isolated.size() + " link(s) isolated already, one more is above linkHealth.maxIsolatedPercent "
                    + config.maxIsolatedPercent() + "% of " + fabric.switchLinks() + " switch links";
        }
        return null;
    }

    /** Links the share allows: at least one (a small fabric's share is less than a link), none at 0%. */
    int allowedByShare(int switchLinks) {
        return config.maxIsolatedPercent() == 0 ? 0
                : (int) Math.max(1, (long) config.maxIsolatedPercent() * switchLinks / 100);
    }

    private Decision probation(Link key, Isolated in, LinkLevel level, long nowMillis) {
        if (level != LinkLevel.HEALTHY) {
            if (in.healthySinceMillis() >= 0) {
                isolated.put(key, new Isolated(in.sinceMillis(), in.probationMs(), -1));
            }
            return Decision.NONE;
        }
        long since = in.healthySinceMillis() >= 0 ? in.healthySinceMillis() : nowMillis;
        if (nowMillis - since < in.probationMs()) {
            isolated.put(key, new Isolated(in.sinceMillis(), in.probationMs(), since));
            return Decision.NONE;
        }
        isolated.remove(key);
        reinstated.put(key, new long[]{nowMillis, in.probationMs()});
        return new Decision(Action.REINSTATE, null);
    }

    /** The isolation of {@code link} proposed was refused (the what-if): advice instead, held back until healthy. */
    public void refused(Link link) {
        Link key = link.normalized();
        isolated.remove(key);
        heldBack.add(key);
    }

    /** The isolation of {@code link} proposed could not be done now (the fabric changed): proposed again later. */
    public void withdrawn(Link link) {
        isolated.remove(link.normalized());
    }

    /**
     * An operator released {@code link} (given back now) or pinned it (turned into a drain): the policy no longer
     * holds it, and does not propose it again until it has been healthy once.
     */
    public void released(Link link) {
        Link key = link.normalized();
        isolated.remove(key);
        heldBack.add(key);
    }

    /** Takes {@code link} as isolated since {@code sinceMillis} (read back from the state file at a start). */
    public void restore(Link link, long sinceMillis, long probationMs) {
        isolated.put(link.normalized(), new Isolated(sinceMillis, probationMs, -1));
    }

    /** Forgets {@code link} (it left the fabric); an isolation stays until reinstated or released. */
    public void forget(Link link) {
        Link key = link.normalized();
        levels.remove(key);
        lastAdvice.remove(key);
        reinstated.remove(key);
        heldBack.remove(key);
    }

    /** The links not to be proposed again until healthy once (refused, or released by an operator). */
    public Set<Link> heldBack() {
        return Collections.unmodifiableSet(heldBack);
    }

    /** The links isolated by the policy now, in the order isolated. */
    public Map<Link, Isolated> isolated() {
        return Collections.unmodifiableMap(isolated);
    }
}
