package org.fabricmanager.daemon.push;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.TableHash;
import org.junit.jupiter.api.Test;

class TableSetTest {
    private static byte[] randomRow(Random r, int length) {
        byte[] row = new byte[length];
        for (int d = 0; d < length; d++) {
            row[d] = (byte) (r.nextInt(8) == 0 ? 255 : 1 + r.nextInt(40));
        }
        return row;
    }

    /** The blocks where the rows differ, entry by entry. */
    private static int[] differingBlocks(byte[] a, byte[] b) {
        TreeSet<Integer> blocks = new TreeSet<>();
        for (int d = 0; d < a.length; d++) {
            if (a[d] != b[d]) {
                blocks.add(d / 64);
            }
        }
        return blocks.stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void derivedSetsKnowEveryChangedBlockAndEveryHash() {
        for (long seed = 1; seed <= 40; seed++) {
            Random r = new Random(seed);
            int length = 1 + r.nextInt(r.nextBoolean() ? 300 : 3000);
            int switches = 1 + r.nextInt(30);
            long[] guids = new long[switches];
            byte[][] rows = new byte[switches][];
            for (int s = 0; s < switches; s++) {
                guids[s] = 100 + 3L * s;
                rows[s] = randomRow(r, length);
            }
            TableSet previous = TableSet.derive(1, ForwardingTables.ofRows(guids, rows, length), null);
            for (long version = 2; version <= 6; version++) {
                ForwardingTables before = previous.tables();
                // some switches leave and some arrive; the others keep their row, an equal copy of it, or a row
                // changed at a few entries (some at a block's first or last entry, some several in one block)
                List<Long> nextGuids = new ArrayList<>();
                List<byte[]> nextRows = new ArrayList<>();
                for (int s = 0; s < before.switchCount(); s++) {
                    if (r.nextInt(10) == 0) {
                        continue;
                    }
                    byte[] row = before.copyRow(s);
                    int kind = r.nextInt(3);
                    for (int k = kind == 2 ? 1 + r.nextInt(6) : 0; k > 0; k--) {
                        int d = switch (r.nextInt(3)) {
                            case 0 -> (r.nextInt(length) / 64) * 64;
                            case 1 -> Math.min(length - 1, (r.nextInt(length) / 64) * 64 + 63);
                            default -> r.nextInt(length);
                        };
                        row[d] = (byte) (row[d] == 7 ? 8 : 7);
                    }
                    nextGuids.add(before.switchGuid(s));
                    nextRows.add(kind == 0 ? null : row); // null: the very same array as before
                }
                long newGuid = before.switchGuid(before.switchCount() - 1) + 1 + r.nextInt(5);
                if (r.nextBoolean()) {
                    nextGuids.add(newGuid);
                    nextRows.add(randomRow(r, length));
                }
                long[] g = nextGuids.stream().mapToLong(Long::longValue).toArray();
                byte[][] own = new byte[g.length][];
                int[] reuse = new int[g.length];
                for (int s = 0; s < g.length; s++) {
                    int p = previous.row(g[s]);
                    reuse[s] = nextRows.get(s) == null ? p : -1;
                    own[s] = nextRows.get(s);
                }
                ForwardingTables tables = ForwardingTables.ofRows(g, own, length, before, reuse);
                TableSet set = TableSet.derive(version, tables, previous);

                int changedRows = 0;
                for (int s = 0; s < g.length; s++) {
                    byte[] row = tables.copyRow(s);
                    assertThat(set.hash(s)).as("seed %d v%d row %d", seed, version, s).isEqualTo(TableHash.of(row));
                    int p = previous.row(g[s]);
                    if (p < 0) {
                        changedRows++;
                        continue;
                    }
                    int[] expected = differingBlocks(before.copyRow(p), row);
                    assertThat(set.changedBlocks(s)).as("seed %d v%d row %d", seed, version, s).containsExactly(expected);
                    changedRows += expected.length > 0 ? 1 : 0;
                }
                assertThat(set.changedRows()).as("seed %d v%d", seed, version).isEqualTo(changedRows);
                assertThat(set.previousVersion()).isEqualTo(version - 1);
                previous = set;
            }
        }
    }

    @Test
    void aRowHashedWhereItIsHashesAsItsCopy() {
        Random r = new Random(3);
        for (int n = 0; n < 200; n++) {
            int length = 1 + r.nextInt(500);
            byte[] row = randomRow(r, length);
            ForwardingTables t = ForwardingTables.ofRows(new long[] {1}, new byte[][] {row.clone()}, length);
            assertThat(new TableSet(1, t).hash(0)).as("length %d", length).isEqualTo(TableHash.of(row));
        }
    }
}
