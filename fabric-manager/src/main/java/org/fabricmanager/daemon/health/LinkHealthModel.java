package org.fabricmanager.daemon.health;

import java.util.HashMap;
import java.util.Map;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PortRef;

/**
 * Judges links from their ports' counters ({@code linkHealth} in the configuration): each end's counters of trouble
 * over the window, set against the packets the same end carried in the same direction (or, on an idle link, against
 * the load rate's packets), in errors per million packets; fewer than {@code minErrors} in the window are noise. The
 * worst counter at either end, against its thresholds, gives what the window says; a hysteresis gives the level: bad
 * only after {@code badAfter} bad windows in a row, healthy again only after {@code healthyAfter} clean ones, suspect
 * in between. Pure: the caller gives the values and the time, and nothing here reads a clock or a thread. Not
 * thread-safe: one owner.
 */
public final class LinkHealthModel {
    private final LinkHealthSection config;
    private final Map<PortRef, PortErrorWindow> ports = new HashMap<>();
    private final Map<Link, State> links = new HashMap<>();
    private final long[] sum = new long[PortErrorWindow.TRACKED.length + 1];

    /** A link's hysteresis: its level, and the bad and clean windows in a row. */
    private static final class State {
        LinkLevel level = LinkLevel.HEALTHY;
        int badRun;
        int cleanRun;
        LinkJudgement last;
    }

    public LinkHealthModel(LinkHealthSection config) {
        this.config = config;
    }

    /** Adds port {@code port}'s values read at {@code atNanos}, {@code PortCounters.FIELDS} from {@code offset}. */
    public void record(PortRef port, long atNanos, long[] values, int offset) {
        ports.computeIfAbsent(port, p -> new PortErrorWindow()).record(atNanos, values, offset);
    }

    /** Judges {@code link} at {@code nowNanos} and moves its hysteresis one window on. */
    public LinkJudgement judge(Link link, long nowNanos) {
        Link key = link.normalized();
        LinkFigures figures = figures(key, nowNanos);
        LinkLevel raw = raw(figures);
        State s = links.computeIfAbsent(key, k -> new State());
        switch (raw) {
            case BAD -> {
                s.cleanRun = 0;
                s.badRun++;
                s.level = s.badRun >= config.badAfter() ? LinkLevel.BAD
                        : s.level == LinkLevel.BAD ? LinkLevel.BAD : LinkLevel.SUSPECT;
            }
            case SUSPECT -> {
                s.cleanRun = 0;
                s.badRun = 0;
                s.level = s.level == LinkLevel.BAD ? LinkLevel.BAD : LinkLevel.SUSPECT;
            }
            default -> {
                s.badRun = 0;
                if (s.level != LinkLevel.HEALTHY && ++s.cleanRun >= config.healthyAfter()) {
                    s.level = LinkLevel.HEALTHY;
                    s.cleanRun = 0;
                }
            }
        }
        s.last = new LinkJudgement(s.level, raw, figures);
        return s.last;
    }

    /** {@code link}'s last judgement, or {@code null} before its first. */
    public LinkJudgement last(Link link) {
        State s = links.get(link.normalized());
        return s == null ? null : s.last;
    }

    /** Forgets {@code link}: its ends' windows and its hysteresis (it left the fabric). */
    public void forget(Link link) {
        Link key = link.normalized();
        links.remove(key);
        ports.remove(new PortRef(key.a(), key.aPort()));
        ports.remove(new PortRef(key.b(), key.bPort()));
    }

    /** Links judged so far. */
    public int size() {
        return links.size();
    }

    private LinkLevel raw(LinkFigures f) {
        if (f.counter() == null) {
            return LinkLevel.HEALTHY;
        }
        int c = counterIndex(f.counter());
        return f.ppm() >= config.badPpm().get(c) ? LinkLevel.BAD
                : f.ppm() >= config.suspectPpm().get(c) ? LinkLevel.SUSPECT : LinkLevel.HEALTHY;
    }

    /** The worst counter over both ends: the largest share of its bad threshold. */
    private LinkFigures figures(Link link, long nowNanos) {
        long windowNanos = config.windowMs() * 1_000_000L;
        PortRef[] ends = {new PortRef(link.a(), link.aPort()), new PortRef(link.b(), link.bPort())};
        double busiest = 0;
        long longest = 0;
        double worstShare = -1;
        LinkFigures worst = null;
        long[][] sums = new long[2][];
        for (int e = 0; e < 2; e++) {
            PortErrorWindow w = ports.get(ends[e]);
            if (w == null || !w.hasSteps()) {
                continue;
            }
            sums[e] = w.sum(nowNanos, windowNanos, sum).clone();
            long span = sums[e][0];
            longest = Math.max(longest, span);
            if (span > 0) {
                busiest = Math.max(busiest, (sums[e][1] + sums[e][2]) * 1e9 / span);
            }
        }
        boolean loaded = busiest >= config.loadPacketsPerSecond();
        for (int e = 0; e < 2; e++) {
            long[] s = sums[e];
            if (s == null || s[0] <= 0) {
                continue;
            }
            double floor = config.loadPacketsPerSecond() * (s[0] / 1e9);
            for (int t = PortErrorWindow.FIRST_TROUBLE; t < PortErrorWindow.TRACKED.length; t++) {
                long errors = s[1 + t];
                if (errors < config.minErrors()) {
                    continue; // a few errors are noise, under load or not
                }
                boolean rx = PortErrorWindow.TRACKED[t].name().startsWith("RX");
                long packets = s[1 + (rx ? 0 : 1)];
                double ppm = errors * 1e6 / Math.max(packets, floor);
                double share = ppm / config.badPpm().get(t - PortErrorWindow.FIRST_TROUBLE);
                if (share > worstShare) {
                    worstShare = share;
                    worst = new LinkFigures(PortErrorWindow.TRACKED[t].jsonName(), ends[e], errors, packets, ppm,
                            busiest, loaded, longest / 1_000_000);
                }
            }
        }
        if (worst == null) {
            return longest == 0 ? LinkFigures.NONE : new LinkFigures(null, null, 0, 0, 0, busiest, loaded,
                    longest / 1_000_000);
        }
        return new LinkFigures(worst.counter(), worst.at(), worst.errors(), worst.packets(), worst.ppm(), busiest,
                loaded, longest / 1_000_000);
    }

    private static int counterIndex(String jsonName) {
        for (int t = PortErrorWindow.FIRST_TROUBLE; t < PortErrorWindow.TRACKED.length; t++) {
            if (PortErrorWindow.TRACKED[t].jsonName().equals(jsonName)) {
                return t - PortErrorWindow.FIRST_TROUBLE;
            }
        }
        throw new IllegalArgumentException("not a counter of trouble: " + jsonName);
    }
}
