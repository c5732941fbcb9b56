package org.fabricmanager.routing.dmodc.reuse;

import java.util.Arrays;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.dmodc.preprocess.ByteLanes;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;

/**
 * Cost rows cut into chunks of {@link #CHUNK} consecutive leaves, each chunk of each row given a class id
 * such that two rows' chunks at the same place have the same id exactly when their costs there are equal.
 * Comparing two rows is then one int per chunk instead of one byte per leaf, which is what makes
 * {@link RowRelatives} affordable: it compares the rows of a switch's 32 or 64 neighbours with another's.
 *
 * <p>A chunk whose leaves all have cost {@code v} has id {@code v} (at most {@link CostTable#INFINITE});
 * a chunk at one cost but for one or two leaves a negative id packing its contents; any other chunk an
 * id above {@link CostTable#INFINITE}, from a hash table of that chunk's contents compared byte for byte.
 * Rows with a {@link RowProfiles profile} are read only where a segment touches a chunk: elsewhere the
 * chunk is all at the mode. Only the rows asked for are classified, chunks in parallel (each chunk has
 * its own table, so workers share nothing).
 */
public final class ChunkClasses {
    /** Leaves per chunk: a pod of a 32-ary fat tree, and four eight-byte words of a cost row. */
    public static final int CHUNK = 32;
    private static final int WORDS = CHUNK / 8;
    private static final int FIRST_MIXED = CostTable.INFINITE + 1;

    private final CostTable costs;
    private final RowProfiles profiles;
    private final int leaves;
    private final int chunks;
    private final int[] ids;
    private final boolean[] classified;
    private final Table[] tables;

    private ChunkClasses(CostTable costs, RowProfiles profiles, int switches) {
        this.costs = costs;
        this.profiles = profiles;
        this.leaves = costs.leafCount();
        this.chunks = (leaves + CHUNK - 1) / CHUNK;
        this.ids = new int[switches * chunks];
        this.classified = new boolean[switches];
        this.tables = new Table[chunks];
    }

    /** The classes of the rows with {@code wanted[s]} set (one per switch), the chunks shared out over {@code pool}. */
    static ChunkClasses of(CostTable costs, RowProfiles profiles, boolean[] wanted, RoutingPool pool) {
        ChunkClasses classes = new ChunkClasses(costs, profiles, wanted.length);
        int count = 0;
        for (boolean w : wanted) {
            count += w ? 1 : 0;
        }
        int[] rows = new int[count];
        for (int s = 0, n = 0; s < wanted.length; s++) {
            if (wanted[s]) {
                rows[n++] = s;
                classes.classified[s] = true;
            }
        }
        // Each worker a contiguous share of every row's chunks: tasks of a few chunks had the two workers
        // writing the same cache lines of the ids, which made the classification slower on two threads.
        int grain = (classes.chunks + pool.threads() - 1) / pool.threads();
        pool.forRange(classes.chunks, grain, (w, from, to) -> {
            for (int c = from; c < to; c++) {
                classes.tables[c] = new Table();
            }
            long[] words = new long[WORDS];
            for (int s : rows) {
                classes.classify(s, from, to, words);
            }
        });
        return classes;
    }

    /** Number of chunks of a row. */
    int chunks() {
        return chunks;
    }

    /** Leaves {@code [chunk * CHUNK, min(leaves, (chunk + 1) * CHUNK))} form chunk {@code chunk}. */
    int chunkEnd(int chunk) {
        return Math.min(leaves, (chunk + 1) * CHUNK);
    }

    /** The class id of row {@code s} (which was asked for) at chunk {@code chunk}. */
    int id(int s, int chunk) {
        check(s);
        return ids[s * chunks + chunk];
    }

    /**
     * ORs into {@code differ} (a bit per chunk) the chunks where rows {@code a} and {@code b} differ, and
     * returns the number of chunks set in {@code differ} afterwards.
     */
    int addDifferences(int a, int b, long[] differ) {
        check(a);
        check(b);
        int at = a * chunks;
        int bt = b * chunks;
        int c = 0;
        while (c < chunks) {
            int m = Arrays.mismatch(ids, at + c, at + chunks, ids, bt + c, bt + chunks);
            if (m < 0) {
                break;
            }
            c += m;
            differ[c >>> 6] |= 1L << c;
            c++;
        }
        int n = 0;
        for (long word : differ) {
            n += Long.bitCount(word);
        }
        return n;
    }

    private void check(int s) {
        if (!classified[s]) {
            throw new IllegalArgumentException("row of switch " + s + " was not classified");
        }
    }

