package org.fabricmanager.routing.dmodc;

/**
 * Formulas (3) and (4) of the Dmodc paper, section 3.4: which of the {@code #C} candidate port
 * groups, and which port inside the chosen group, switch {@code s} uses for destination {@code d}:
 * <pre>
 *   g = C[ floor(d / Π_s) mod #C ]
 *   p = g[ floor(d / (Π_s × #C)) mod #g ]
 * </pre>
 * The engine computes {@code q = floor(d / Π_s)} once and uses {@code floor(q / #C)}, which equals
 * {@code floor(d / (Π_s × #C))} for positive integers and cannot overflow. Candidate groups
 * {@code C} are in group order (neighbour GUID ascending), ports of a group in port order.
 */
public final class DmodcFormula {
    private DmodcFormula() {
    }

    /** Formula (3): index into the candidate groups. */
    public static int groupIndex(int d, int divider, int candidateGroups) {
        return (d / divider) % candidateGroups;
    }

    /** Formula (4): index into the chosen group's ports. */
    public static int portIndex(int d, int divider, int candidateGroups, int groupSize) {
        return (d / divider / candidateGroups) % groupSize;
    }
}
