package org.fabricmanager.daemon.push;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message.LftBlock;

/**
 * The 64-entry blocks of a switch's new table that differ from what it holds (entries beyond the held
 * length count as unassigned), as OpenSM sends only changed LFT blocks; every block when the held
 * content is unknown. When the switch holds the version the new tables were {@link TableSet#derive
 * derived} from, the blocks that changed are already known and nothing is compared; otherwise blocks are
 * compared as ranges, without copying.
 */
public final class BlockDiff {
    private BlockDiff() {
    }

    /** Blocks of row {@code row} of {@code target} to send to a switch holding {@code held}. */
    public static List<LftBatch.Block> blocks(HeldTable held, TableSet target, int row) {
        int length = target.length();
        ForwardingTables t = target.tables();
        List<LftBatch.Block> blocks = new ArrayList<>((length + LftBlock.SIZE - 1) / LftBlock.SIZE);
        if (held.known() && held.source() != null && held.source().tables() == t && held.row() == row) {
            return blocks;
        }
        TableSet source = held.known() ? held.source() : null;
        if (source != null && held.length() == length) {
            int sourceRow = held.row();
            int[] changed = target.changedBlocks(row);
            if (changed != null && source.version() == target.previousVersion()
                    && source.guid(sourceRow) == target.guid(row)) {
                for (int b : changed) {
                    blocks.add(block(target, row, b * LftBlock.SIZE, length));
                }
                return blocks;
            }
            for (int base = 0; base < length; base += LftBlock.SIZE) {
                int end = Math.min(length, base + LftBlock.SIZE);
                if (!t.rangeEquals(row, source.tables(), sourceRow, base, end)) {
                    blocks.add(block(target, row, base, length));
                }
            }
            return blocks;
        }
        for (int base = 0; base < length; base += LftBlock.SIZE) {
            int end = Math.min(length, base + LftBlock.SIZE);
            boolean differs = !held.known() || !sameAsHeld(held, t, row, base, end);
            if (differs) {
                blocks.add(block(target, row, base, length));
            }
        }
        return blocks;
    }

    private static LftBatch.Block block(TableSet target, int row, int base, int length) {
        return new LftBatch.Block(base, target.row(row, base, Math.min(LftBlock.SIZE, length - base)));
    }

    /** Known content without a source row (the empty table, or another length): entry by entry. */
    private static boolean sameAsHeld(HeldTable held, ForwardingTables t, int row, int from, int to) {
        if (held.source() == null) {
            return t.rangeUnrouted(row, from, to);
        }
        for (int d = from; d < to; d++) {
            if (t.port(row, d) != held.port(d)) {
                return false;
            }
        }
        return true;
    }
}
