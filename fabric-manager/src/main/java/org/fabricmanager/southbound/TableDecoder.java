package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.Message.VcRuleSet;

/** Decodes the table family (LFT_BLOCK, LFT_BLOCKS, LFT_COMMIT, VC_RULES) for {@link SouthboundCodec}, checking every field rule. */
final class TableDecoder {
    private TableDecoder() {
    }

    static LftBlock block(ByteBuf in, int txid) {
        int t = MessageType.LFT_BLOCK.code();
        Wire.need(in, 13, "LFT_BLOCK fields", t, txid);
        long version = in.readLong();
        long base = in.readUnsignedInt();
        int count = in.readUnsignedByte();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version " + version + " (must be at least 1)");
        }
        if (base % LftBlock.SIZE != 0 || base + count > Protocol.MAX_TABLE_LENGTH) {
            throw Wire.malformed(t, txid, "base " + base + " is not a multiple of 64 below " + Protocol.MAX_TABLE_LENGTH);
        }
        if (count < 1 || count > LftBlock.SIZE) {
            throw Wire.malformed(t, txid, "count " + count + " outside [1, 64]");
        }
        Wire.need(in, count, "entries", t, txid);
        byte[] entries = new byte[count];
        in.readBytes(entries);
        return new LftBlock(txid, version, (int) base, entries);
    }

    static Message.LftBlocks blocks(ByteBuf in, int txid) {
        int t = MessageType.LFT_BLOCKS.code();
        Wire.need(in, 14, "LFT_BLOCKS fields", t, txid);
        long version = in.readLong();
        long base = in.readUnsignedInt();
        int count = in.readUnsignedShort();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version " + version + " (must be at least 1)");
        }
        if (count < 1 || count > Protocol.MAX_RUN_ENTRIES) {
            throw Wire.malformed(t, txid, "count " + count + " outside [1, " + Protocol.MAX_RUN_ENTRIES + "]");
        }
        if (base % LftBlock.SIZE != 0 || base + count > Protocol.MAX_TABLE_LENGTH) {
            throw Wire.malformed(t, txid, "base " + base + " is not a multiple of 64 with " + count
                    + " entries ending at most at " + Protocol.MAX_TABLE_LENGTH);
        }
        Wire.need(in, count, "entries", t, txid);
        byte[] entries = new byte[count];
        in.readBytes(entries);
        return new Message.LftBlocks(txid, version, (int) base, entries);
    }

    static LftCommit commit(ByteBuf in, int txid) {
        int t = MessageType.LFT_COMMIT.code();
        Wire.need(in, 24, "LFT_COMMIT fields", t, txid);
        long version = in.readLong();
        long length = in.readUnsignedInt();
        long blocks = in.readUnsignedInt();
        long hash = in.readLong();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version " + version + " (must be at least 1)");
        }
        if (length > Protocol.MAX_TABLE_LENGTH) {
            throw Wire.malformed(t, txid, "length " + length + " above " + Protocol.MAX_TABLE_LENGTH);
        }
        if (blocks > (length + LftBlock.SIZE - 1) / LftBlock.SIZE) {
            throw Wire.malformed(t, txid, blocks + " blocks cannot fit a table of " + length + " entries");
        }
        long rulesHash = 0;
        long term = 0;
        if (in.isReadable()) {
            Wire.need(in, 8, "rulesHash", t, txid);
            rulesHash = in.readLong();
            term = Wire.optionalTerm(in, t, txid);
            if (rulesHash == 0 && term == 0) {
                throw Wire.malformed(t, txid, "rulesHash 0 (leave the field out to keep the rules)");
            }
        }
        return new LftCommit(txid, version, (int) length, (int) blocks, hash, rulesHash, term);
    }

    static VcRuleSet vcRules(ByteBuf in, int txid) {
        int t = MessageType.VC_RULES.code();
        Wire.need(in, 10, "VC_RULES fields", t, txid);
        long version = in.readLong();
        int vcCount = in.readUnsignedByte();
        int ports = in.readUnsignedByte();
        if (version < 1) {
            throw Wire.malformed(t, txid, "version " + version + " (must be at least 1)");
        }
        if (vcCount < 1 || vcCount > Protocol.MAX_VCS) {
            throw Wire.malformed(t, txid, "vcCount " + vcCount + " outside [1, " + Protocol.MAX_VCS + "]");
        }
        if (ports < 1 || ports > Protocol.MAX_PORTS) {
            throw Wire.malformed(t, txid, "port count " + ports + " outside [1, " + Protocol.MAX_PORTS + "]");
        }
        Wire.need(in, ports + 1, "port classes", t, txid);
        byte[] classes = new byte[ports];
        in.readBytes(classes);
        for (int p = 0; p < ports; p++) {
            if (classes[p] < 0 || classes[p] >= Protocol.PORT_CLASSES) {
                throw Wire.malformed(t, txid, "port " + (p + 1) + ": class " + (classes[p] & 0xff) + " outside [0, "
                        + (Protocol.PORT_CLASSES - 1) + "]");
            }
        }
        int count = in.readUnsignedByte();
        if (count > Protocol.PORT_CLASSES * Protocol.PORT_CLASSES) {
            throw Wire.malformed(t, txid, count + " transitions, more than the " + Protocol.PORT_CLASSES
                    * Protocol.PORT_CLASSES + " class pairs");
        }
        Wire.need(in, count * 3, "transitions", t, txid);
        byte[] transitions = new byte[count * 3];
        in.readBytes(transitions);
        boolean[] seen = new boolean[Protocol.PORT_CLASSES * Protocol.PORT_CLASSES];
        for (int i = 0; i < count; i++) {
            int from = transitions[3 * i] & 0xff;
            int to = transitions[3 * i + 1] & 0xff;
            int vc = transitions[3 * i + 2] & 0xff;
            if (from >= Protocol.PORT_CLASSES || to >= Protocol.PORT_CLASSES || vc >= vcCount) {
                throw Wire.malformed(t, txid, "transition " + i + ": " + from + "->" + to + " on vc " + vc
                        + " (classes below " + Protocol.PORT_CLASSES + ", channel below " + vcCount + ")");
            }
            if (seen[from * Protocol.PORT_CLASSES + to]) {
                throw Wire.malformed(t, txid, "transition " + i + ": class pair " + from + "->" + to + " given twice");
            }
            seen[from * Protocol.PORT_CLASSES + to] = true;
        }
        return new VcRuleSet(txid, version, vcCount, classes, transitions);
    }
}
