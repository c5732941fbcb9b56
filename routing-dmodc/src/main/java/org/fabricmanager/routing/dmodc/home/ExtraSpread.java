package org.fabricmanager.routing.dmodc.home;

import java.util.Arrays;
import org.fabricmanager.topology.FabricIndex;

/**
 * The second step of {@code dmodc-home}: at each level-1 switch {@code u}, the up choice of the <em>extras</em>
 * (destinations a leaf sent there although {@code u} is not their home), {@code C[(⌊d/Π⌋ + ⌊#C/2⌋) mod #C]} over
 * {@code u}'s up candidates {@code C} towards the destination's leaf, in {@code u}'s group order: half the list away
 * from Dmodc's choice, which the same leaf's home destinations take. Where {@code C} is shorter than the plane's
 * level-2 switches (a link lost there or on the way down), a home destination goes up its <em>home top</em>, the
 * plane's level-2 switch {@code T[⌊d/Π⌋ mod #T]} that Dmodc takes on an intact tree, whenever it is in {@code C};
 * the others go to stand-ins chosen by load ({@link StandIns}), and the extras rotate by {@code u}'s pod number
 * ({@link #rotateHomes}). So a destination comes down its home top from every pod that can reach it, and the
 * sources of those that cannot do not all come down the same other level-2 switch.
 *
 * <p>Candidate lists are worked out per plane, not per switch: a plane ({@link Pods} above rank 1) is the level-1
 * switches that share level-2 switches, and a level-2 switch closest to a leaf is so for every level-1 switch
 * linked to it. So one pass along each level-2 switch's cost row gives, per leaf, the plane's closest level-2
 * switches; a level-1 switch's candidates are those it is linked to, when its own cost is one more (otherwise
 * they are worked out for that leaf from its own links). A choice is made once per leaf and {@code ⌊d/Π⌋}, then
 * written to each extra that shares them.
 */
final class ExtraSpread {
    private final FabricIndex index;
    private final byte[] costs;
    private final int leaves;
    private final int[] ranks;
    private final int[] dividers;
    private final int[] destinationLeaf;
    private final Pods planes;
    private final Pods pods;
    private final int[] leafFirst;
    /** Per leaf number, its pod's number plus one (0: none): {@link StandIns}' down links are per pod. */
    private final int[] leafPod;
    /** The destinations of each leaf in ascending order, at the leaf's node positions. */
    private final int[] sorted;
    /** True when every leaf's destinations are consecutive ({@link #leafByLeaf}). */
    private final boolean consecutive;

    /**
     * The step over the tables of {@code index}, its level-1 switches' pods numbered as in {@code pods};
     * {@code layout}: where each leaf's destinations lie.
     */
    ExtraSpread(FabricIndex index, byte[] costs, int[] ranks, int[] dividers, LeafDestinations layout, Pods pods) {
        this.index = index;
        this.costs = costs;
        this.leaves = index.leafCount();
        this.ranks = ranks;
        this.dividers = dividers;
        this.destinationLeaf = layout.leafOf();
        this.planes = Pods.of(index, ranks, 1);
        this.pods = pods;
        this.leafFirst = layout.first();
        this.leafPod = new int[leaves];
        for (int l = 0; l < leaves; l++) {
            leafPod[l] = pods.podOf(index.leaves()[l]) + 1;
        }
        this.consecutive = layout.consecutive();
        this.sorted = layout.sorted();
    }

    int planeCount() {
        return planes.count();
    }

    /**
     * The up choices at plane {@code p}'s level-1 switches: {@code extras[u]} holds a bit per destination
     * ({@code null}: none), {@code rows.row(u)} the row to write in.
     */
    void spread(int p, long[][] extras, Rows rows) {
        int[] tops = planes.upper(p);
        long[] reach = tops.length <= Long.SIZE ? planes.closest(p, costs, leaves) : null;
        Choices x = new Choices(tops.length);
        int[] lower = planes.lower(p);
        x.standIns = reach == null ? null
                : new StandIns(index, leafFirst, sorted, leafPod, pods.count(), tops.length, lower.length);
        for (int i = 0; i < lower.length && reach != null; i++) {
            if (x.load(lower[i], reach)) {
                x.standIns.count(i, x.linked, reach, x.div, pods.podOf(lower[i]) + 1);
            }
        }
        for (int i = 0; i < lower.length; i++) {
            int u = lower[i];
            if (!x.load(u, reach)) {
                continue;
            }
            if (reach != null) {
                x.standIns.start(i);
            }
            if (reach != null && consecutive) {
                leafByLeaf(u, extras[u], rows, x);
                continue;
            }
            if (reach != null) {
                rotateHomes(u, rows, x);
            }
            if (extras[u] != null) {
                spread(u, extras[u], rows.row(u), x);
            }
        }
    }

