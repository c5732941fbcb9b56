package org.fabricmanager.routing.dmodc.preprocess;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which of {@code DmodcEngine}'s shortcuts a routing takes: each one that can be switched off while
 * the tables stay exactly those of the paper's rules (the switched-off shortcut's work is then done by
 * a slower path that already exists). The public engine takes them all ({@link #ALL}); tests and the
 * shortcut benchmark switch them off one by one or in every combination. Each shortcut is chosen where
 * its decision is made (per routing, per switch or per shared set, never per table entry).
 *
 * <p>With {@link #counting()}, the routing also counts how often each shortcut was taken (per switch or
 * per set, see {@link Shortcut}), so that tests can show that a fabric exercises it; without, nothing is
 * counted.
 *
 * @param enabled one bit per {@link Shortcut}, by ordinal
 * @param counts  per shortcut how often it was taken, or null when not counting
 */
public record DmodcShortcuts(int enabled, AtomicLongArray counts) {
    /** Every shortcut: the engine's default. */
    public static final DmodcShortcuts ALL = new DmodcShortcuts((1 << Shortcut.values().length) - 1, null);

    /** The shortcuts, each with the option name tests and benchmarks print, and where it is counted. */
    public enum Shortcut {
        /** {@link CostDivider} up pass: a sparse row pulled through its children's finite leaves; counted per row. */
        SPARSE_PULL("sparse-pull"),
        /** {@code RouteFill}/{@code NeighbourBlocks}: neighbour rows merged into shared sets ({@code BlockSweep}); per switch. */
        SHARED_ROWS("shared-rows"),
        /** {@code NeighbourBlocks}: a pod's set spliced from the worker's previous pod set ({@code SharedRowsSplice}); per set. */
        SPLICE("splice"),
        /**
         * Unreachable leaves left to the end: {@code NeighbourBlocks} drops and merges a set's intervals over leaves
         * no asker reaches ({@code UnreachedLeaves}; counted per set), {@code OwnRuns} leaves a row's runs at
         * infinite own cost to be set to no route after its last run (counted per profiled row with such runs),
         * and {@code RunWriter} carries an open run over unreachable leaves.
         */
        UNREACHABLE_LAST("unreachable-last"),
        /** {@code NeighbourBlocks}/{@code RotationSweep}: a pod set's intervals grouped by mask ({@code IntervalGroups}); per switch. */
        INTERVAL_GROUPS("interval-groups"),
        /** {@code BlockSweep}/{@code RowPatcher}: a leaf's row written as rotations ({@code RotationSweep}); per switch. */
        ROTATION("rotation"),
        /** {@code RotationRuns#begin}: the sequence cache and octet tables kept from leaf to leaf; per switch kept. */
        ROTATION_CACHE("rotation-cache"),
        /** {@code BlockSweep}: the busiest block's intervals walked alone; counted per walk. */
        BUSY_STRETCHES("busy-stretches"),
        /** {@code RouteFill}: a leaf relative's row copied and patched at its differing chunks ({@code RowRelatives}); per relative. */
        RELATIVES("relatives"),
        /**
         * {@code RotationRuns} and {@code Selectors}: runs of 32 entries and steps of {@code Π_s = 32} written as
         * straight eight-byte stores; counted per switch with {@code Π_s = 32} (the precondition of the step path).
         */
        STRAIGHT_32("straight-32"),
        /** {@code DmodcEngine#reroute}: costs updated and only changed rows recomputed ({@code RouteChanges}); per re-route. */
        INCREMENTAL("incremental");

        private final String option;

        Shortcut(String option) {
            this.option = option;
        }

        /** The option's name, as printed by tests and the benchmark. */
        public String option() {
            return option;
        }
    }

    /** The shortcuts whose bits are set in {@code enabled} (bit {@code i} for ordinal {@code i}). */
    public static DmodcShortcuts of(int enabled) {
        return new DmodcShortcuts(enabled & ALL.enabled, null);
    }

    /** Number of shortcuts, so {@code 1 << count()} combinations. */
    public static int count() {
        return Shortcut.values().length;
    }

    /** Whether {@code shortcut} is taken. */
    public boolean on(Shortcut shortcut) {
        return (enabled & (1 << shortcut.ordinal())) != 0;
    }

    /** These shortcuts but {@code shortcut}. */
    public DmodcShortcuts without(Shortcut shortcut) {
        return new DmodcShortcuts(enabled & ~(1 << shortcut.ordinal()), counts);
    }

    /** The same shortcuts, counting from zero how often each is taken. */
    public DmodcShortcuts counting() {
        return new DmodcShortcuts(enabled, new AtomicLongArray(count()));
    }

    /** Counts one use of {@code shortcut} when counting. */
    public void hit(Shortcut shortcut) {
        if (counts != null) {
            counts.incrementAndGet(shortcut.ordinal());
        }
    }

    /** How often {@code shortcut} was taken since {@link #counting()} (0 when not counting). */
    public long taken(Shortcut shortcut) {
        return counts == null ? 0 : counts.get(shortcut.ordinal());
    }

    @Override
    public String toString() {
        if (enabled == ALL.enabled) {
            return "all shortcuts";
        }
        List<String> off = new ArrayList<>();
        for (Shortcut s : Shortcut.values()) {
            if (!on(s)) {
                off.add(s.option());
            }
        }
        return "all shortcuts but " + String.join(", ", off);
    }
}
