package org.fabricmanager.topology;

import java.util.List;
import java.util.function.Function;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.Verdict;

/**
 * Text pieces shared by the PGFT and HDFT recognition summaries ({@link PgftRecognition#summary()},
 * {@link HdftRecognition#summary()}) and reports ({@link RecognitionReport},
 * {@link HdftRecognitionReport}), so both read alike to an operator.
 */
final class RecognitionText {
    private RecognitionText() {
    }

    /** The start of a summary line: the verdict, then the spec, its source and the matching, if any. */
    static StringBuilder summaryHead(Verdict verdict, Object spec, SpecSource source, Matching matching) {
        StringBuilder sb = new StringBuilder(verdict.name());
        if (spec != null) {
            sb.append(' ').append(spec).append(" (").append(source.name().toLowerCase()).append(", ")
                    .append(matching == Matching.BY_GUID ? "by GUID" : "by structure").append(')');
        }
        return sb;
    }

    /** Appends the count {@code n} of some item to {@code parts} when it is not zero, singular or plural. */
    static void count(List<String> parts, int n, String one, String many) {
        if (n > 0) {
            parts.add(n + " " + (n == 1 ? one : many));
        }
    }

    /** Appends {@code ": part, part"} to a summary when there are parts; returns the line. */
    static String withParts(StringBuilder sb, List<String> parts) {
        if (!parts.isEmpty()) {
            sb.append(": ").append(String.join(", ", parts));
        }
        return sb.toString();
    }

    /** Where the spec came from, in words; {@code field} is the fabric JSON field ("pgft", "hdft"). */
    static String source(SpecSource source, String field) {
        return switch (source) {
            case GIVEN -> "given";
            case FABRIC -> "from the fabric's " + field + " field";
            case INFERRED -> "inferred";
            case NONE -> "none";
        };
    }

    /** The end-node row of a report's count table, the first column {@code width} wide. */
    static String nodesRow(int width, int expected, int attached) {
        return String.format("%-" + width + "s %9s %9d %9s", "nodes", expected < 0 ? "-" : Integer.toString(expected),
                attached, expected < 0 ? "-" : Integer.toString(expected - attached));
    }

    /** A titled list of items, one per line, cut to {@code limit} lines with a count of the rest. */
    static <T> void list(List<String> out, String title, List<T> items, Function<T, String> format, int limit) {
        if (items.isEmpty()) {
            return;
        }
        out.add(title + " (" + items.size() + "):");
        int shown = Math.min(limit, items.size());
        for (int i = 0; i < shown; i++) {
            out.add("  " + format.apply(items.get(i)));
        }
        if (shown < items.size()) {
            out.add("  ... and " + (items.size() - shown) + " more");
        }
    }
}
