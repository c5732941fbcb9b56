package org.fabricmanager.pki;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The CPU one southbound TLS 1.3 handshake costs each end on BoringSSL, full against resumed (a ticket sealed with the
 * managers' shared keys): the production PKI shape (ECDSA P-256 keys under an RSA-3072 CA, as {@code pki init} makes
 * it), each side's thread CPU read around its own steps of an in-memory handshake ({@link InMemoryHandshake}), so
 * neither sockets nor the scheduling of a shared host enter. A resumed handshake still runs an ECDHE key exchange
 * (psk_dhe_ke) but no signature, no CertificateVerify check and no PKIX check of the agent's chain.
 * Run: {@code -Dtest=TlsResumptionCostBenchmark -Dfm.bench=true [-Dfm.bench.handshakes=2000]}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class TlsResumptionCostBenchmark {
    @Test
    void fullAgainstResumed() {
        Assumptions.assumeTrue(OpenSsl.isAvailable());
        int n = Integer.getInteger("fm.bench.handshakes", 2_000);
        CertificateAuthority ca = CertificateAuthority.create("fabric", Duration.ofDays(1), Clock.systemUTC()); // RSA-3072 CA, ECDSA P-256 keys
        IssuedCertificate d = ca.issueDaemon(List.of(), List.of(), Duration.ofDays(1));
        TlsMaterial daemon = new TlsMaterial(List.of(d.certificate()), d.key(), List.of(ca.certificate()));
        SslContext server = TlsContexts.server(daemon, TlsProvider.OPENSSL.engine(daemon));
        SessionTicketKeys.none().rotated(System.currentTimeMillis(), new SecureRandom()).installOn(server, daemon.trusted());
        IssuedCertificate s = ca.issueSwitch(0x10L, "s", Duration.ofDays(1));
        TlsMaterial agent = new TlsMaterial(List.of(s.certificate()), s.key(), List.of(ca.certificate()));
        SslContext client = TlsContexts.client(agent, TlsProvider.OPENSSL.engine(agent));
        for (int round = 0; round < 2; round++) {   // the first round warms the JIT
            long[][] full = run(server, client, n, false);
            long[][] resumed = run(server, client, n, true);
            if (round == 1) {
                report("full", full);
                report("resumed", resumed);
            }
        }
    }

    /** The next session-cache key of a full handshake: never used before, in any round. */
    private static int port = 1;

    /** {server ns, client ns} of {@code n} handshakes; resumed ones offer the ticket of the previous one. */
    private static long[][] run(SslContext server, SslContext client, int n, boolean resume) {
        long[][] out = new long[2][n];
        if (resume) {
            InMemoryHandshake.run(server, client, TlsContexts.MANAGERS_PEER_HOST, TlsContexts.MANAGERS_PEER_PORT).release();
        }
        int resumed = 0;
        for (int i = 0; i < n; i++) {
            // a full handshake: a session-cache key the client never used, so it offers no ticket
            InMemoryHandshake h = resume
                    ? InMemoryHandshake.run(server, client, TlsContexts.MANAGERS_PEER_HOST, TlsContexts.MANAGERS_PEER_PORT)
                    : InMemoryHandshake.run(server, client, "full", port++);
            if (h.failure() != null) {
                throw new IllegalStateException(h.failure());
            }
            resumed += TlsContexts.resumed(h.server()) ? 1 : 0;
            out[0][i] = h.serverNs();
            out[1][i] = h.clientNs();
            h.release();
        }
        if (resumed != (resume ? n : 0)) {
            throw new IllegalStateException((resume ? "resumed " : "full ") + "run: " + resumed + " of " + n + " resumed");
        }
        return out;
    }

    private static void report(String kind, long[][] ns) {
        System.out.printf("tls %s handshake, %d in memory: daemon CPU median %.3f ms (p90 %.3f), agent CPU median %.3f ms"
                + " (p90 %.3f)%n", kind, ns[0].length, q(ns[0], 0.5), q(ns[0], 0.9), q(ns[1], 0.5), q(ns[1], 0.9));
    }

    private static double q(long[] v, double q) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[(int) Math.min(s.length - 1, Math.round(q * (s.length - 1)))] / 1e6;
    }
}
