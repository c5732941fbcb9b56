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

    /** Bytes of an LFT_COMMIT frame (length field included). */
    public static final int COMMIT_FRAME_BYTES = Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES + 24;

    /** Bytes of an LFT_BLOCK frame of {@code entries} entries (length field included). */
    public static int blockFrameBytes(int entries) {
        return Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES + 13 + entries;
    }

    /** Bytes on the wire: every block frame and the commit frame. */
    public long wireBytes() {
        long bytes = COMMIT_FRAME_BYTES;
        for (Block b : blocks) {
            bytes += blockFrameBytes(b.entries().length);
        }
        return bytes;
    }
}
