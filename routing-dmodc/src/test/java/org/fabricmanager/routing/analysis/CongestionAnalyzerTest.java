package org.fabricmanager.routing.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.baseline.MinHopEngine;
import org.fabricmanager.routing.baseline.UpDownEngine;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.junit.jupiter.api.Test;

class CongestionAnalyzerTest {
    private final FabricIndex hand = HandTables.fabric().index();

    private static PatternCongestion analyze(FabricIndex index, ForwardingTables tables, String pattern, int threads) {
        return new CongestionAnalyzer(RoutedFabric.of(index, tables), threads).analyze(TrafficPattern.parse(pattern));
    }

    @Test
    void balancedRoutesOnTheHandFabricHaveTheHandCountedLoads() {
        ForwardingTables tables = HandTables.balanced(hand).build();
        PatternCongestion shift = analyze(hand, tables, "shift", 1);
        assertThat(shift.permutations()).isEqualTo(3);
        assertThat(shift.max()).isEqualTo(1);
        assertThat(shift.mean()).isEqualTo(1.0);
        assertThat(shift.unroutedPairs()).isZero();
        // all-to-all: each up-link carries the two nodes of its leaf to one remote node, each down-link the same
        PatternCongestion all = analyze(hand, tables, "all2all", 1);
        assertThat(all.max()).isEqualTo(2);
        long[] loads = new CongestionAnalyzer(RoutedFabric.of(hand, tables), 1).allToAllLoads();
        DirectedLinks links = DirectedLinks.of(hand);
        for (int s : new int[] {HandTables.L0, HandTables.L1}) {
            assertThat(loads[links.id(s, 1)]).as("node links are not counted").isZero();
            assertThat(loads[links.id(s, 3)]).isEqualTo(2);
            assertThat(loads[links.id(s, 4)]).isEqualTo(2);
        }
        for (int s : new int[] {HandTables.S0, HandTables.S1}) {
            assertThat(loads[links.id(s, 1)]).isEqualTo(2);
            assertThat(loads[links.id(s, 2)]).isEqualTo(2);
        }
    }

    @Test
    void skewedRoutesConcentrateLoad() {
        ForwardingTables.Builder b = HandTables.balanced(hand);
        b.set(HandTables.L0, 3, 3); // L0 sends node 3 via S0 as well
        b.set(HandTables.S0, 3, 2);
        ForwardingTables tables = b.build();
        // shift k=2: 0->2 and 1->3 both take L0:3 and S0:2; k=1 and k=3 keep 1
        PatternCongestion shift = analyze(hand, tables, "shift", 1);
        assertThat(shift.max()).isEqualTo(2);
        assertThat(shift.mean()).isEqualTo(4.0 / 3.0);
        assertThat(analyze(hand, tables, "all2all", 1).max()).isEqualTo(4);
    }

    @Test
    void brokenRoutesAreCountedAsUnroutedNotAsLoad() {
        ForwardingTables.Builder b = HandTables.balanced(hand);
        b.set(HandTables.S0, 2, 1); // loop for node 2 from L0
        ForwardingTables tables = b.build();
        PatternCongestion all = analyze(hand, tables, "all2all", 1);
        assertThat(all.unroutedPairs()).isEqualTo(2); // nodes 0 and 1 to node 2
        PatternCongestion shift = analyze(hand, tables, "shift", 1);
        assertThat(shift.unroutedPairs()).isEqualTo(2); // 1->2 (k=1) and 0->2 (k=2)
        long[] loads = new CongestionAnalyzer(RoutedFabric.of(hand, tables), 1).allToAllLoads();
        DirectedLinks links = DirectedLinks.of(hand);
        assertThat(loads[links.id(HandTables.L0, 3)]).as("only the route to node 0 from L1 is left").isZero();
        assertThat(loads[links.id(HandTables.S0, 1)]).isEqualTo(2);
    }

