package org.fabricmanager.routing;

import java.util.List;

/**
 * Whether every pair of leaf switches has a route ({@code unreachablePairs == 0}). When not, a
 * bounded sample of the unreachable pairs (ordered leaf GUIDs) names them for the operator.
 *
 * @param unreachablePairs ordered (source leaf, destination leaf) pairs without a route
 * @param examples         at most {@link #MAX_EXAMPLES} of those pairs
 */
public record Validity(long unreachablePairs, List<LeafPair> examples) {
    /** How many unreachable pairs are kept by name. */
    public static final int MAX_EXAMPLES = 20;

    /** A source leaf that cannot reach a destination leaf, by GUID. */
    public record LeafPair(long sourceLeaf, long destinationLeaf) {
    }

    public Validity {
        examples = List.copyOf(examples);
    }

    /** The result for a fully routable fabric. */
    public static Validity valid() {
        return new Validity(0, List.of());
    }

    public boolean isValid() {
        return unreachablePairs == 0;
    }
}
