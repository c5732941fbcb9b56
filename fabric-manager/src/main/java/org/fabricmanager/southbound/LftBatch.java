package org.fabricmanager.southbound;

import java.util.List;

/**
 * One table push to one switch: the blocks that differ from what it holds, ended by the commit of
 * {@code version} whose resulting table has {@code length} entries and hash {@code hash}.
 */
public record LftBatch(long version, List<Block> blocks, int length, long hash) {
    public LftBatch {
        blocks = List.copyOf(blocks);
    }

    /** Up to 64 entries starting at destination index {@code base} (a multiple of 64). */
    public record Block(int base, byte[] entries) {
    }

    /** Bytes on the wire: every block frame and the commit frame. */
    public long wireBytes() {
        long bytes = Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES + 24L;
        for (Block b : blocks) {
            bytes += Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES + 13L + b.entries().length;
        }
        return bytes;
    }
}
