package org.fabricmanager.detector.netty;

import io.netty.buffer.ByteBuf;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * Authenticates datagrams with the ring's key (one per configuration epoch, handed to the members over the
 * daemon's TLS sessions): a sealed datagram is the message, then the sender's datagram sequence number and
 * a tag, HMAC-SHA-256 over both truncated to {@link #TAG_BYTES} bytes:
 *
 * <pre>
 *   message bytes | u64 sequence | 16-byte tag = HMAC-SHA-256(key, message bytes | sequence)[0..16)
 * </pre>
 *
 * Without the key nobody can make a datagram a member accepts, and a datagram of an earlier epoch (another
 * key) fails its tag. The sequence lets the receiver refuse replays ({@link ReplayWindow}). Not thread-safe:
 * one instance per member, used on its event loop.
 */
final class DatagramSeal {
    /** Bytes of the truncated tag (128 bits). */
    static final int TAG_BYTES = 16;
    /** Bytes a seal adds: sequence and tag. */
    static final int OVERHEAD = 8 + TAG_BYTES;
    /** Length of a ring key. */
    static final int KEY_BYTES = 32;

    private final Mac mac;
    private final byte[] full = new byte[32];
    private final byte[] tag = new byte[TAG_BYTES];
    private byte[] scratch = new byte[2048];

    DatagramSeal(byte[] key) {
        if (key == null || key.length != KEY_BYTES) {
            throw new IllegalArgumentException("a ring key has " + KEY_BYTES + " bytes");
        }
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is not available in this JVM", e);
        }
    }

    /** Appends {@code sequence} and the tag to the message in {@code buf} (its readable bytes). */
    void seal(ByteBuf buf, long sequence) {
        buf.writeLong(sequence);
        compute(buf, buf.readerIndex(), buf.readableBytes());
        buf.writeBytes(full, 0, TAG_BYTES);
    }

    /**
     * Checks the tag of the sealed datagram in {@code buf} (its readable bytes, not consumed).
     *
     * @return the sender's sequence number, or -1 when the datagram is too short or its tag is wrong
     */
    long open(ByteBuf buf) {
        int length = buf.readableBytes();
        if (length < OVERHEAD + 1) {
            return -1;
        }
        int signed = length - TAG_BYTES;
        compute(buf, buf.readerIndex(), signed);
        buf.getBytes(buf.readerIndex() + signed, tag);
        // constant time: a forger learns nothing from how fast a wrong tag is refused
        int diff = 0;
        for (int i = 0; i < TAG_BYTES; i++) {
            diff |= full[i] ^ tag[i];
        }
        if (diff != 0) {
            return -1;
        }
        return buf.getLong(buf.readerIndex() + signed - 8);
    }

    /** The message part of a sealed datagram: its readable bytes without sequence and tag. */
    static ByteBuf message(ByteBuf sealed) {
        return sealed.slice(sealed.readerIndex(), sealed.readableBytes() - OVERHEAD);
    }

    private void compute(ByteBuf buf, int from, int length) {
        if (buf.hasArray()) {
            mac.update(buf.array(), buf.arrayOffset() + from, length);
        } else if (buf.nioBufferCount() == 1) {
            mac.update(buf.nioBuffer(from, length));
        } else {
            if (scratch.length < length) {
                scratch = new byte[Math.max(length, scratch.length * 2)];
            }
            buf.getBytes(from, scratch, 0, length);
            mac.update(scratch, 0, length);
        }
        try {
            mac.doFinal(full, 0);
        } catch (ShortBufferException e) {
            throw new IllegalStateException(e);
        }
    }
}
