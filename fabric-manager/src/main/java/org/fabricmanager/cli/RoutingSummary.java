package org.fabricmanager.cli;

import java.util.Locale;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;

/** The one-line texts {@code route} (and later the daemon's CLI) print about a routing result. */
final class RoutingSummary {
    /** How many unreachable pairs a one-line report names. */
    static final int SHOWN_PAIRS = 5;

    private RoutingSummary() {
    }

    /** E.g. {@code dmodc: 16 switches x 12 destinations in 3.2 ms on 2 threads (ranking 0.1 ms, ...)}. */
    static String timings(RoutingResult result, FabricIndex index, int threads) {
        StringBuilder sb = new StringBuilder();
        sb.append(result.engine()).append(": ").append(index.switchCount()).append(" switches x ")
                .append(index.destinationCount()).append(" destinations in ")
                .append(millis(result.timings().totalNanos())).append(" on ").append(threads)
                .append(threads == 1 ? " thread (" : " threads (");
        boolean first = true;
        for (PhaseTimings.Phase p : result.timings().phases()) {
            if (!first) {
                sb.append(", ");
            }
            first = false;
            sb.append(p.name()).append(' ').append(millis(p.nanos()));
        }
        return sb.append(')').toString();
    }

    /** E.g. {@code valid: all 30 ordered leaf pairs routed}, or the unreachable pairs with examples. */
    static String validity(Validity validity, FabricIndex index) {
        long leaves = index.leafCount();
        long pairs = leaves * (leaves - 1);
        if (validity.isValid()) {
            return "valid: all " + pairs + " ordered leaf pairs routed";
        }
        StringBuilder sb = new StringBuilder();
        sb.append("fabric is disconnected: ").append(validity.unreachablePairs()).append(" of ").append(pairs)
                .append(" ordered leaf pairs have no up*/down* path (e.g. ");
        int shown = Math.min(SHOWN_PAIRS, validity.examples().size());
        for (int i = 0; i < shown; i++) {
            Validity.LeafPair p = validity.examples().get(i);
            sb.append(i == 0 ? "" : ", ").append(Guids.format(p.sourceLeaf())).append(" -> ")
                    .append(Guids.format(p.destinationLeaf()));
        }
        if (validity.unreachablePairs() > shown) {
            sb.append(", ...");
        }
        return sb.append("); their entries are 255").toString();
    }

    static String millis(long nanos) {
        double ms = nanos / 1e6;
        return String.format(Locale.ROOT, ms < 10 ? "%.2f ms" : "%.1f ms", ms);
    }
}
