package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.ProtocolException;
import org.fabricmanager.southbound.TableHash;
import org.junit.jupiter.api.Test;

class TableStagerTest {
    private static final int PORTS = 18;

    private static byte[] randomTable(Random r, int length) {
        byte[] t = new byte[length];
        for (int i = 0; i < length; i++) {
            t[i] = (byte) (r.nextInt(10) == 0 ? 255 : 1 + r.nextInt(PORTS));
        }
        return t;
    }

    /** The blocks of {@code target} that differ from {@code held} (255-padded), as the daemon diffs them. */
    private static java.util.List<LftBatch.Block> changedBlocks(AppliedTable held, byte[] target) {
        java.util.List<LftBatch.Block> blocks = new java.util.ArrayList<>();
        for (int base = 0; base < target.length; base += 64) {
            int n = Math.min(64, target.length - base);
            boolean differs = false;
            for (int i = 0; i < n && !differs; i++) {
                differs = held.port(base + i) != (target[base + i] & 0xff);
            }
            if (differs) {
                blocks.add(new LftBatch.Block(base, Arrays.copyOfRange(target, base, base + n)));
            }
        }
        return blocks;
    }

    /** Sends the changed blocks one LFT_BLOCK each, then the commit. */
    private static AppliedTable push(TableStager stager, AppliedTable held, byte[] target, long version) {
        java.util.List<LftBatch.Block> blocks = changedBlocks(held, target);
        for (int i = 0; i < blocks.size(); i++) {
            stager.stage(new LftBlock(i + 1, version, blocks.get(i).base(), blocks.get(i).entries()));
        }
        return stager.commit(held, new LftCommit(99, version, target.length, blocks.size(), TableHash.of(target)));
    }

    /** The same diff as {@link #push}, sent as the daemon sends it to an agent with LFT_BLOCKS runs. */
    private static AppliedTable pushRuns(TableStager stager, AppliedTable held, byte[] target, long version, int runEntries) {
        java.util.List<LftBatch.Block> blocks = changedBlocks(held, target);
        LftBatch batch = new LftBatch(version, blocks, target.length, TableHash.of(target));
        for (int from = 0; from < blocks.size(); ) {
            int to = batch.runEnd(from, runEntries);
            java.io.ByteArrayOutputStream entries = new java.io.ByteArrayOutputStream();
            for (int i = from; i < to; i++) {
                entries.writeBytes(blocks.get(i).entries());
            }
            stager.stage(new Message.LftBlocks(from + 1, version, blocks.get(from).base(), entries.toByteArray()));
            from = to;
        }
        return stager.commit(held, new LftCommit(99, version, target.length, blocks.size(), TableHash.of(target)));
    }

    /** Runs of any length stage exactly what their blocks one by one would: the same tables, commit after commit. */
    @Test
    void runsReproduceTheTablesOfSingleBlocks() {
        for (long seed = 1; seed <= 20; seed++) {
            Random r = new Random(seed);
            TableStager single = new TableStager(PORTS);
            TableStager runs = new TableStager(PORTS);
            AppliedTable heldSingle = AppliedTable.EMPTY;
            AppliedTable heldRuns = AppliedTable.EMPTY;
            for (int version = 1; version <= 40; version++) {
                byte[] target = randomTable(r, 1 + r.nextInt(3_000));
                if (r.nextBoolean() && heldRuns.length() > 0) {
                    target = heldRuns.entries();
                    for (int k = r.nextInt(20); k >= 0; k--) {
                        target[r.nextInt(target.length)] = (byte) (1 + r.nextInt(PORTS));
                    }
                }
                int runEntries = 64 * (1 + r.nextInt(64));
                heldSingle = push(single, heldSingle, target, version);
                heldRuns = pushRuns(runs, heldRuns, target, version, runEntries);
                assertThat(heldRuns.entries()).as("seed %d version %d runs of %d", seed, version, runEntries)
                        .isEqualTo(heldSingle.entries()).isEqualTo(target);
                assertThat(heldRuns.hash()).isEqualTo(heldSingle.hash());
                assertThat(runs.stagedBlocks()).isZero();
            }
        }
    }

