package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.HdftRecognition.Cell;
import org.fabricmanager.topology.HdftRecognition.RoleCount;
import org.fabricmanager.topology.HdftRecognition.Slot;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.MissingNode;
import org.fabricmanager.topology.PgftRecognition.Problem;

/**
 * An {@link HdftRecognition} as text for operators, in the layout of {@link RecognitionReport}: the
 * verdict, the spec, switches per role and end nodes, the fault rows and columns, then each list
 * (missing leaves, row switches, column switches, nodes, links, extra items, miswirings), each cut
 * to a given number of lines.
 */
public final class HdftRecognitionReport {
    private HdftRecognitionReport() {
    }

    /**
     * The report's lines.
     *
     * @param limit most items printed per list ({@code Integer.MAX_VALUE} for all)
     */
    public static List<String> lines(HdftRecognition r, int limit) {
        List<String> out = new ArrayList<>();
        out.add(r.verdict().name() + ": " + headline(r));
        if (r.spec() != null) {
            out.add("checked against " + r.spec() + " (" + RecognitionText.source(r.specSource(), "hdft") + "), matched "
                    + (r.matching() == Matching.BY_GUID ? "by GUID and port"
                            : "by structure (ports not checked; rows and columns numbered by lowest switch GUID)"));
        }
        if (!r.roles().isEmpty()) {
            out.add(String.format("%-7s %9s %9s %9s", "role", "expected", "present", "missing"));
            for (RoleCount c : r.roles()) {
                out.add(String.format("%-7s %9d %9d %9d", c.role(), c.expected(), c.present(),
                        c.expected() - c.present()));
            }
        }
        out.add(RecognitionText.nodesRow(7, r.expectedNodes(), r.attachedNodes()));
        if (!r.faultRows().isEmpty()) {
            out.add("fault rows: " + join(r.faultRows()) + "; fault columns: " + join(r.faultColumns()));
        }
        boolean byGuid = r.matching() == Matching.BY_GUID;
        RecognitionText.list(out, "missing leaves", r.missingLeaves(), (Cell c) -> byGuid
                ? c + " " + Guids.format(HdftGenerator.leafGuid(r.spec(), c.x(), c.y())) + " lsw-" + c.x() + "-" + c.y()
                : c.toString(), limit);
        RecognitionText.list(out, "missing row switches", r.missingRowSwitches(), (Slot s) -> "row " + s.line() + " "
                + Guids.format(HdftGenerator.rowSwitchGuid(r.spec(), s.line(), s.j())) + " rsw-" + s.line() + "-" + s.j(),
                limit);
        RecognitionText.list(out, "missing column switches", r.missingColumnSwitches(), (Slot s) -> "column " + s.line() + " "
                + Guids.format(HdftGenerator.columnSwitchGuid(r.spec(), s.line(), s.j())) + " csw-" + s.line() + "-"
                + s.j(), limit);
        RecognitionText.list(out, "missing nodes", r.missingNodes(), (MissingNode m) -> Guids.format(m.guid()) + " n" + m.index(), limit);
        RecognitionText.list(out, "missing links", r.missingLinks(), MissingLink::toString, limit);
        if (r.verdict() == PgftRecognition.Verdict.UNRECOGNISED) {
            RecognitionText.list(out, "why it is not an intact HDFT", r.problems(), Problem::toString, limit);
        } else {
            RecognitionText.list(out, "extra items", Problems.filter(r.problems(), true), Problem::toString, limit);
            RecognitionText.list(out, "miswirings", Problems.filter(r.problems(), false), Problem::toString, limit);
        }
        return out;
    }

    private static String headline(HdftRecognition r) {
        return switch (r.verdict()) {
            case INTACT -> "the fabric is " + r.spec() + ", intact";
            case DEGRADED -> "the fabric is " + r.spec() + " with parts missing";
            case MISWIRED -> "the fabric does not match " + r.spec() + " (extra items or miswiring)";
            case UNRECOGNISED -> "the fabric is not an intact HDFT; give the expected one to check a degraded fabric";
        };
    }

    private static String join(List<Integer> values) {
        StringBuilder sb = new StringBuilder();
        for (int v : values) {
            sb.append(sb.length() == 0 ? "" : ", ").append(v);
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }
}
