package org.fabricmanager.daemon.push;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.TableHash;
import org.junit.jupiter.api.Test;

class BlockDiffTest {
    private static TableSet tables(long version, long[] guids, int length, Random r, TableSet similarTo, double change) {
        ForwardingTables.Builder b = ForwardingTables.builder(guids, length);
        for (int s = 0; s < guids.length; s++) {
            for (int d = 0; d < length; d++) {
                int base = similarTo != null && d < similarTo.length() ? similarTo.tables().port(s, d) : 1 + r.nextInt(36);
                b.set(s, d, r.nextDouble() < change ? (r.nextInt(8) == 0 ? 255 : 1 + r.nextInt(36)) : base);
            }
        }
        return new TableSet(version, b.build());
    }

    /** What the agent ends up with: held, padded with 255 or truncated, overwritten by the blocks. */
    private static byte[] apply(byte[] held, List<LftBatch.Block> blocks, int length) {
        byte[] next = Arrays.copyOf(held, length);
        if (length > held.length) {
            Arrays.fill(next, held.length, length, (byte) 255);
        }
        for (LftBatch.Block b : blocks) {
            System.arraycopy(b.entries(), 0, next, b.base(), b.entries().length);
        }
        return next;
    }

    @Test
    void sentBlocksTurnTheHeldTableIntoTheTargetAndUnsentOnesAreEqual() {
        long seed = 99;
        Random r = new Random(seed);
        long[] guids = {1, 2, 3, 4};
        for (int round = 0; round < 200; round++) {
            int heldLength = 1 + r.nextInt(400);
            int targetLength = r.nextBoolean() ? heldLength : 1 + r.nextInt(400);
            TableSet held = tables(1, guids, heldLength, r, null, 0);
            TableSet target = tables(2, guids, targetLength, r, held, r.nextDouble() * 0.05);
            int row = r.nextInt(guids.length);
            byte[] heldRow = held.row(row, 0, heldLength);
            List<LftBatch.Block> blocks = BlockDiff.blocks(HeldTable.of(held, row), target, row);
            byte[] want = target.row(row, 0, targetLength);
            assertThat(apply(heldRow, blocks, targetLength)).as("seed %d round %d", seed, round).isEqualTo(want);
            int changedBlocks = 0;
            for (int base = 0; base < targetLength; base += 64) {
                byte[] after = Arrays.copyOfRange(apply(heldRow, List.of(), targetLength), base, Math.min(base + 64, targetLength));
                if (!Arrays.equals(after, Arrays.copyOfRange(want, base, Math.min(base + 64, targetLength)))) {
                    changedBlocks++;
                }
            }
            assertThat(blocks).as("only the blocks that differ, seed %d round %d", seed, round).hasSize(changedBlocks);
            for (LftBatch.Block b : blocks) {
                assertThat(b.base() % 64).isZero();
                assertThat(b.entries().length).isBetween(1, 64);
            }
        }
    }

    @Test
    void unknownContentSendsEveryBlockAndEmptyTablesSkipUnroutedBlocks() {
        Random r = new Random(3);
        long[] guids = {7};
        TableSet target = tables(5, guids, 200, r, null, 0);
        assertThat(BlockDiff.blocks(HeldTable.unknown(4, 200, 1234), target, 0)).hasSize(4);
        ForwardingTables.Builder b = ForwardingTables.builder(guids, 200);
        b.set(0, 130, 3);
        TableSet sparse = new TableSet(6, b.build());
        List<LftBatch.Block> blocks = BlockDiff.blocks(HeldTable.empty(0, TableHash.EMPTY), sparse, 0);
        assertThat(blocks).extracting(LftBatch.Block::base).containsExactly(128);
        assertThat(BlockDiff.blocks(HeldTable.of(target, 0), target, 0)).isEmpty();
    }
}