    /**
     * The home destinations (not extras) towards the leaves over which {@code x}'s switch has fewer candidates than
     * its plane has level-2 switches: the home top {@code T[⌊d/Π⌋ mod #T]} when it is a candidate, else a stand-in
     * ({@link StandIns}), in place of Dmodc's {@code C[⌊d/Π⌋ mod #C]}. Dmodc's shorter list moves every destination
     * to another level-2 switch, the same in every pod, so where it maps two destination leaves to one level-2 switch
     * that link down carries both from every source; keeping the home top keeps each destination on one link down
     * wherever it can, and placing the rest by load spreads them over the switch's links up and the sources of a
     * destination that cannot over the plane's links down. Written for every destination of such a leaf, a run per
     * {@code ⌊d/Π⌋} (in destination order where a leaf's are not consecutive); the extras are written over them after.
     */
    private void rotateHomes(int u, Rows rows, Choices x) {
        int div = x.div;
        byte[] table = null;
        for (int l = 0; l < leaves; l++) {
            long mask = x.linked & x.reach[l];
            int c = Long.bitCount(mask);
            if (costs[u * leaves + l] != x.reach[leaves + l] + 1 || c == 0 || c == x.slotGroup.length && !x.widened) {
                continue;
            }
            table = table == null ? rows.row(u) : table;
            int from = index.leafNodeStart(l);
            int to = index.leafNodeStart(l + 1);
            if (leafFirst[l] >= 0) {
                for (int d = leafFirst[l], end = d + to - from; d < end; ) {
                    int q = d / div;
                    int run = Math.min(end, (q + 1) * div);
                    Bits.fill(table, d, run, (byte) homeTopPort(mask, c, q, l, x));
                    d = run;
                }
            } else {
                int run = -1;
                int port = -1;
                for (int i = from; i < to; i++) {
                    int d = sorted[i];
                    if (d / div != run) {
                        run = d / div;
                        port = homeTopPort(mask, c, run, l, x);
                    }
                    table[d] = (byte) port;
                }
            }
        }
    }

    /**
     * {@link #rotateHomes} and then {@link #spread(int, long[], byte[], Choices)} in one pass, leaf by leaf, where
     * every leaf's destinations are consecutive: the same entries, as each writes only the destinations of the leaf
     * at hand (the extras over the homes), with a leaf's row segment in cache for both. {@code bits}: {@code u}'s
     * extras, or {@code null}.
     */
    private void leafByLeaf(int u, long[] bits, Rows rows, Choices x) {
        int n = x.slotGroup.length;
        int row = u * leaves;
        byte[] table = bits == null ? null : rows.row(u);
        for (int l = 0; l < leaves; l++) {
            int from = leafFirst[l];
            int count = index.leafNodeStart(l + 1) - index.leafNodeStart(l);
            if (count == 0) {
                continue;
            }
            long mask = x.linked & x.reach[l];
            int c = Long.bitCount(mask);
            boolean closest = costs[row + l] == x.reach[leaves + l] + 1;
            boolean rotate = closest && c != 0 && (c != n || x.widened);
            int q = x.quotient(from);
            if (count <= Long.SIZE && (count & 7) == 0 && x.quotient(from + count - 1) == q) {
                // one ⌊d/Π⌋ over the whole leaf (a PGFT's leaf under a level-1 switch): one home top, one choice
                // for its extras, written eight entries at a time
                long chunk = bits == null ? 0 : Bits.range(bits, from, count);
                if (!rotate && chunk == 0) {
                    continue;
                }
                table = table == null ? rows.row(u) : table;
                int port = chunk == 0 ? -1 : closest && c != 0 ? x.chooseAmong(mask, c, q) : x.choose(l, q);
                int home = rotate ? homeTopPort(mask, c, q, l, x) : -1;
                Bits.blend(table, from, count, port < 0 ? 0 : chunk, port, home);
                continue;
            }
            if (rotate) {
                table = table == null ? rows.row(u) : table;
                for (int d = from, end = from + count; d < end; ) {
                    q = x.quotient(d);
                    int run = Math.min(end, (q + 1) * x.div);
                    Bits.fill(table, d, run, (byte) homeTopPort(mask, c, q, l, x));
                    d = run;
                }
            }
            if (bits != null) {
                spreadLeaf(l, from, from + count, bits, table, closest && c != 0 ? mask : 0, x);
            }
        }
    }

