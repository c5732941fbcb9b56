package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.fabricmanager.routing.analysis.LidSharing;

/**
 * The multipath columns of {@code quality} and {@code compare} under an LMC: of the leaf/port pairs (a leaf and a
 * port on another leaf), how many send two of the port's LIDs through one switch-to-switch link, how many of them
 * already at the leaf's up-port, and the most flows of one pair on one link.
 */
final class LidSharingColumns {
    static final List<String> HEADER = List.of("LIDs sharing", "at leaf", "max shared");

    private LidSharingColumns() {
    }

    /** The cells of {@link #HEADER}: {@code shared/pairs}, the pairs sharing at the leaf, the most on one link. */
    static List<String> cells(LidSharing s) {
        return List.of(s.shared() + "/" + s.pairs(), Long.toString(s.sharedAtLeaf()), Integer.toString(s.maxShared()));
    }

    /** A note for pairs left out because a flow was not delivered; empty when none were. */
    static String note(String engine, LidSharing s) {
        return s.unrouted() == 0 ? "" : engine + ": " + s.unrouted() + " leaf/port pairs have an undelivered LID and"
                + " are not counted in LIDs sharing";
    }

    /** The figures as the {@code lidSharing} object of a JSON row. */
    static void json(ObjectNode row, LidSharing s) {
        ObjectNode o = row.putObject("lidSharing");
        o.put("lids", s.lids());
        o.put("pairs", s.pairs());
        o.put("sharedPairs", s.shared());
        o.put("sharedAtLeaf", s.sharedAtLeaf());
        o.put("maxShared", s.maxShared());
        o.put("unroutedPairs", s.unrouted());
    }
}
