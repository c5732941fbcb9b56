package org.fabricmanager.daemon.push;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message.LftBlock;

/**
 * The 64-entry blocks of a switch's new table that differ from what it holds (entries beyond the held
 * length count as unassigned), as OpenSM sends only changed LFT blocks; every block when the held
 * content is unknown.
 */
public final class BlockDiff {
    private BlockDiff() {
    }

    /** Blocks of row {@code row} of {@code target} to send to a switch holding {@code held}. */
    public static List<LftBatch.Block> blocks(HeldTable held, TableSet target, int row) {
        int length = target.length();
        ForwardingTables t = target.tables();
        List<LftBatch.Block> blocks = new ArrayList<>();
        boolean sameSource = held.known() && held.source() != null && held.source().tables() == t && held.row() == row;
        if (sameSource) {
            return blocks;
        }
        boolean canCompareRows = held.known() && held.source() != null && held.length() == length;
        for (int base = 0; base < length; base += LftBlock.SIZE) {
            int n = Math.min(LftBlock.SIZE, length - base);
            boolean differs = !held.known();
            if (!differs) {
                for (int i = 0; i < n; i++) {
                    int want = t.port(row, base + i);
                    int have = canCompareRows ? held.source().tables().port(held.row(), base + i) : held.port(base + i);
                    if (want != have) {
                        differs = true;
                        break;
                    }
                }
            }
            if (differs) {
                blocks.add(new LftBatch.Block(base, target.row(row, base, n)));
            }
        }
        return blocks;
    }
}
