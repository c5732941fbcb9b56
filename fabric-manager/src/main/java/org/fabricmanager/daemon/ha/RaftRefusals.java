package org.fabricmanager.daemon.ha;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.fabricmanager.pki.ManagerPeerTrust;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peers this member's Raft port refused (or refused to talk to), by {@link ManagerPeerTrust.Refusal}: counted
 * exactly for the {@code fabric.ha.rejected} meter, and logged at most once per interval, one WARN line with the
 * counts since the previous line and the last refused certificate, so that a host that keeps dialling the Raft port
 * with a switch's certificate (or a scanner with none) cannot flood the log. Thread-safe: called on the TLS engine's
 * threads of Ratis's gRPC transport.
 */
final class RaftRefusals implements ManagerPeerTrust.Refusals {
    /** Interval between two log lines. */
    static final long INTERVAL_MS = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(RaftRefusals.class);

    private final Map<ManagerPeerTrust.Refusal, LongAdder> totals = new EnumMap<>(ManagerPeerTrust.Refusal.class);
    private final LongSupplier clockMs;
    private final Consumer<String> log;

    // guarded by this
    private final long[] sinceLine = new long[ManagerPeerTrust.Refusal.values().length];
    private long lastLineMs = Long.MIN_VALUE / 2;

    /** Logs to this class's logger at WARN, on the wall clock. */
    RaftRefusals() {
        this(System::currentTimeMillis, LOG::warn);
    }

    /**
     * @param clockMs milliseconds, for the interval between two lines
     * @param log     where a line goes
     */
    RaftRefusals(LongSupplier clockMs, Consumer<String> log) {
        this.clockMs = clockMs;
        this.log = log;
        for (ManagerPeerTrust.Refusal r : ManagerPeerTrust.Refusal.values()) {
            totals.put(r, new LongAdder());
        }
    }

    @Override
    public void refused(ManagerPeerTrust.Refusal kind, X509Certificate[] chain, CertificateException why) {
        totals.get(kind).increment();
        String line;
        synchronized (this) {
            sinceLine[kind.ordinal()]++;
            long now = clockMs.getAsLong();
            if (now - lastLineMs < INTERVAL_MS) {
                return;
            }
            lastLineMs = now;
            line = line(kind, chain, why);
            Arrays.fill(sinceLine, 0);
        }
        log.accept(line);
    }

    /** Peers refused for {@code kind} since this member started. */
    long count(ManagerPeerTrust.Refusal kind) {
        return totals.get(kind).sum();
    }

    private String line(ManagerPeerTrust.Refusal kind, X509Certificate[] chain, CertificateException why) {
        StringBuilder counts = new StringBuilder();
        for (ManagerPeerTrust.Refusal r : ManagerPeerTrust.Refusal.values()) {
            if (sinceLine[r.ordinal()] > 0) {
                counts.append(counts.length() == 0 ? "" : ", ").append(sinceLine[r.ordinal()]).append(' ').append(r.tag());
            }
        }
        String subject = chain == null || chain.length == 0 ? "no certificate"
                : "'" + chain[0].getSubjectX500Principal().getName() + "'";
        return "ha: Raft port refused peers (" + counts + ") since the last such line; the last: " + subject + ", "
                + kind.tag() + ": " + why.getMessage() + " (at most one such line per " + INTERVAL_MS / 1000
                + " s; every refusal is counted in " + HaMetrics.REJECTED + ")";
    }
}
