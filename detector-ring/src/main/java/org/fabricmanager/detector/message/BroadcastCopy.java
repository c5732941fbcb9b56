package org.fabricmanager.detector.message;

import java.util.Arrays;

/**
 * One copy of a reliable broadcast (the slides' BcastMsg(dead, s, D)). The broadcast instance is
 * (source, sourceIncarnation, sequence); the topology is computed by every forwarder from the
 * source's dead set {@code sourceDead}, never from its own view, so it does not change during the
 * broadcast. {@code cube} and {@code tree} say which hypercube and which disjoint spanning tree the
 * copy travels on (both 0 for the binomial graph).
 *
 * @param sourceDead the source's dead members, sorted ascending; shared between copies and never modified
 */
public record BroadcastCopy(int from, long fromIncarnation, int source, long sourceIncarnation, long sequence,
                            int cube, int tree, int[] sourceDead, DetectorEvent event) implements RingMessage {

    /** The same broadcast as forwarded by {@code forwarder} along {@code cube}/{@code tree}. */
    public BroadcastCopy forwardedBy(int forwarder, long forwarderIncarnation, int nextCube, int nextTree) {
        return new BroadcastCopy(forwarder, forwarderIncarnation, source, sourceIncarnation, sequence, nextCube, nextTree,
                sourceDead, event);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BroadcastCopy b && b.from == from && b.fromIncarnation == fromIncarnation
                && b.source == source && b.sourceIncarnation == sourceIncarnation && b.sequence == sequence
                && b.cube == cube && b.tree == tree && Arrays.equals(b.sourceDead, sourceDead) && b.event.equals(event);
    }

    @Override
    public int hashCode() {
        int h = Integer.hashCode(from);
        h = 31 * h + Long.hashCode(fromIncarnation);
        h = 31 * h + Integer.hashCode(source);
        h = 31 * h + Long.hashCode(sourceIncarnation);
        h = 31 * h + Long.hashCode(sequence);
        h = 31 * h + cube;
        h = 31 * h + tree;
        h = 31 * h + Arrays.hashCode(sourceDead);
        return 31 * h + event.hashCode();
    }

    @Override
    public String toString() {
        return "BroadcastCopy[from=" + from + "@" + fromIncarnation + ", source=" + source + "@" + sourceIncarnation
                + ", sequence=" + sequence + ", cube=" + cube + ", tree=" + tree + ", sourceDead="
                + Arrays.toString(sourceDead) + ", event=" + event + "]";
    }
}
