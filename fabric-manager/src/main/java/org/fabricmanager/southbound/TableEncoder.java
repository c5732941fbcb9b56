package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftBlocks;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.Message.VcRuleSet;

/**
 * Writes the table family (LFT_BLOCK, LFT_BLOCKS, LFT_COMMIT, VC_RULES) for {@link SouthboundCodec}, including
 * LFT_BLOCKS runs straight from a batch's arrays.
 */
final class TableEncoder {
    private TableEncoder() {
    }

    static void payload(Message m, ByteBuf out) {
        if (m instanceof LftBlock b) {
            out.writeLong(b.version());
            out.writeInt(b.base());
            out.writeByte(b.entries().length);
            out.writeBytes(b.entries());
        } else if (m instanceof LftBlocks b) {
            out.writeLong(b.version());
            out.writeInt(b.base());
            out.writeShort(b.entries().length);
            out.writeBytes(b.entries());
        } else if (m instanceof LftCommit c) {
            out.writeLong(c.version());
            out.writeInt(c.length());
            out.writeInt(c.blocks());
            out.writeLong(c.hash());
            if (c.rulesHash() != 0 || c.managerTerm() != 0) {
                out.writeLong(c.rulesHash()); // appended field (0: rules kept, followed by a term)
            }
            if (c.managerTerm() != 0) {
                out.writeLong(c.managerTerm()); // second appended field: sent only by hot-standby managers
            }
        } else if (m instanceof VcRuleSet r) {
            out.writeLong(r.version());
            out.writeByte(r.vcCount());
            out.writeByte(r.portClasses().length);
            out.writeBytes(r.portClasses());
            out.writeByte(r.transitions().length / 3);
            out.writeBytes(r.transitions());
        } else {
            throw new IllegalArgumentException("no table encoding for " + m);
        }
    }

    /** See {@link SouthboundCodec#encodeRun}: one whole LFT_BLOCKS frame, entries copied once from the blocks. */
    static void run(int txid, LftBatch batch, int from, int to, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        out.writeByte(MessageType.LFT_BLOCKS.code());
        out.writeInt(txid);
        out.writeLong(batch.version());
        out.writeInt(batch.blocks().get(from).base());
        int countAt = out.writerIndex();
        out.writeShort(0);
        int entries = 0;
        for (int i = from; i < to; i++) {
            byte[] e = batch.blocks().get(i).entries();
            out.writeBytes(e);
            entries += e.length;
        }
        out.setShort(countAt, entries);
        out.setInt(start, out.writerIndex() - start - Protocol.LENGTH_FIELD_BYTES);
    }
}
