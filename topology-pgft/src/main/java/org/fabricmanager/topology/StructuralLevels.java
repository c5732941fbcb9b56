package org.fabricmanager.topology;

import java.util.Arrays;

/**
 * What every step of a {@link StructuralMatch} reads: the fabric and its index, the PGFT it is matched to, each
 * switch's level, and which switches are left out of the match (above the top level). Says which switches can be
 * placed and which pairs of them are cables between adjacent levels.
 */
final class StructuralLevels {
    final Fabric fabric;
    final FabricIndex index;
    final PgftSpec spec;
    final int h;
    final int n;
    final SwitchLevels levels;
    final int[] level;
    /** Switches above the top level: reported once, then left out of pods, columns and placement. */
    final boolean[] excluded;

    StructuralLevels(Fabric fabric, PgftSpec spec) {
        this.fabric = fabric;
        this.index = fabric.index();
        this.spec = spec;
        this.h = spec.h();
        this.n = index.switchCount();
        this.levels = SwitchLevels.of(index, spec);
        this.level = levels.level;
        this.excluded = new boolean[n];
    }

    boolean placeable(int s) {
        return level[s] >= 1 && !excluded[s];
    }

    boolean validPair(int s, int t) {
        return placeable(s) && placeable(t) && Math.abs(level[s] - level[t]) == 1;
    }

    /** A new array of {@code size} entries, all -1 (no label, no root). */
    static int[] filled(int size) {
        int[] a = new int[size];
        Arrays.fill(a, -1);
        return a;
    }
}