    /**
     * The extras of leaf {@code l} among destinations {@code [from, end)} by their choices at {@code x}'s switch;
     * {@code mask}: its closest linked plane positions when it is closest, else 0.
     */
    private void spreadLeaf(int l, int from, int end, long[] bits, byte[] table, long mask, Choices x) {
        int runEnd = 0;
        int port = -1;
        for (int w = from >>> 6, last = (end - 1) >>> 6; w <= last; w++) {
            long word = bits[w];
            if (w == from >>> 6) {
                word &= -1L << from;
            }
            if (w == last) {
                word &= -1L >>> (63 - ((end - 1) & 63));
            }
            for (; word != 0; word &= word - 1) {
                int d = (w << 6) + Long.numberOfTrailingZeros(word);
                if (d >= runEnd) {
                    int q = x.quotient(d);
                    runEnd = (q + 1) * x.div;
                    port = mask != 0 ? x.chooseAmong(mask, Long.bitCount(mask), q) : x.choose(l, q);
                }
                if (port >= 0) {
                    table[d] = (byte) port;
                }
            }
        }
    }

    /** A writable row per switch. */
    interface Rows {
        byte[] row(int s);
    }

    /**
     * The home top {@code T[q mod n]} when it is in {@code mask}, else a stand-in for leaf {@code l}'s run
     * ({@link StandIns#choose}, the formula's {@link Choices#standIn} among equals).
     */
    private int homeTopPort(long mask, int c, int q, int l, Choices x) {
        int n = x.slotGroup.length;
        int home = Bits.mod(q, n);
        if ((mask >>> home & 1) != 0) {
            return x.slotPort(home, q, n);
        }
        return x.slotPort(x.standIns.choose(mask, l, x.standIn(mask, c, q, 0)), q, c);
    }

    /** One level-1 switch's up groups, as a worker sees them. */
    private final class Choices {
        /** Up groups in group order. */
        final int[] up;
        int ups;
        /** Group per plane position ({@code -1}: not linked), and the linked positions' mask. */
        final int[] slotGroup;
        /** Per plane position, the port of its group when that group is a single port, else -1. */
        final int[] slotPorts;
        /** The plane's stand-in loads ({@code null}: more level-2 switches than a mask holds). */
        StandIns standIns;
        long linked;
        long[] reach;
        int u;
        /** The number of {@code u}'s pod: how far its list turns where it is shorter than the plane. */
        int rotation;
        /**
         * True when {@code u}'s pod misses level-1 switches (their positions kept empty, {@link Pods}): Dmodc's
         * divider there counts the leaves' uplinks left, {@code Π} of 15 where 16 were, which maps the home
         * destinations of consecutive leaves to the same level-2 switches; the pass uses the divider the pod's
         * positions give, {@code ⌈Π × positions / switches⌉}, and chooses every destination's home top with it.
         */
        boolean widened;
        /** {@code u}'s divider {@code Π}, and {@code ⌈2^64 / Π⌉} to divide by it ({@link #quotient}). */
        int div;
        long divMagic;

        Choices(int planeSize) {
            this.slotGroup = new int[planeSize];
            this.slotPorts = new int[planeSize];
            this.up = new int[Long.SIZE];
        }

        /** Loads switch {@code u}; false when it has no up group or more than a mask holds. */
        boolean load(int u, long[] planeReach) {
            this.u = u;
            int pod = pods.podOf(u);
            this.rotation = Math.max(pod, 0);
            int positions = pod < 0 ? 0 : pods.upper(pod).length;
            int present = pod < 0 ? 0 : pods.present(pod);
            this.widened = present < positions;
            this.div = widened ? (int) Math.min(Integer.MAX_VALUE,
                    ((long) dividers[u] * positions + present - 1) / present) : dividers[u];
            this.divMagic = Long.divideUnsigned(-1L, div) + 1;
            Arrays.fill(slotGroup, -1);
            ups = 0;
            linked = 0;
            for (int g = index.groupStart(u), to = g + index.groupCount(u); g < to; g++) {
                int t = index.groupNeighbour(g);
                if (ranks[t] <= ranks[u]) {
                    continue;
                }
                if (ups == Long.SIZE) {
                    return false;
                }
                up[ups++] = g;
                if (planeReach != null) {
                    slotGroup[planes.slot(t)] = g;
                    slotPorts[planes.slot(t)] = index.groupSize(g) == 1 ? index.groupPort(g, 0) : -1;
                    linked |= 1L << planes.slot(t);
                }
            }
            this.reach = planeReach;
            return ups > 0;
        }

