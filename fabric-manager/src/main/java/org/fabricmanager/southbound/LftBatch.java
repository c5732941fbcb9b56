package org.fabricmanager.southbound;

import java.util.List;

/**
 * One table push to one switch: the blocks that differ from what it holds, ended by the commit of
 * {@code version} whose resulting table has {@code length} entries and hash {@code hash}. For a fabric
 * routed with virtual-channel rules, {@code rules} (sent first, when not {@code null}) and
 * {@code rulesHash} (announced in the commit, 0 for none) install the switch's rules with the table.
 */
public record LftBatch(long version, List<Block> blocks, int length, long hash, Rules rules, long rulesHash) {
    public LftBatch {
        blocks = List.copyOf(blocks);
    }

    /** A batch without VC rules. */
    public LftBatch(long version, List<Block> blocks, int length, long hash) {
        this(version, blocks, length, hash, null, 0);
    }

    /** A switch's virtual-channel rules as VC_RULES carries them (section 3.11 of docs/protocol.md). */
    public record Rules(int vcCount, byte[] portClasses, byte[] transitions) {
        /** Their hash ({@link TableHash#rules}). */
        public long hash() {
            return TableHash.rules(vcCount, portClasses, transitions);
        }

        /** Bytes of the VC_RULES frame (length field included). */
        public int frameBytes() {
            return Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES + 11 + portClasses.length + transitions.length;
        }
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
        long bytes = COMMIT_FRAME_BYTES + (rulesHash != 0 ? 8 : 0) + (rules != null ? rules.frameBytes() : 0);
        for (Block b : blocks) {
            bytes += blockFrameBytes(b.entries().length);
        }
        return bytes;
    }
}