    @Test
    void aRunWithABadEntryIsRefusedAndPoisonsTheBatch() {
        TableStager stager = new TableStager(PORTS);
        byte[] entries = new byte[200];
        Arrays.fill(entries, (byte) 1);
        entries[150] = (byte) (PORTS + 1);
        assertThatThrownBy(() -> stager.stage(new Message.LftBlocks(5, 1, 0, entries)))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BAD_BLOCK);
                    assertThat(e.getMessage()).contains("index 150");
                });
        assertThat(stager.stagedBlocks()).isZero();
        stager.stage(new LftBlock(6, 1, 0, new byte[] {1}));
        assertThatThrownBy(() -> stager.commit(AppliedTable.EMPTY, new LftCommit(7, 1, 1, 1, TableHash.of(new byte[] {1}))))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_BLOCK));
    }

    @Test
    void diffPushesReproduceTheTargetTableExactly() {
        long seed = 7;
        Random r = new Random(seed);
        TableStager stager = new TableStager(PORTS);
        AppliedTable held = AppliedTable.EMPTY;
        for (int version = 1; version <= 200; version++) {
            byte[] target = randomTable(r, 1 + r.nextInt(700));
            if (r.nextBoolean() && held.length() > 0) {
                target = held.entries();
                target[r.nextInt(target.length)] = (byte) (1 + r.nextInt(PORTS));
            }
            held = push(stager, held, target, version);
            assertThat(held.entries()).as("seed %d version %d", seed, version).isEqualTo(target);
            assertThat(held.version()).isEqualTo(version);
            assertThat(stager.stagedBlocks()).isZero();
        }
    }

    @Test
    void tablesShareUnchangedChunksAndEarlierTablesNeverChange() {
        long seed = 8;
        Random r = new Random(seed);
        TableStager stager = new TableStager(PORTS);
        java.util.List<AppliedTable> tables = new java.util.ArrayList<>();
        java.util.List<byte[]> expected = new java.util.ArrayList<>();
        AppliedTable held = AppliedTable.EMPTY;
        for (int version = 1; version <= 300; version++) {
            int length = held.length() > 0 && r.nextInt(4) > 0 ? held.length() : 1 + r.nextInt(1000);
            byte[] target = Arrays.copyOf(held.entries(), length);
            Arrays.fill(target, Math.min(held.length(), length), length, (byte) 255);
            // a few short blocks that overwrite part of a block (the rest of it stays as held)
            int blocks = r.nextInt(4);
            java.util.Map<Integer, byte[]> staged = new java.util.TreeMap<>();
            for (int i = 0; i < blocks; i++) {
                int base = 64 * r.nextInt((length + 63) / 64);
                byte[] entries = randomTable(r, 1 + r.nextInt(Math.min(64, length - base)));
                staged.put(base, entries);
            }
            int txid = 1;
            for (var e : staged.entrySet()) {
                System.arraycopy(e.getValue(), 0, target, e.getKey(), e.getValue().length);
                stager.stage(new LftBlock(txid++, version, e.getKey(), e.getValue()));
            }
            AppliedTable next = stager.commit(held, new LftCommit(99, version, length, staged.size(), TableHash.of(target)));
            assertThat(next.entries()).as("seed %d version %d", seed, version).isEqualTo(target);
            assertThat(next.hash()).isEqualTo(TableHash.of(target));
            if (length == held.length()) {
                // only the chunks of the staged blocks are new: an agent does not copy its whole table per commit
                assertThat(next.chunksSharedWith(held)).as("seed %d version %d", seed, version)
                        .isEqualTo((length + 63) / 64 - staged.size());
            }
            tables.add(next);
            expected.add(target);
            held = next;
        }
        for (int i = 0; i < tables.size(); i++) {
            assertThat(tables.get(i).entries()).as("table v%d after all later commits", i + 1).isEqualTo(expected.get(i));
            assertThat(tables.get(i).sameEntries(expected.get(i))).isTrue();
        }
    }

    @Test
    void emptyCommitRenamesTheHeldTable() {
        TableStager stager = new TableStager(PORTS);
        byte[] t = {1, 2, 3};
        AppliedTable held = push(stager, AppliedTable.EMPTY, t, 1);
        AppliedTable renamed = stager.commit(held, new LftCommit(5, 2, 3, 0, held.hash()));
        assertThat(renamed.version()).isEqualTo(2);
        assertThat(renamed.entries()).isEqualTo(t);
    }

    @Test
    void retriedBatchIsIdempotent() {
        TableStager stager = new TableStager(PORTS);
        byte[] t = new byte[100];
        Arrays.fill(t, (byte) 3);
        stager.stage(new LftBlock(1, 4, 0, Arrays.copyOfRange(t, 0, 64)));
        stager.stage(new LftBlock(2, 4, 64, Arrays.copyOfRange(t, 64, 100)));
        // the retry re-sends the same blocks before the commit
        stager.stage(new LftBlock(3, 4, 0, Arrays.copyOfRange(t, 0, 64)));
        stager.stage(new LftBlock(4, 4, 64, Arrays.copyOfRange(t, 64, 100)));
        AppliedTable held = stager.commit(AppliedTable.EMPTY, new LftCommit(5, 4, 100, 2, TableHash.of(t)));
        assertThat(held.entries()).isEqualTo(t);
    }

    @Test
    void incompleteBatchIsRefusedAndLeavesNothingStaged() {
        TableStager stager = new TableStager(PORTS);
        stager.stage(new LftBlock(1, 2, 0, new byte[] {1, 1}));
        assertThatThrownBy(() -> stager.commit(AppliedTable.EMPTY, new LftCommit(2, 2, 130, 3, 0)))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BATCH_INCOMPLETE));
        assertThat(stager.stagedBlocks()).isZero();
    }

    @Test
    void blocksOfAnOlderVersionAreDiscardedByANewOne() {
        TableStager stager = new TableStager(PORTS);
        stager.stage(new LftBlock(1, 2, 0, new byte[] {1}));
        stager.stage(new LftBlock(2, 3, 64, new byte[] {2}));
        assertThat(stager.stagedBlocks()).isEqualTo(1);
    }

    @Test
    void entryOutsideThePortsPoisonsTheBatch() {
        TableStager stager = new TableStager(PORTS);
        assertThatThrownBy(() -> stager.stage(new LftBlock(1, 2, 0, new byte[] {1, 19})))
                .isInstanceOfSatisfying(ProtocolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BAD_BLOCK);
                    assertThat(e.code().fatal()).isFalse();
                    assertThat(e.getMessage()).contains("index 1 is port 19");
                });
        stager.stage(new LftBlock(2, 2, 64, new byte[] {1}));
        assertThatThrownBy(() -> stager.commit(AppliedTable.EMPTY, new LftCommit(3, 2, 65, 1, 0)))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_BLOCK));
    }

    @Test
    void wrongHashIsRefusedAndTheHeldTableStays() {
        TableStager stager = new TableStager(PORTS);
        AppliedTable held = push(stager, AppliedTable.EMPTY, new byte[] {4, 4}, 1);
        stager.stage(new LftBlock(1, 2, 0, new byte[] {5, 5}));
        assertThatThrownBy(() -> stager.commit(held, new LftCommit(2, 2, 2, 1, 12345)))
                .isInstanceOfSatisfying(ProtocolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.HASH_MISMATCH));
        assertThat(held.entries()).containsExactly(4, 4);
    }

    @Test
    void blockBeyondTheNewLengthIsRefused() {
        TableStager stager = new TableStager(PORTS);
        stager.stage(new LftBlock(1, 2, 64, new byte[] {5, 5}));
        assertThatThrownBy(() -> stager.commit(AppliedTable.EMPTY, new LftCommit(2, 2, 65, 1, 0)))
                .hasMessageContaining("beyond the table length 65");
    }

    private static org.fabricmanager.southbound.Message.VcRuleSet rules(long version, int vc) {
        byte[] classes = new byte[PORTS];
        Arrays.fill(classes, 0, 4, (byte) 1);
        Arrays.fill(classes, 4, 11, (byte) 3);
        Arrays.fill(classes, 11, PORTS, (byte) 4);
        return new org.fabricmanager.southbound.Message.VcRuleSet(5, version, 2, classes, new byte[] {4, 3, (byte) vc});
    }

    @Test
    void vcRulesAreAppliedWithTheirCommitOnlyWhenTheRulesHashMatches() {
        TableStager stager = new TableStager(PORTS);
        byte[] target = new byte[100];
        Arrays.fill(target, (byte) 3);
        stager.stage(rules(1, 1));
        stager.stage(new LftBlock(1, 1, 0, Arrays.copyOfRange(target, 0, 64)));
        stager.stage(new LftBlock(2, 1, 64, Arrays.copyOfRange(target, 64, 100)));
        AppliedTable v1 = stager.commit(AppliedTable.EMPTY, new LftCommit(3, 1, 100, 2, TableHash.of(target),
                rules(1, 1).rulesHash()));
        assertThat(v1.rules()).contains(rules(1, 1));
        assertThat(v1.rulesHash()).isEqualTo(rules(1, 1).rulesHash()).isNotZero();
        // column (4) -> row (3) moves to channel 1; others keep theirs; node ports start on 0
        assertThat(v1.nextVc(12, 0, 5)).isEqualTo(1);
        assertThat(v1.nextVc(5, 0, 12)).isZero();
        assertThat(v1.nextVc(0, 0, 5)).isZero();

        // a rename (no blocks) keeps the held rules when the hash says so
        AppliedTable v2 = stager.commit(v1, new LftCommit(4, 2, 100, 0, TableHash.of(target), v1.rulesHash()));
        assertThat(v2.rules()).contains(rules(1, 1));
        // rules staged for this version but announced with another hash: refused, table unchanged
        stager.stage(rules(3, 0));
        assertThatThrownBy(() -> stager.commit(v2, new LftCommit(6, 3, 100, 0, TableHash.of(target),
                rules(3, 1).rulesHash()))).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.HASH_MISMATCH)).hasMessageContaining("VC rules of v3");
        // a commit without the rules hash leaves the rules alone
        AppliedTable v4 = stager.commit(v2, new LftCommit(7, 4, 100, 0, TableHash.of(target)));
        assertThat(v4.rules()).contains(rules(1, 1));
    }

    @Test
    void vcRulesForAnotherPortCountPoisonTheBatch() {
        TableStager stager = new TableStager(PORTS);
        org.fabricmanager.southbound.Message.VcRuleSet wrong =
                new org.fabricmanager.southbound.Message.VcRuleSet(5, 1, 2, new byte[4], new byte[0]);
        assertThatThrownBy(() -> stager.stage(wrong)).isInstanceOfSatisfying(ProtocolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_BLOCK)).hasMessageContaining("VC rules for 4 ports");
        assertThatThrownBy(() -> stager.commit(AppliedTable.EMPTY, new LftCommit(6, 1, 0, 0, TableHash.EMPTY,
                wrong.rulesHash()))).hasMessageContaining("refused VC rules");
    }
}