        /**
         * {@link #choose} where the switch is closest to the leaf by the plane positions in {@code mask} ({@code c}
         * of them, the plane's closest level-2 switches it is linked to).
         */
        int chooseAmong(long mask, int c, int q) {
            int n = slotGroup.length;
            if (c == n) {
                return slotPort(Bits.mod((long) q + n / 2, n), q, n);
            }
            long half = (long) q + n / 2;
            int position = Bits.mod(half, n);
            if ((mask >>> position & 1) != 0) {
                return slotPort(position, q, n);
            }
            return slotPort(standIn(mask, c, half, c / 2), q, c);
        }

        /**
         * For a value {@code v} whose position {@code v mod n} is not in {@code mask}, one of the {@code c} positions
         * in it: the {@code t}-th after {@code offset} plus the pod's number times the missing count, {@code t}
         * numbering the missing positions in order of {@code v} ({@code ⌊v/n⌋ ×} missing {@code +} the position's
         * rank among them). Why: the destinations of consecutive leaves (as a shift sends them through one switch)
         * have consecutive values, so their missing positions go to as many different level-2 switches instead of
         * meeting on one ({@code (v + r) mod c} puts {@code v} and {@code v + c} together); the turn by pod keeps two
         * pods' runs, which meet on the links down, apart too; and the extras' {@code offset} of half the list keeps
         * them off the positions the home destinations' runs take.
         */
        int standIn(long mask, int c, long v, int offset) {
            int n = slotGroup.length;
            long missing = ~mask & (n == Long.SIZE ? -1L : (1L << n) - 1);
            int m = Long.bitCount(missing);
            long round = Bits.div(v, n);
            int position = (int) (v - round * n);
            long t = round * m + Long.bitCount(missing & ((1L << position) - 1));
            return Bits.select(mask, Bits.mod(t + (long) rotation * m + offset, c));
        }

        /** The port of the group at plane position {@code slot} for {@code q} over a list of {@code c} groups. */
        int slotPort(int slot, int q, int c) {
            int port = slotPorts[slot];
            return port >= 0 ? port : port(slotGroup[slot], q, c);
        }

        /** {@code ⌊d/Π⌋} by a multiplication (exact for {@code 0 <= d < 2^32}): a division costs tens of cycles. */
        int quotient(int d) {
            return div == 1 ? d : (int) (Math.multiplyHigh(divMagic, d) + ((divMagic >> 63) & d));
        }

        /**
         * The port for the extras of leaf {@code l} with {@code q = ⌊d/Π⌋} at this switch, or -1 when it has no up
         * candidate towards {@code l}.
         */
        int choose(int l, int q) {
            int own = costs[u * leaves + l];
            if (reach != null && own == reach[leaves + l] + 1 && (linked & reach[l]) != 0) {
                long mask = linked & reach[l];
                return chooseAmong(mask, Long.bitCount(mask), q);
            }
            long mask = 0;
            for (int j = 0; j < ups; j++) {
                if (costs[index.groupNeighbour(up[j]) * leaves + l] < own) {
                    mask |= 1L << j;
                }
            }
            if (mask == 0) {
                return -1;
            }
            int c = Long.bitCount(mask);
            return port(up[Bits.select(mask, Bits.mod((long) q + c / 2, c))], q, c);
        }
    }

    /** Writes the choice of {@code x}'s switch for each extra in {@code bits}, once per leaf and {@code ⌊d/Π⌋}. */
    private void spread(int u, long[] bits, byte[] table, Choices x) {
        int div = x.div;
        int leaf = -1;
        int end = 0;
        int port = -1;
        for (int w = 0; w < bits.length; w++) {
            for (long word = bits[w]; word != 0; word &= word - 1) {
                int d = (w << 6) + Long.numberOfTrailingZeros(word);
                int l = destinationLeaf[d];
                if (l != leaf || d >= end) {
                    int q = d / div;
                    leaf = l;
                    end = (q + 1) * div;
                    port = x.choose(l, q);
                }
                if (port >= 0) {
                    table[d] = (byte) port;
                }
            }
        }
    }

    private int port(int g, int q, int n) {
        return HomePlanes.port(index, g, q, n);
    }
}
