package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.MissingLink;
import org.fabricmanager.topology.PgftRecognition.MissingNode;
import org.fabricmanager.topology.PgftRecognition.Problem;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.Verdict;

/**
 * What {@link HdftRecognizer} found when it compared a fabric with a 2-D fat tree: the verdict (as
 * for a PGFT), the spec and where it came from, counts per switch role, and what is missing:
 * leaves by grid cell, row and column switches by position, nodes and links; then the fault rows and
 * fault columns (those with a missing leaf), which VTFTR removes from its detour candidates.
 *
 * <p>By GUID ({@link Matching#BY_GUID}, canonical numbering of {@link HdftGenerator}) every item is
 * named exactly. By structure, cells are those of the {@link HdftLayout} (rows and columns numbered by
 * their lowest switch GUID, possibly transposed), missing switches are only counted, and ports are
 * not checked.
 *
 * @param verdict               the overall answer
 * @param spec                  the HDFT checked against; {@code null} only for {@link Verdict#UNRECOGNISED}
 * @param specSource            where {@code spec} came from
 * @param matching              by GUID or by structure
 * @param roles                 expected (-1 when unknown) and present switches per role
 * @param expectedNodes         end nodes of the HDFT (-1 when unknown)
 * @param attachedNodes         end nodes with a link to a switch
 * @param missingLeaves         grid cells with no leaf
 * @param missingRowSwitches    row switches absent (by GUID only)
 * @param missingColumnSwitches column switches absent (by GUID only)
 * @param missingNodes          canonical nodes absent (by GUID only)
 * @param missingLinks          canonical cables absent although both ends are present (by GUID only)
 * @param problems              extra items and miswirings; any makes the verdict {@link Verdict#MISWIRED}
 * @param faultRows             rows with at least one missing leaf, ascending
 * @param faultColumns          columns with at least one missing leaf, ascending
 */
public record HdftRecognition(Verdict verdict, HdftSpec spec, SpecSource specSource, Matching matching,
                              List<RoleCount> roles, int expectedNodes, int attachedNodes,
                              List<Cell> missingLeaves, List<Slot> missingRowSwitches,
                              List<Slot> missingColumnSwitches, List<MissingNode> missingNodes,
                              List<MissingLink> missingLinks, List<Problem> problems,
                              List<Integer> faultRows, List<Integer> faultColumns) {

    /** A grid cell: column {@code x}, row {@code y}. */
    public record Cell(int x, int y) {
        @Override
        public String toString() {
            return "(" + x + ", " + y + ")";
        }
    }

    /** Switch {@code j} of row (or column) {@code line}. */
    public record Slot(int line, int j) {
    }

    /** Switches of one role: expected by the HDFT (-1 when unknown) and present. */
    public record RoleCount(String role, int expected, int present) {
    }

    public HdftRecognition {
        roles = List.copyOf(roles);
        missingLeaves = List.copyOf(missingLeaves);
        missingRowSwitches = List.copyOf(missingRowSwitches);
        missingColumnSwitches = List.copyOf(missingColumnSwitches);
        missingNodes = List.copyOf(missingNodes);
        missingLinks = List.copyOf(missingLinks);
        problems = List.copyOf(problems);
        faultRows = List.copyOf(faultRows);
        faultColumns = List.copyOf(faultColumns);
    }

    /** True when the fabric is the HDFT or a degraded version of it. */
    public boolean matches() {
        return verdict == Verdict.INTACT || verdict == Verdict.DEGRADED;
    }

    /** One line for logs, e.g. {@code DEGRADED HDFT(16x16;8;1;1) (fabric, by GUID): 3 missing leaves}. */
    public String summary() {
        StringBuilder sb = RecognitionText.summaryHead(verdict, spec, specSource, matching);
        List<String> parts = new ArrayList<>();
        RecognitionText.count(parts, missingLeaves.size(), "missing leaf", "missing leaves");
        RecognitionText.count(parts, missingRowSwitches.size(), "missing row switch", "missing row switches");
        RecognitionText.count(parts, missingColumnSwitches.size(), "missing column switch", "missing column switches");
        RecognitionText.count(parts, missingNodes.size(), "missing node", "missing nodes");
        RecognitionText.count(parts, missingLinks.size(), "missing link", "missing links");
        RecognitionText.count(parts, problems.size(), "problem", "problems");
        return RecognitionText.withParts(sb, parts);
    }
}
