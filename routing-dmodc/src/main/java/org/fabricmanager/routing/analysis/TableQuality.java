package org.fabricmanager.routing.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.Validity;

/**
 * Measures forwarding tables as {@code quality} does: validity (by tracing, so it holds for tables no
 * engine vouches for), deadlock freedom, the longest route and the congestion under traffic patterns.
 * The default patterns are those of {@code quality}: every shift, {@value #RANDOM_PERMUTATIONS}
 * random permutations with seed {@value TrafficPattern#DEFAULT_SEED}, and all-to-all; shift is left out
 * above {@value #DEFAULT_SHIFT_MAX_NODES} attached nodes (O(N^2) routes). Also hands out the per-link
 * loads behind the all-to-all figure, for a heat map of the links.
 */
public final class TableQuality {
    /** The patterns of {@code quality} when none are named. */
    public static final String DEFAULT_PATTERNS = "shift,random:10,all2all";
    /** Random permutations in {@link #DEFAULT_PATTERNS}. */
    public static final int RANDOM_PERMUTATIONS = 10;
    /**
     * Above this many attached nodes the default patterns leave out shift: its N-1 permutations cost
     * O(N^2 x path length), tens of minutes at 65,536 nodes on a small machine.
     */
    public static final int DEFAULT_SHIFT_MAX_NODES = 16_384;

    private final RoutedFabric routed;
    private final int threads;

    /** @param threads analysis threads (at least 1); results do not depend on it */
    public TableQuality(RoutedFabric routed, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.routed = routed;
        this.threads = threads;
    }

    /** The default patterns for a fabric with {@code attachedNodes} attached nodes. */
    public static List<TrafficPattern> defaultPatterns(int attachedNodes) {
        List<TrafficPattern> patterns = new ArrayList<>();
        for (String p : DEFAULT_PATTERNS.split(",")) {
            TrafficPattern pattern = TrafficPattern.parse(p);
            if (!(pattern instanceof TrafficPattern.Shift) || shiftByDefault(attachedNodes)) {
                patterns.add(pattern);
            }
        }
        return patterns;
    }

    /** Whether the default patterns include shift on a fabric with this many attached nodes. */
    public static boolean shiftByDefault(int attachedNodes) {
        return attachedNodes <= DEFAULT_SHIFT_MAX_NODES;
    }

    /** The tables and fabric measured. */
    public RoutedFabric routed() {
        return routed;
    }

    /** Every figure with the tables' validity found by tracing. */
    public QualityFigures measure(List<TrafficPattern> patterns) {
        return measure(TracedValidity.of(routed), patterns, () -> false);
    }

    /**
     * Every figure, with {@code validity} as known (an engine's own), checking {@code abandon} between
     * analyses and within them (before each block of destinations or permutation): when it turns true the
     * measurement stops within one such block or permutation per thread and {@code null} is returned (a newer
     * routing, or a fault whose routing needs the cores, made it pointless).
     */
    public QualityFigures measure(Validity validity, List<TrafficPattern> patterns, BooleanSupplier abandon) {
        try {
            VirtualChannels vcs = VirtualChannels.of(routed.tables());
            DeadlockReport deadlock = new DeadlockAnalyzer(routed, vcs, threads, abandon).analyze();
            PathLengths lengths = new PathLengthAnalyzer(routed, threads, abandon).analyze();
            CongestionAnalyzer congestion = new CongestionAnalyzer(routed, threads, abandon);
            List<PatternCongestion> figures = new ArrayList<>(patterns.size());
            for (TrafficPattern p : patterns) {
                figures.add(congestion.analyze(p));
            }
            return new QualityFigures(validity, deadlock.deadlockFree(), vcs.count(), lengths.max(), figures);
        } catch (AbandonedException e) {
            return null;
        }
    }

    /**
     * Routes per directed link under all-to-all traffic, indexed by the ids of {@code routed().links()}
     * (links to nodes and unplugged ports stay 0): the loads whose maximum is the all-to-all figure.
     */
    public long[] allToAllLinkLoads() {
        return new CongestionAnalyzer(routed, threads).allToAllLoads();
    }
}
