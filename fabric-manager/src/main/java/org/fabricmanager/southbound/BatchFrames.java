package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.List;
import java.util.function.IntSupplier;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;

/**
 * Writes an LFT batch onto a session's channel as frames: its VC rules, its blocks (in LFT_BLOCKS runs when the
 * agent takes them) and its commit, encoded into a few large buffers and flushed once. At a full push that is a
 * thousand 85-byte frames per switch, which as separate messages cost more in the pipeline than on the wire.
 * Confined to the session's event loop; the txids come from the session's counter.
 */
final class BatchFrames {
    /** Frames of a batch are written in buffers of about this size (a 65,536-entry table is 87 KB). */
    private static final int BATCH_BUFFER_BYTES = 128 * 1024;

    /**
     * A batch encoded: the txids it used, from its first frame's to its commit's, and its last buffer, to flush once
     * the session listens for the answer.
     */
    record Encoded(int firstTxid, int commitTxid, ByteBuf last) {
    }

    private final IntSupplier nextTxid;

    BatchFrames(IntSupplier nextTxid) {
        this.nextTxid = nextTxid;
    }

    /**
     * LFT_BLOCKS runs as long as the agent's receive limit allows, up to {@link Protocol#MAX_RUN_ENTRIES}, when its
     * HELLO announced {@link Protocol#FEATURE_LFT_RUNS}; 64 (one LFT_BLOCK per block) otherwise.
     */
    static int runEntries(Hello h) {
        if (h == null || (h.features() & Protocol.FEATURE_LFT_RUNS) == 0) {
            return LftBlock.SIZE;
        }
        int fit = (h.maxFrame() - Protocol.HEADER_BYTES - 14) / LftBlock.SIZE * LftBlock.SIZE;
        return Math.max(LftBlock.SIZE, Math.min(Protocol.MAX_RUN_ENTRIES, fit));
    }

    /** Writes the rules, blocks and commit of {@code batch} but for the last buffer, which the caller flushes. */
    Encoded writeBatch(Channel channel, LftBatch batch, int runEntries, long managerTerm) {
        ByteBuf frames = channel.alloc().buffer(Math.min(BATCH_BUFFER_BYTES, batch.blocks().size()
                * LftBatch.blockFrameBytes(LftBlock.SIZE) + LftBatch.COMMIT_FRAME_BYTES));
        int first = 0;
        if (batch.rules() != null) {
            // staged like a block: nothing changes on the switch until the commit
            first = nextTxid.getAsInt();
            LftBatch.Rules r = batch.rules();
            SouthboundCodec.encode(new Message.VcRuleSet(first, batch.version(), r.vcCount(), r.portClasses(),
                    r.transitions()), frames);
        }
        int[] firstBlock = {0};
        frames = writeBlocks(channel, batch, frames, firstBlock, runEntries);
        first = first == 0 ? firstBlock[0] : first;
        int commitTxid = nextTxid.getAsInt();
        SouthboundCodec.encode(new LftCommit(commitTxid, batch.version(), batch.length(), batch.commitBlocks(),
                batch.hash(), batch.rulesHash(), managerTerm), frames);
        return new Encoded(first == 0 ? commitTxid : first, commitTxid, frames);
    }

    /** Writes and flushes the blocks of {@code batch} alone (staged ahead of their commit). */
    void writeStaged(Channel channel, LftBatch batch, int runEntries) {
        ByteBuf frames = channel.alloc().buffer(Math.min(BATCH_BUFFER_BYTES, batch.blocks().size()
                * LftBatch.blockFrameBytes(LftBlock.SIZE)));
        channel.writeAndFlush(writeBlocks(channel, batch, frames, new int[1], runEntries));
    }

    /**
     * Encodes the blocks of {@code batch} after what {@code frames} holds, in runs when the agent takes them, writing
     * (without a flush) each buffer that fills up.
     *
     * @param first set to the first block's txid (left as it is when the batch has no block)
     * @return the buffer the next frames go into
     */
    private ByteBuf writeBlocks(Channel channel, LftBatch batch, ByteBuf frames, int[] first, int runEntries) {
        List<LftBatch.Block> blocks = batch.blocks();
        for (int from = 0; from < blocks.size(); ) {
            int to = runEntries > LftBlock.SIZE ? batch.runEnd(from, runEntries) : from + 1;
            if (frames.readableBytes() > BATCH_BUFFER_BYTES - LftBatch.runFrameBytes(runEntries)) {
                channel.write(frames);
                frames = channel.alloc().buffer(BATCH_BUFFER_BYTES);
            }
            int txid = nextTxid.getAsInt();
            first[0] = first[0] == 0 ? txid : first[0];
            if (runEntries > LftBlock.SIZE) {
                SouthboundCodec.encodeRun(txid, batch, from, to, frames);
            } else {
                LftBatch.Block b = blocks.get(from);
                SouthboundCodec.encode(new LftBlock(txid, batch.version(), b.base(), b.entries()), frames);
            }
            from = to;
        }
        return frames;
    }
}
