package org.fabricmanager.routing.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.topology.FabricIndex;

/**
 * The leaf-pair validity of tables no engine vouches for (read from a file, or held by the switches),
 * found by tracing: the ordered leaf pairs whose first attached nodes' route is not delivered (a dead
 * end or a loop), counted as {@link Validity} counts them for an engine. One trace per leaf pair, or one per LID
 * of the target leaf's first node under an LMC (a pair is unreachable when any of them is).
 */
public final class TracedValidity {
    private TracedValidity() {
    }

    /** The validity of {@code routed}'s tables over its leaves that have attached nodes. */
    public static Validity of(RoutedFabric routed) {
        return of(routed, () -> false);
    }

    /**
     * The same, checking {@code abandon} before the traces from each leaf: once it is true,
     * {@link AbandonedException} is thrown (a measurement overtaken by a newer routing or a fault).
     */
    public static Validity of(RoutedFabric routed, BooleanSupplier abandon) {
        FabricIndex index = routed.index();
        int[] firstOnLeaf = new int[index.switchCount()];
        Arrays.fill(firstOnLeaf, -1);
        List<Integer> leaves = new ArrayList<>();
        for (int i = 0; i < routed.attachedCount(); i++) {
            int d = routed.attachedDestination(i);
            int leaf = routed.leafOf(d);
            if (firstOnLeaf[leaf] < 0) {
                firstOnLeaf[leaf] = d;
                leaves.add(leaf);
            }
        }
        PathTracer tracer = new PathTracer(routed);
        long unreachable = 0;
        List<Validity.LeafPair> examples = new ArrayList<>();
        for (int a : leaves) {
            if (abandon.getAsBoolean()) {
                throw new AbandonedException();
            }
            for (int b : leaves) {
                if (a != b && !deliversEveryLid(tracer, firstOnLeaf[a], firstOnLeaf[b], routed.lids())) {
                    unreachable++;
                    if (examples.size() < Validity.MAX_EXAMPLES) {
                        examples.add(new Validity.LeafPair(index.switchGuid(a), index.switchGuid(b)));
                    }
                }
            }
        }
        return unreachable == 0 ? Validity.valid() : new Validity(unreachable, examples);
    }

    private static boolean deliversEveryLid(PathTracer tracer, int from, int base, int lids) {
        for (int b = 0; b < lids; b++) {
            if (!tracer.delivers(from, base + b)) {
                return false;
            }
        }
        return true;
    }
}
