package org.fabricmanager.daemon.store;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

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
     * Reads and checks the header {@code h} of {@code file} ({@code fileBytes} long): its magic and format must be
     * {@code magic} and {@code format} (a file of {@code kind} otherwise), the sizes it announces must be the file's,
     * one deflate can produce and at most {@code maxPlainBytes} once uncompressed (for the file's {@code what}).
     *
     * @throws StoreException when the file was cut, is foreign or of another format, or its sizes cannot be
     */
    static FrameHeader checked(Path file, byte[] h, long fileBytes, int magic, int format, String kind,
                               long maxPlainBytes, String what) {
        if (h.length < BYTES) {
            throw new StoreException(file + ": truncated: " + h.length + " bytes, shorter than its header");
        }
        FrameHeader header = parse(h);
        if (header.magic != magic) {
            throw new StoreException(file + ": not a fabric-manager " + kind + " file");
        }
        if (header.format != format) {
            throw new StoreException(file + ": format " + header.format + " (this version reads " + format + ")");
        }
        if (header.bodyBytes != fileBytes - BYTES) {
            throw new StoreException(file + ": damaged: the header announces " + header.bodyBytes
                    + " body bytes, the file has " + (fileBytes - BYTES) + " (truncated?)");
        }
        if (header.plainBytes < 0 || header.plainBytes > header.bodyBytes * MAX_DEFLATE_RATIO) {
            throw new StoreException(file + ": damaged: " + header.plainBytes + " bytes cannot be compressed into "
                    + header.bodyBytes);
        }
        if (header.plainBytes > maxPlainBytes) {
            throw new StoreException(file + ": its " + what + " need " + header.plainBytes + " bytes, more than the "
                    + maxPlainBytes + " this daemon allows for them (raise -Xmx, FM_JAVA_OPTS)");
        }
        return header;
    }

    /** @throws StoreException when {@code actual}, the CRC-32C of {@code file}'s body, is not the header's */
    void checkCrc(Path file, int actual) {
        if (actual != crc) {
            throw new StoreException(file + ": damaged: CRC-32C " + Integer.toHexString(actual)
                    + " does not match the header's " + Integer.toHexString(crc));
        }
    }

    /** What reading {@code file}'s body failed on, as the store reports it: cut, damaged, or not readable. */
    static StoreException readFailure(Path file, IOException e) {
        if (e instanceof EOFException) {
            return new StoreException(file + ": truncated", e);
        }
        if (e instanceof ZipException) {
            return new StoreException(file + ": damaged (" + e.getMessage() + ")", e);
        }
        return new StoreException(file + ": cannot read: " + e.getMessage(), e);
    }

    /**
     * A gzip stream at deflate's fastest level into {@code body}: the state files are written after routings on a
     * 2-core machine, and tables compress well at any level (docs/performance.md, "Memory and sizing").
     */
    static GZIPOutputStream fastGzip(OutputStream body) throws IOException {
        return new GZIPOutputStream(body, 1 << 16) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        };
    }
}
