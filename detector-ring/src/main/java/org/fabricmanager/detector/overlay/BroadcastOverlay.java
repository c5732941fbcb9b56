package org.fabricmanager.detector.overlay;


/**
 * The forwarding rule of a reliable broadcast over the live members named by {@link LiveRanks}.
 * Stateless: a member forwards a copy using only the copy's source, dead set, cube and tree.
 */
public interface BroadcastOverlay {

    /** The copies the source sends to start a broadcast. */
    void originate(LiveRanks ranks, CopySink sink);

    /**
     * The copies member {@code self} sends on receiving the copy on {@code cube}/{@code tree} from
     * {@code from}. Nothing if {@code self} is not a live member for this broadcast.
     */
    void forward(LiveRanks ranks, int self, int from, int cube, int tree, CopySink sink);

    /**
     * Whether only the first copy of a broadcast instance is forwarded (flooding) rather than every
     * copy along its own tree (disjoint trees).
     */
    boolean forwardsFirstCopyOnly();

    /** The implementation of {@code overlay}. */
    static BroadcastOverlay of(Overlay overlay) {
        return switch (overlay) {
            case HYPERCUBE -> HypercubeOverlay.INSTANCE;
            case BMG -> BinomialGraphOverlay.INSTANCE;
        };
    }
}
