package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.Problem;

/**
 * Problem factories and filters shared by the PGFT and HDFT recognisers, so that the same kind of
 * fault reads the same whichever fat tree was checked.
 */
final class Problems {
    private Problems() {
    }

    /** A problem about one link: both ends are the devices involved. */
    static Problem ofLink(Kind kind, String detail, Link link) {
        return new Problem(kind, detail, List.of(link.a(), link.b()), List.of(link));
    }

    /** A device (called {@code what}, e.g. "switch") whose GUID has no position in {@code spec}. */
    static Problem noPosition(Kind kind, String what, Fabric fabric, long guid, Object spec) {
        return new Problem(kind, what + " " + Describe.device(fabric, guid) + " has no position in " + spec,
                List.of(guid), List.of());
    }

    /** The problems that are extra items ({@code extra} true) or miswirings (false), in order. */
    static List<Problem> filter(List<Problem> problems, boolean extra) {
        List<Problem> out = new ArrayList<>();
        for (Problem p : problems) {
            if (p.kind().isExtra() == extra) {
                out.add(p);
            }
        }
        return out;
    }
}
