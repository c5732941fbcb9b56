package org.fabricmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.fabricmanager.southbound.ErrorCode;
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

    /** Sends the blocks of {@code target} that differ from {@code held} (255-padded), as the daemon does. */
    private static AppliedTable push(TableStager stager, AppliedTable held, byte[] target, long version) {
        int blocks = 0;
        for (int base = 0; base < target.length; base += 64) {
            int n = Math.min(64, target.length - base);
            boolean differs = false;
            for (int i = 0; i < n && !differs; i++) {
                differs = held.port(base + i) != (target[base + i] & 0xff);
            }
            if (differs) {
                stager.stage(new LftBlock(blocks + 1, version, base, Arrays.copyOfRange(target, base, base + n)));
                blocks++;
            }
        }
        return stager.commit(held, new LftCommit(99, version, target.length, blocks, TableHash.of(target)));
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
