package org.fabricmanager.pki;

import io.netty.handler.ssl.OpenSslServerSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.SslContext;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secrets from which every manager of a fabric derives the same TLS session-ticket keys, so that an agent
 * resumes its TLS 1.3 session with whichever manager it reaches: after a failover to a hot standby, and after a
 * restart of a single daemon. Newest first: the newest seals new tickets, the older ones still open the tickets
 * they sealed. A new secret is added every {@link #ROTATE_MS} and one is dropped {@link #KEEP_MS} after its
 * creation, when no ticket it sealed can still be accepted (BoringSSL accepts a TLS 1.3 ticket for
 * {@link #TICKET_LIFETIME_S}).
 *
 * <p>The keys installed on a context are derived from each secret <em>and the trust bundle</em> (HMAC-SHA-256 of
 * the secret over a label and the SHA-256 of the trusted CAs): a resumed handshake does not check the agent's
 * certificate again, so removing a CA from the bundle (the end of a CA rotation, docs/security.md) must also
 * invalidate every ticket issued under it. Managers with the same bundle derive the same keys. Only BoringSSL
 * (Netty's OpenSSL engine) lets its ticket keys be set; the JDK's engine keeps its own per process
 * ({@link #installOn} answers {@code false}).
 *
 * <p>The secrets are as sensitive as the daemon's private key (with them one can mint a ticket naming any switch's
 * certificate): {@link Secret#toString} never shows them, and nothing logs them.
 *
 * @param secrets newest first, at most {@link #MAX_KEYS}
 */
public record SessionTicketKeys(List<Secret> secrets) {
    /** Bytes of one secret. */
    public static final int SECRET_BYTES = 32;
    /** Secrets kept at most (a file holding more is refused). */
    public static final int MAX_KEYS = 16;
    /** How long BoringSSL accepts a TLS 1.3 ticket: its default, {@code SSL_DEFAULT_SESSION_PSK_DHE_TIMEOUT}. */
    public static final long TICKET_LIFETIME_S = TimeUnit.DAYS.toSeconds(2);
    /** A new secret seals the tickets after this long. */
    public static final long ROTATE_MS = TimeUnit.HOURS.toMillis(6);
    /** A secret is dropped this long after its creation: it sealed tickets for ROTATE_MS, each valid for the lifetime. */
    public static final long KEEP_MS = ROTATE_MS + TimeUnit.SECONDS.toMillis(TICKET_LIFETIME_S);
    private static final byte[] LABEL = "fabric-manager southbound session ticket key/1".getBytes(StandardCharsets.US_ASCII);

    /**
     * One secret and when it was made.
     *
     * @param createdMs milliseconds since 1970
     * @param bytes     {@link #SECRET_BYTES} random bytes
     */
    public record Secret(long createdMs, byte[] bytes) {
        public Secret {
            if (bytes == null || bytes.length != SECRET_BYTES) {
                throw new IllegalArgumentException("a ticket secret has " + SECRET_BYTES + " bytes");
            }
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Secret s && s.createdMs == createdMs && MessageDigest.isEqual(s.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(createdMs);
        }

        /** Never the bytes. */
        @Override
        public String toString() {
            return "Secret[created " + Instant.ofEpochMilli(createdMs) + "]";
        }
    }

    public SessionTicketKeys {
        secrets = List.copyOf(secrets);
        if (secrets.size() > MAX_KEYS) {
            throw new IllegalArgumentException(secrets.size() + " ticket secrets, at most " + MAX_KEYS);
        }
    }

    /** No secret yet. */
    public static SessionTicketKeys none() {
        return new SessionTicketKeys(List.of());
    }

    public boolean isEmpty() {
        return secrets.isEmpty();
    }

    /**
     * Whether a new secret is due at {@code nowMs}: none yet, the newest is {@link #ROTATE_MS} old, or it claims to be
     * younger than that by more than {@link #ROTATE_MS} (the clock went back: rotate rather than wait for it).
     */
    public boolean rotationDue(long nowMs) {
        if (secrets.isEmpty()) {
            return true;
        }
        long age = nowMs - secrets.get(0).createdMs();
        return age >= ROTATE_MS || age < -ROTATE_MS;
    }

    /** When the next secret is due (milliseconds since 1970; {@code nowMs} or earlier when it is due now). */
    public long nextRotationMs(long nowMs) {
        return rotationDue(nowMs) ? nowMs : secrets.get(0).createdMs() + ROTATE_MS;
    }

    /**
     * These secrets with a new one in front, made at {@code nowMs}, without those older than {@link #KEEP_MS}
     * (and without the oldest beyond {@link #MAX_KEYS}).
     */
    public SessionTicketKeys rotated(long nowMs, SecureRandom random) {
        byte[] b = new byte[SECRET_BYTES];
        random.nextBytes(b);
        List<Secret> out = new ArrayList<>(secrets.size() + 1);
        out.add(new Secret(nowMs, b));
        Arrays.fill(b, (byte) 0);
        for (Secret s : secrets) {
            if (out.size() < MAX_KEYS && nowMs - s.createdMs() < KEEP_MS && s.createdMs() - nowMs < KEEP_MS) {
                out.add(s);
            }
        }
        return new SessionTicketKeys(out);
    }

    /**
     * The session-ticket keys of these secrets for a context trusting {@code trusted}, newest first (the first seals,
     * all open): name (16 bytes, sent in the clear in each ticket), HMAC key and AES key (16 bytes each).
     */
    public List<OpenSslSessionTicketKey> ticketKeys(List<X509Certificate> trusted) {
        byte[] bundle = bundleDigest(trusted);
        List<OpenSslSessionTicketKey> out = new ArrayList<>(secrets.size());
        for (Secret s : secrets) {
            byte[] first = derive(s, (byte) 1, bundle);
            byte[] second = derive(s, (byte) 2, bundle);
            out.add(new OpenSslSessionTicketKey(Arrays.copyOfRange(first, 0, 16), Arrays.copyOfRange(first, 16, 32),
                    Arrays.copyOfRange(second, 0, 16)));
            Arrays.fill(first, (byte) 0);
            Arrays.fill(second, (byte) 0);
        }
        return out;
    }

    /**
     * Installs the keys on a daemon's (server) context, replacing any it had: from now on its tickets are sealed with
     * the newest and tickets of any of them are accepted. Tickets of other keys (another fabric, another trust
     * bundle, a forged one) are ignored: the agent then makes a full handshake.
     *
     * @return {@code false} when the context cannot take keys (the JDK's engine) or there are none
     */
    public boolean installOn(SslContext server, List<X509Certificate> trusted) {
        if (secrets.isEmpty() || !(server.sessionContext() instanceof OpenSslServerSessionContext sessions)) {
            return false;
        }
        sessions.setTicketKeys(ticketKeys(trusted).toArray(OpenSslSessionTicketKey[]::new));
        return true;
    }

    /** SHA-256 over the sorted SHA-256 digests of the trusted certificates: the same for the same bundle in any order. */
    static byte[] bundleDigest(List<X509Certificate> trusted) {
        try {
            List<byte[]> digests = new ArrayList<>(trusted.size());
            for (X509Certificate c : trusted) {
                digests.add(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
            }
            digests.sort(Comparator.comparing(d -> d, Arrays::compareUnsigned));
            MessageDigest all = MessageDigest.getInstance("SHA-256");
            for (byte[] d : digests) {
                all.update(d);
            }
            return all.digest();
        } catch (GeneralSecurityException e) {
            throw new PkiException("cannot digest the trusted CAs: " + e.getMessage(), e);
        }
    }

    private static byte[] derive(Secret s, byte which, byte[] bundle) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            byte[] key = s.bytes();
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            Arrays.fill(key, (byte) 0);
            mac.update(LABEL);
            mac.update(which);
            mac.update(bundle);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new PkiException("cannot derive a session ticket key: " + e.getMessage(), e);
        }
    }
}
