package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.fabricmanager.topology.PgftRecognition.LevelCount;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.MissingNode;
import org.fabricmanager.topology.PgftRecognition.Problem;
import org.fabricmanager.topology.PgftRecognition.SwitchSlot;

/**
 * A {@link PgftRecognition} as text for operators: the verdict, the spec, a table of switches per
 * level and of end nodes (present = attached to a switch), then each list (missing switches, nodes and links, unplaced switches, extra items,
 * miswirings), each cut to a given number of lines. Used by {@code topology --check} and the
 * daemon's log.
 */
public final class RecognitionReport {
    private RecognitionReport() {
    }

    /**
     * The report's lines.
     *
     * @param fabric the fabric that was checked, to name devices
     * @param limit  most items printed per list ({@code Integer.MAX_VALUE} for all)
     */
    public static List<String> lines(PgftRecognition r, Fabric fabric, int limit) {
        List<String> out = new ArrayList<>();
        out.add(r.verdict().name() + ": " + headline(r));
        if (r.spec() != null) {
            out.add("checked against " + r.spec() + " (" + RecognitionText.source(r.specSource(), "pgft") + "), matched "
                    + (r.matching() == Matching.BY_GUID ? "by GUID and port" : "by structure (ports not checked)"));
        }
        out.add(String.format("%-6s %9s %9s %9s", "level", "expected", "present", "missing"));
        for (LevelCount c : r.levels()) {
            out.add(String.format("%-6d %9s %9d %9s", c.level(), c.expected() < 0 ? "-" : Integer.toString(c.expected()),
                    c.present(), c.expected() < 0 ? "-" : Integer.toString(c.expected() - c.present())));
        }
        out.add(RecognitionText.nodesRow(6, r.expectedNodes(), r.attachedNodes()));
        Function<SwitchSlot, String> slot = r.matching() == Matching.BY_GUID
                ? s -> Guids.format(s.guid()) + " " + s.name()
                : s -> "level " + s.level() + ", position " + s.index();
        RecognitionText.list(out, "missing switches", r.missingSwitches(), slot, limit);
        RecognitionText.list(out, "missing nodes", r.missingNodes(), (MissingNode m) -> Guids.format(m.guid()) + " n" + m.index(), limit);
        RecognitionText.list(out, "missing links", r.missingLinks(), (MissingLink m) -> link(fabric, m), limit);
        RecognitionText.list(out, "unplaced switches (cut off from every leaf)", r.unplacedSwitches(),
                (Long g) -> Describe.device(fabric, g), limit);
        if (r.verdict() == PgftRecognition.Verdict.UNRECOGNISED) {
            RecognitionText.list(out, "why it is not an intact PGFT", r.problems(), Problem::toString, limit);
        } else {
            RecognitionText.list(out, "extra items", r.extras(), Problem::toString, limit);
            RecognitionText.list(out, "miswirings", r.miswirings(), Problem::toString, limit);
        }
        return out;
    }

    private static String headline(PgftRecognition r) {
        return switch (r.verdict()) {
            case INTACT -> "the fabric is " + r.spec() + ", intact";
            case DEGRADED -> "the fabric is " + r.spec() + " with parts missing";
            case MISWIRED -> r.spec() == null ? "the fabric is not a fat tree"
                    : "the fabric does not match " + r.spec() + " (extra items or miswiring)";
            case UNRECOGNISED -> "the fabric is not an intact PGFT; give the expected one to check a degraded fabric";
        };
    }

    private static String link(Fabric fabric, MissingLink m) {
        String a = end(fabric, m.a(), m.aPort());
        String b = m.b() == 0 ? "an end node" : end(fabric, m.b(), m.bPort());
        return a + " - " + b;
    }

    private static String end(Fabric fabric, long guid, int port) {
        return Describe.device(fabric, guid) + (port == 0 ? "" : " port " + port);
    }
}
