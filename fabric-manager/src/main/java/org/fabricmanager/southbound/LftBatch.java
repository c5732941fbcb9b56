package org.fabricmanager.southbound;

import java.util.List;
import org.fabricmanager.southbound.Message.LftBlock;

/**
 * One table push to one switch: the blocks that differ from what it holds, ended by the commit of
 * {@code version} whose resulting table has {@code length} entries and hash {@code hash}. For a fabric
 * routed with virtual-channel rules, {@code rules} (sent first, when not {@code null}) and
 * {@code rulesHash} (announced in the commit, 0 for none) install the switch's rules with the table.
 * {@code stagedAhead} blocks of {@code version} were sent earlier, without a commit
 * ({@link SwitchSession#stage}); the commit counts them with {@code blocks}.
 */
public record LftBatch(long version, List<Block> blocks, int length, long hash, Rules rules, long rulesHash,
                       int stagedAhead) {
    public LftBatch {
        blocks = List.copyOf(blocks);
        if (stagedAhead < 0) {
            throw new IllegalArgumentException("stagedAhead " + stagedAhead);
        }
    }

    /** A batch whose blocks all go with it. */
    public LftBatch(long version, List<Block> blocks, int length, long hash, Rules rules, long rulesHash) {
        this(version, blocks, length, hash, rules, rulesHash, 0);
    }

    /** A batch without VC rules. */
    public LftBatch(long version, List<Block> blocks, int length, long hash) {
        this(version, blocks, length, hash, null, 0);
    }

    /** The blocks the commit announces: those sent ahead and those sent with it (distinct bases). */
    public int commitBlocks() {
        return stagedAhead + blocks.size();
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

    /** Bytes of an LFT_BLOCKS frame of {@code entries} entries (length field included). */
    public static int runFrameBytes(int entries) {
        return Protocol.LENGTH_FIELD_BYTES + Protocol.HEADER_BYTES + 14 + entries;
    }

    /**
     * The end (exclusive) of the run of blocks that starts at {@code start}: the blocks that follow one another
     * without a gap, every one but the last full, at most {@code maxEntries} entries in all (at least one block).
     */
    public int runEnd(int start, int maxEntries) {
        int entries = blocks.get(start).entries().length;
        int end = start + 1;
        while (end < blocks.size()) {
            Block previous = blocks.get(end - 1);
            Block next = blocks.get(end);
            if (previous.entries().length != LftBlock.SIZE || next.base() != previous.base() + LftBlock.SIZE
                    || entries + next.entries().length > maxEntries) {
                break;
            }
            entries += next.entries().length;
            end++;
        }
        return end;
    }

    /** Bytes on the wire of the blocks alone (runs of at most {@code runEntries} entries), as {@link SwitchSession#stage} sends them. */
    public long blockBytes(int runEntries) {
        return wireBytes(runEntries) - COMMIT_FRAME_BYTES - (rulesHash != 0 ? 8 : 0) - (rules != null ? rules.frameBytes() : 0);
    }

    /** Bytes on the wire as LFT_BLOCK frames: every block frame and the commit frame. */
    public long wireBytes() {
        return wireBytes(LftBlock.SIZE);
    }

    /**
     * Bytes on the wire when blocks go in runs of at most {@code runEntries} entries: LFT_BLOCKS frames when
     * {@code runEntries} is above 64 (an agent with {@link Protocol#FEATURE_LFT_RUNS}), LFT_BLOCK frames otherwise.
     */
    public long wireBytes(int runEntries) {
        long bytes = COMMIT_FRAME_BYTES + (rulesHash != 0 ? 8 : 0) + (rules != null ? rules.frameBytes() : 0);
        if (runEntries <= LftBlock.SIZE) {
            for (Block b : blocks) {
                bytes += blockFrameBytes(b.entries().length);
            }
            return bytes;
        }
        for (int start = 0; start < blocks.size(); ) {
            int end = runEnd(start, runEntries);
            int entries = 0;
            for (int i = start; i < end; i++) {
                entries += blocks.get(i).entries().length;
            }
            bytes += runFrameBytes(entries);
            start = end;
        }
        return bytes;
    }
}
