package org.fabricmanager.daemon.store;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The 32-byte header in front of a gzip-compressed state file's body ({@code routing.state}, {@code routing.delta}),
 * and the checks every such file passes before its body is read.
 *
 * <pre>
 * magic (u32) | format (u16) | 0 (u16) | body bytes (u64) | uncompressed bytes (u64) | CRC-32C of the body (u32) | 0 (u32)
 * </pre>
 */
record FrameHeader(int magic, int format, long bodyBytes, long plainBytes, int crc) {
    static final int BYTES = 32;
    /** Deflate cannot expand data by more than this factor (RFC 1951: 258-byte matches in at most ~2 bits). */
    static final long MAX_DEFLATE_RATIO = 1032;

    /** The header of {@code body} ({@code plainBytes} before compression), followed by the body. */
    static byte[] frame(int magic, int format, byte[] body, long plainBytes) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        ByteBuffer b = ByteBuffer.allocate(BYTES + body.length);
        b.putInt(magic).putShort((short) format).putShort((short) 0).putLong(body.length).putLong(plainBytes)
                .putInt((int) crc.getValue()).putInt(0).put(body);
        return b.array();
    }

    /** Reads the header at the start of {@code h} (at least {@link #BYTES} long). */
    static FrameHeader parse(byte[] h) {
        ByteBuffer b = ByteBuffer.wrap(h, 0, BYTES);
        int magic = b.getInt();
        int format = b.getShort() & 0xffff;
        b.getShort();
        return new FrameHeader(magic, format, b.getLong(), b.getLong(), b.getInt());
    }

    /**
     * Checks the sizes this header announces against the file's and the most the reader allows for the body once
     * uncompressed; {@code file} names the file in the error.
     *
     * @throws StoreException when the file was cut or the sizes cannot be
     */
    void checkSizes(Path file, long fileBytes, long maxPlainBytes, String what) {
        if (bodyBytes != fileBytes - BYTES) {
            throw new StoreException(file + ": damaged: the header announces " + bodyBytes + " body bytes, the file has "
                    + (fileBytes - BYTES) + " (truncated?)");
        }
        if (plainBytes < 0 || plainBytes > bodyBytes * MAX_DEFLATE_RATIO) {
            throw new StoreException(file + ": damaged: " + plainBytes + " bytes cannot be compressed into " + bodyBytes);
        }
        if (plainBytes > maxPlainBytes) {
            throw new StoreException(file + ": its " + what + " need " + plainBytes + " bytes, more than the "
                    + maxPlainBytes + " this daemon allows for them (raise -Xmx, FM_JAVA_OPTS)");
        }
    }
}