    /** Chunks {@code [from, to)} of row {@code s}. */
    private void classify(int s, int from, int to, long[] words) {
        int at = s * chunks;
        int[] segments = profiles.segments(s);
        if (segments == null) {
            for (int c = from; c < to; c++) {
                ids[at + c] = read(s, c, words);
            }
            return;
        }
        Arrays.fill(ids, at + from, at + to, profiles.mode(s));
        // Chunks a segment touches are read; segments are in leaf order, so a chunk read for one
        // segment is not read again for the next.
        int last = from - 1;
        for (int g = 3 * firstEndingAfter(segments, from * CHUNK); g < segments.length; g += 3) {
            int first = Math.max(last + 1, segments[g] / CHUNK);
            int end = Math.min(to - 1, (segments[g + 1] - 1) / CHUNK);
            for (int c = first; c <= end; c++) {
                ids[at + c] = read(s, c, words);
            }
            last = Math.max(last, end);
            if (last >= to - 1) {
                break;
            }
        }
    }

    /** The first segment (triples) that ends after leaf {@code leaf}: segments are sorted and disjoint. */
    private static int firstEndingAfter(int[] segments, int leaf) {
        int lo = 0;
        int hi = segments.length / 3;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (segments[3 * mid + 1] <= leaf) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The id of row {@code s} at chunk {@code c}, from its costs. */
    private int read(int s, int c, long[] words) {
        byte[] cost = costs.array();
        int from = s * leaves + c * CHUNK;
        int n = chunkEnd(c) - c * CHUNK;
        boolean uniform = true;
        if (n == CHUNK) {
            long same = ByteLanes.ONES * (cost[from] & 0xffL);
            for (int i = 0; i < WORDS; i++) {
                words[i] = ByteLanes.get(cost, from + 8 * i);
                uniform &= words[i] == same;
            }
        } else {
            Arrays.fill(words, 0L);
            for (int i = 0; i < n; i++) {
                words[i >>> 3] |= (cost[from + i] & 0xffL) << (8 * (i & 7));
                uniform &= cost[from + i] == cost[from];
            }
        }
        return uniform ? cost[from] : mixedId(c, words);
    }

    /**
     * The id of a chunk that is not of one cost. A chunk at one cost but for one or two leaves (its
     * majority cost is then one of its first three) is its own id, packed: that cost and each other
     * leaf's place and cost, under the sign bit; any other comes from the chunk's table. Both are
     * functions of the contents alone, so equal contents get equal ids and the packed ids differ
     * from the table's. In a level-2 row almost every chunk is of this kind (its plane's leaves that
     * lost their uplink of the plane, one here and there), and the table's hashing and probing was
     * most of the classification.
     */
    private int mixedId(int c, long[] words) {
        for (int k = 0; k < 3; k++) {
            long base = words[0] >>> (8 * k) & 0xffL;
            long same = ByteLanes.ONES * base;
            int others = 0;
            for (int i = 0; i < WORDS; i++) {
                others += Long.bitCount(nonZeroBytes(words[i] ^ same));
            }
            if (others > 2) {
                continue;
            }
            int packed = 0;
            for (int i = 0; i < WORDS; i++) {
                for (long bits = nonZeroBytes(words[i] ^ same); bits != 0; bits &= bits - 1) {
                    int b = Long.numberOfTrailingZeros(bits) >>> 3;
                    packed = packed << 12 | (8 * i + b) << 7 | (int) (words[i] >>> (8 * b) & 0x7f);
                }
            }
            if (others == 1) {
                packed |= packed << 12; // one other leaf: its place and cost twice
            }
            return Integer.MIN_VALUE | (int) base << 24 | packed;
        }
        return FIRST_MIXED + tables[c].id(words);
    }

    /** The high bit of each non-zero byte of {@code x}. */
    private static long nonZeroBytes(long x) {
        return ((x & 0x7F7F7F7F7F7F7F7FL) + 0x7F7F7F7F7F7F7F7FL | x) & ByteLanes.HIGH;
    }

    /** The distinct mixed contents of one chunk, by open addressing on their words. */
    private static final class Table {
        private int count;
        private long[] contents = new long[64 * WORDS];
        private int[] slots = new int[128]; // index + 1, 0 where empty

        /** The index of {@code words}, a new one when they were not seen. */
        int id(long[] words) {
            int mask = slots.length - 1;
            int slot = slot(words, 0) & mask;
            while (slots[slot] != 0) {
                int k = slots[slot] - 1;
                if (Arrays.equals(contents, k * WORDS, k * WORDS + WORDS, words, 0, WORDS)) {
                    return k;
                }
                slot = (slot + 1) & mask;
            }
            if (count * WORDS == contents.length) {
                contents = Arrays.copyOf(contents, 2 * contents.length);
            }
            System.arraycopy(words, 0, contents, count * WORDS, WORDS);
            slots[slot] = ++count;
            if (2 * count > slots.length) {
                rehash();
            }
            return count - 1;
        }

        private static int slot(long[] words, int at) {
            long h = 0;
            for (int i = 0; i < WORDS; i++) {
                h = (h ^ words[at + i]) * 0x9E3779B97F4A7C15L;
            }
            return (int) (h >>> 40);
        }

        private void rehash() {
            slots = new int[2 * slots.length];
            int mask = slots.length - 1;
            for (int k = 0; k < count; k++) {
                int slot = slot(contents, k * WORDS) & mask;
                while (slots[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                slots[slot] = k + 1;
            }
        }
    }
}
