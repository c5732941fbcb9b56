package org.fabricmanager.daemon;

import io.netty.handler.ssl.SslContext;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.daemon.store.TicketKeyStore;
import org.fabricmanager.pki.SessionTicketKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the active manager's southbound session-ticket keys ({@link SessionTicketKeys}): at start it installs the
 * stored ones on the southbound's TLS context (so that agents resume the sessions they had with a previous run, or
 * with the previous leader of a hot-standby group), making the first one when there is none; then it adds a new
 * secret every {@link SessionTicketKeys#ROTATE_MS}, committing it through the store before the context seals with
 * it (with hot-standby managers the store writes through Raft, so every member opens the tickets it seals). A write
 * that fails (no quorum, a deposed leader) is logged and retried; the keys in use stay installed. One thread, idle
 * but for a rotation every few hours.
 */
public final class TicketKeyRotation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TicketKeyRotation.class);
    /** A failed write is tried again after this long. */
    static final long RETRY_MS = 60_000;

    private final TicketKeyStore store;
    private final SslContext context;
    private final List<X509Certificate> trusted;
    private final LongSupplier clock;
    private final SecureRandom random = new SecureRandom();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fm-ticket-keys");
        t.setDaemon(true);
        return t;
    });
    /** The keys installed (timer thread after start). */
    private volatile SessionTicketKeys keys;

    private TicketKeyRotation(TicketKeyStore store, SslContext context, List<X509Certificate> trusted, LongSupplier clock,
                              SessionTicketKeys keys) {
        this.store = store;
        this.context = context;
        this.trusted = List.copyOf(trusted);
        this.clock = clock;
        this.keys = keys;
    }

    /**
     * Installs the stored keys on {@code context} (a new first key when there is none or the newest is due for
     * rotation, saved in the background) and schedules the rotations.
     *
     * @param trusted the southbound's trusted CAs: the keys are derived for this bundle
     * @return {@code null} when the context takes no keys (the JDK's engine: its tickets stay per process)
     */
    public static TicketKeyRotation start(TicketKeyStore store, SslContext context, List<X509Certificate> trusted,
                                          LongSupplier clock) {
        SessionTicketKeys stored = loadOrNone(store);
        long now = clock.getAsLong();
        boolean fresh = stored.rotationDue(now);
        SessionTicketKeys keys = fresh ? stored.rotated(now, new SecureRandom()) : stored;
        if (!keys.installOn(context, trusted)) {
            LOG.info("southbound: the JDK's TLS engine keeps its session tickets per process: agents resume only with this"
                    + " run of this daemon (resumption across restarts and hot-standby managers needs BoringSSL,"
                    + " security.tlsProvider auto or openssl)");
            return null;
        }
        TicketKeyRotation r = new TicketKeyRotation(store, context, trusted, clock, keys);
        LOG.info("southbound: TLS session tickets under {} key(s) of {} ({}, newest from {}): agents resume their sessions"
                + " across restarts and failovers", keys.secrets().size(), store.file(),
                stored.isEmpty() ? "new" : fresh ? "rotated" : "stored", Instant.ofEpochMilli(keys.secrets().get(0).createdMs()));
        if (fresh) {
            r.timer.execute(() -> r.save(keys));
        }
        r.scheduleNext();
        return r;
    }

    /** The stored keys, or none when the file is missing, damaged or readable by others (logged). */
    public static SessionTicketKeys loadOrNone(TicketKeyStore store) {
        try {
            return store.load();
        } catch (StoreException e) {
            LOG.warn("southbound: not using the stored TLS session-ticket keys: {}; agents make a full handshake until new"
                    + " ones are committed", e.getMessage());
            return SessionTicketKeys.none();
        }
    }

    /** The keys installed now. */
    public SessionTicketKeys keys() {
        return keys;
    }

    private void scheduleNext() {
        long delay = Math.max(0, keys.nextRotationMs(clock.getAsLong()) - clock.getAsLong());
        timer.schedule(this::rotate, delay, TimeUnit.MILLISECONDS);
    }

    /** Adds a new secret: committed first, then sealing on this context. */
    private void rotate() {
        long now = clock.getAsLong();
        SessionTicketKeys current = keys;
        if (!current.rotationDue(now)) {
            scheduleNext();
            return;
        }
        SessionTicketKeys next = current.rotated(now, random);
        if (!save(next)) {
            return; // save schedules the retry; the current keys stay installed
        }
        next.installOn(context, trusted);
        keys = next;
        LOG.info("southbound: TLS session-ticket key rotated ({} key(s) kept for the tickets agents hold)",
                next.secrets().size());
        scheduleNext();
    }

    /** Writes {@code k}; on failure logs it and tries again (the keys in use stay installed). */
    private boolean save(SessionTicketKeys k) {
        try {
            store.save(k);
            return true;
        } catch (StoreException | IllegalStateException e) {
            LOG.warn("southbound: TLS session-ticket keys not saved ({}); retrying in {} s", e.getMessage(), RETRY_MS / 1000);
            if (!timer.isShutdown()) {
                timer.schedule(() -> {
                    if (k == keys) {
                        save(k);
                    } else {
                        rotate();
                    }
                }, RETRY_MS, TimeUnit.MILLISECONDS);
            }
            return false;
        }
    }

    /** Stops rotating (a save in progress may finish). */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