    @Test
    void allToAllPerDestinationTreeEqualsPairByPairCounts() {
        for (String spec : TestFabrics.ROUTING_SPECS) {
            for (long seed = 1; seed <= 8; seed++) {
                Fabric fabric = seed == 1 ? TestFabrics.canonical(spec) : TestFabrics.degraded(spec, seed);
                FabricIndex index = fabric.index();
                for (ForwardingTables tables : tablesFor(index, seed)) {
                    String what = TestFabrics.describe(spec, seed);
                    RoutedFabric routed = RoutedFabric.of(index, tables);
                    long[] expected = pairByPairAllToAll(routed);
                    long[] actual = new CongestionAnalyzer(routed, 1 + (int) (seed % 2)).allToAllLoads();
                    assertThat(actual).as(what).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void permutationMaximaEqualPairByPairCounts() {
        for (String spec : TestFabrics.ROUTING_SPECS.subList(0, 5)) {
            for (long seed = 1; seed <= 4; seed++) {
                Fabric fabric = seed == 1 ? TestFabrics.canonical(spec) : TestFabrics.degraded(spec, seed);
                FabricIndex index = fabric.index();
                for (ForwardingTables tables : tablesFor(index, seed)) {
                    String what = TestFabrics.describe(spec, seed);
                    RoutedFabric routed = RoutedFabric.of(index, tables);
                    int n = routed.attachedCount();
                    long max = 0;
                    long sum = 0;
                    long unrouted = 0;
                    for (int k = 1; k < n; k++) {
                        int[] target = new int[n];
                        for (int i = 0; i < n; i++) {
                            target[i] = (i + k) % n;
                        }
                        long[] r = pairByPairPermutation(routed, target);
                        max = Math.max(max, r[0]);
                        sum += r[0];
                        unrouted += r[1];
                    }
                    PatternCongestion shift = new CongestionAnalyzer(routed, 2).analyze(new TrafficPattern.Shift());
                    assertThat(shift.max()).as(what).isEqualTo(max);
                    assertThat(shift.mean()).as(what).isEqualTo((double) sum / (n - 1));
                    assertThat(shift.unroutedPairs()).as(what).isEqualTo(unrouted);

                    long randomMax = 0;
                    long randomSum = 0;
                    for (int r = 0; r < 3; r++) {
                        int[] permutation = new int[n];
                        CongestionAnalyzer.fill(permutation, 7, r);
                        long[] result = pairByPairPermutation(routed, permutation);
                        randomMax = Math.max(randomMax, result[0]);
                        randomSum += result[0];
                    }
                    PatternCongestion random = new CongestionAnalyzer(routed, 1)
                            .analyze(new TrafficPattern.RandomPermutations(3, 7));
                    assertThat(random.max()).as(what).isEqualTo(randomMax);
                    assertThat(random.mean()).as(what).isEqualTo(randomSum / 3.0);
                    assertThat(random.permutations()).isEqualTo(3);
                }
            }
        }
    }

    @Test
    void linkLoadsArePerLinkPeaksOverPermutationsPairByPair() {
        for (String spec : TestFabrics.ROUTING_SPECS.subList(0, 4)) {
            for (long seed = 1; seed <= 3; seed++) {
                Fabric fabric = seed == 1 ? TestFabrics.canonical(spec) : TestFabrics.degraded(spec, seed);
                FabricIndex index = fabric.index();
                for (ForwardingTables tables : tablesFor(index, seed)) {
                    String what = TestFabrics.describe(spec, seed);
                    RoutedFabric routed = RoutedFabric.of(index, tables);
                    int n = routed.attachedCount();
                    long[] peak = new long[routed.links().count()];
                    for (int r = 0; r < 4; r++) {
                        int[] permutation = new int[n];
                        CongestionAnalyzer.fill(permutation, 11, r);
                        long[] one = pairByPairLoads(routed, permutation);
                        for (int l = 0; l < peak.length; l++) {
                            peak[l] = Math.max(peak[l], one[l]);
                        }
                    }
                    TrafficPattern random = new TrafficPattern.RandomPermutations(4, 11);
                    LinkLoads loads = new CongestionAnalyzer(routed, 1 + (int) (seed % 2)).linkLoads(random);
                    assertThat(loads.loads()).as(what).isEqualTo(peak);
                    assertThat(loads.summary()).as(what).isEqualTo(new CongestionAnalyzer(routed, 1).analyze(random));
                    assertThat(loads.summary().max()).as(what)
                            .isEqualTo(java.util.Arrays.stream(peak).max().orElse(0));

                    LinkLoads shift = new CongestionAnalyzer(routed, 2).linkLoads(new TrafficPattern.Shift());
                    assertThat(shift.summary()).as(what).isEqualTo(new CongestionAnalyzer(routed, 1)
                            .analyze(new TrafficPattern.Shift()));
                    assertThat(java.util.Arrays.stream(shift.loads()).max().orElse(0)).as(what)
                            .isEqualTo(shift.summary().max());

                    LinkLoads all = new CongestionAnalyzer(routed, 1).linkLoads(new TrafficPattern.AllToAll());
                    assertThat(all.loads()).as(what).isEqualTo(pairByPairAllToAll(routed));
                    assertThat(all.summary().max()).as(what).isEqualTo(java.util.Arrays.stream(all.loads()).max().orElse(0));
                }
            }
        }
    }

    @Test
    void resultsDoNotDependOnTheThreadCount() {
        FabricIndex index = TestFabrics.degraded("PGFT(3;4,4,4;1,4,4;1,1,1)", 11).index();
        try (RoutingEngine engine = new MinHopEngine(1)) {
            RoutedFabric routed = RoutedFabric.of(index, engine.route(index).tables());
            for (String pattern : new String[] {"shift", "random:8:3", "all2all"}) {
                PatternCongestion one = new CongestionAnalyzer(routed, 1).analyze(TrafficPattern.parse(pattern));
                PatternCongestion three = new CongestionAnalyzer(routed, 3).analyze(TrafficPattern.parse(pattern));
                assertThat(three).as(pattern).isEqualTo(one);
            }
        }
    }

    @Test
    void randomPermutationsAreDeterministicForASeed() {
        int[] a = new int[50];
        int[] b = new int[50];
        CongestionAnalyzer.fill(a, 5, 3);
        CongestionAnalyzer.fill(b, 5, 3);
        assertThat(a).isEqualTo(b).containsExactlyInAnyOrder(java.util.stream.IntStream.range(0, 50).toArray());
        CongestionAnalyzer.fill(b, 5, 4);
        assertThat(a).isNotEqualTo(b);
    }

    @Test
    void parsesPatternsAndRejectsOthers() {
        assertThat(TrafficPattern.parse("random:10")).isEqualTo(new TrafficPattern.RandomPermutations(10, 1));
        assertThat(TrafficPattern.parse("random:4:99")).isEqualTo(new TrafficPattern.RandomPermutations(4, 99));
        assertThat(TrafficPattern.parse("shift")).isInstanceOf(TrafficPattern.Shift.class);
        assertThat(TrafficPattern.parse("all2all")).isInstanceOf(TrafficPattern.AllToAll.class);
        for (String bad : new String[] {"random", "random:0", "random:x", "random:1:2:3", "bisect", ""}) {
            assertThatThrownBy(() -> TrafficPattern.parse(bad)).as(bad)
                    .hasMessageContaining("unknown traffic pattern '" + bad + "'");
        }
    }

    /** Engine tables, plus a copy with some random entries corrupted (loops, dead ends, wrong nodes). */
    private static ForwardingTables[] tablesFor(FabricIndex index, long seed) {
        ForwardingTables good;
        try (RoutingEngine engine = seed % 2 == 0 ? new UpDownEngine(1) : new MinHopEngine(1)) {
            good = engine.route(index).tables();
        }
        long[] guids = new long[index.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder b = ForwardingTables.builder(guids, index.destinationCount());
        Random random = new Random(seed);
        for (int s = 0; s < guids.length; s++) {
            byte[] row = good.copyRow(s);
            for (int d = 0; d < row.length; d++) {
                if (random.nextInt(20) == 0) {
                    row[d] = (byte) (random.nextInt(6) == 0 ? 255 : 1 + random.nextInt(index.switchPorts(s)));
                }
            }
            System.arraycopy(row, 0, b.row(s), 0, row.length);
        }
        return new ForwardingTables[] {good, b.build()};
    }

    /** Routes per directed link under all-to-all, pair by pair with the path tracer. */
    private static long[] pairByPairAllToAll(RoutedFabric routed) {
        long[] loads = new long[routed.links().count()];
        PathTracer tracer = new PathTracer(routed);
        for (int i = 0; i < routed.attachedCount(); i++) {
            for (int j = 0; j < routed.attachedCount(); j++) {
                if (i != j) {
                    add(routed, tracer.trace(routed.attachedDestination(i), routed.attachedDestination(j)), loads);
                }
            }
        }
        return loads;
    }

    /** Routes per directed link of one permutation, pair by pair. */
    private static long[] pairByPairLoads(RoutedFabric routed, int[] target) {
        long[] loads = new long[routed.links().count()];
        PathTracer tracer = new PathTracer(routed);
        for (int i = 0; i < target.length; i++) {
            if (target[i] != i) {
                add(routed, tracer.trace(routed.attachedDestination(i), routed.attachedDestination(target[i])), loads);
            }
        }
        return loads;
    }

    /** {max load, unrouted pairs} of one permutation, pair by pair. */
    private static long[] pairByPairPermutation(RoutedFabric routed, int[] target) {
        long[] loads = new long[routed.links().count()];
        PathTracer tracer = new PathTracer(routed);
        long unrouted = 0;
        for (int i = 0; i < target.length; i++) {
            if (target[i] != i) {
                Trace t = tracer.trace(routed.attachedDestination(i), routed.attachedDestination(target[i]));
                if (!add(routed, t, loads)) {
                    unrouted++;
                }
            }
        }
        long max = 0;
        for (long v : loads) {
            max = Math.max(max, v);
        }
        return new long[] {max, unrouted};
    }

    private static boolean add(RoutedFabric routed, Trace t, long[] loads) {
        if (!t.delivered()) {
            return false;
        }
        // every hop but the last (which enters the destination node) is a switch-to-switch link
        for (int h = 0; h + 1 < t.hops().size(); h++) {
            loads[routed.links().id(t.hops().get(h).switchId(), t.hops().get(h).outPort())]++;
        }
        return true;
    }
}
