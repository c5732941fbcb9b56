package org.fabricmanager.southbound;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Reading and writing the protocol's strings, with strict UTF-8 and length checks. */
final class Wire {
    private Wire() {
    }

    static void writeStr8(ByteBuf out, String s, int maxBytes) {
        byte[] bytes = utf8(s, maxBytes);
        out.writeByte(bytes.length);
        out.writeBytes(bytes);
    }

    static void writeStr16(ByteBuf out, String s, int maxBytes) {
        byte[] bytes = utf8(s, maxBytes);
        out.writeShort(bytes.length);
        out.writeBytes(bytes);
    }

    /** UTF-8 bytes of {@code s}, truncated at a character boundary to at most {@code maxBytes}. */
    static byte[] utf8(String s, int maxBytes) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) {
            return bytes;
        }
        int end = maxBytes;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;
        }
        byte[] cut = new byte[end];
        System.arraycopy(bytes, 0, cut, 0, end);
        return cut;
    }

    static String readStr8(ByteBuf in, int maxBytes, String field, int type, int txid) {
        need(in, 1, field, type, txid);
        return readUtf8(in, in.readUnsignedByte(), maxBytes, field, type, txid);
    }

    static String readStr16(ByteBuf in, int maxBytes, String field, int type, int txid) {
        need(in, 2, field, type, txid);
        return readUtf8(in, in.readUnsignedShort(), maxBytes, field, type, txid);
    }

    private static String readUtf8(ByteBuf in, int length, int maxBytes, String field, int type, int txid) {
        if (length > maxBytes) {
            throw malformed(type, txid, field + " is " + length + " bytes, more than " + maxBytes);
        }
        need(in, length, field, type, txid);
        ByteBuffer bytes = in.nioBuffer(in.readerIndex(), length);
        in.skipBytes(length);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes)
                    .toString();
        } catch (CharacterCodingException e) {
            throw malformed(type, txid, field + " is not valid UTF-8");
        }
    }

    static void need(ByteBuf in, int bytes, String field, int type, int txid) {
        if (in.readableBytes() < bytes) {
            throw malformed(type, txid, "payload ends inside " + field);
        }
    }

    static ProtocolException malformed(int type, int txid, String what) {
        return new ProtocolException(ErrorCode.MALFORMED, type, txid, MessageType.describe(type) + ": " + what);
    }

    /** The appended managerTerm (u64) of HELLO_REPLY and LFT_COMMIT: absent (0) outside a hot-standby group. */
    static long optionalTerm(ByteBuf in, int t, int txid) {
        if (!in.isReadable()) {
            return 0;
        }
        Wire.need(in, 8, "managerTerm", t, txid);
        long term = in.readLong();
        if (term < 1) {
            throw Wire.malformed(t, txid, "managerTerm " + term + " (sent only when at least 1)");
        }
        return term;
    }
}
