package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Draws leaf switches to fail, deterministically for a seed: the leaves (switches with at least one
 * node link) in ascending GUID order, shuffled by Fisher-Yates with {@link Random}, whose algorithm
 * the Java specification fixes, so a seed fails the same leaves on every JVM. Failing a leaf removes
 * the switch and its links; its nodes stay, unattached, as a real failure leaves them.
 */
public final class LeafFailures {
    private LeafFailures() {
    }

    /**
     * The GUIDs of {@code count} leaves drawn at random, in the order drawn.
     *
     * @throws TopologyException when {@code count} is negative or exceeds the leaves of the fabric
     */
    public static List<Long> pick(Fabric fabric, int count, long seed) {
        FabricIndex index = fabric.index();
        int[] leaves = index.leaves();
        if (count < 0) {
            throw new TopologyException("leaf failures: negative count " + count);
        }
        if (count > leaves.length) {
            throw new TopologyException("leaf failures: asked to fail " + count + " leaf switches but the fabric has only "
                    + leaves.length);
        }
        // leaves() is in switch-id order, which is ascending GUID order
        List<Long> guids = new ArrayList<>(leaves.length);
        for (int s : leaves) {
            guids.add(index.switchGuid(s));
        }
        Random random = new Random(seed);
        for (int i = guids.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            Long tmp = guids.get(i);
            guids.set(i, guids.get(j));
            guids.set(j, tmp);
        }
        return List.copyOf(guids.subList(0, count));
    }

    /** {@code fabric} without {@code count} leaves drawn at random (see {@link #pick}). */
    public static Fabric fail(Fabric fabric, int count, long seed) {
        return count == 0 ? fabric : fabric.withoutSwitches(pick(fabric, count, seed));
    }
}
