package org.fabricmanager.pki;

import java.nio.ByteBuffer;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * One TLS handshake between a client and a server engine, driven in memory on the calling thread, with no socket:
 * each side reads what the other wrote, its delegated tasks (the trust manager's check of the peer's chain) run
 * inline. Used to warm a hot standby's TLS code before it takes over ({@link TlsWarmup}) and by benchmarks to read
 * the CPU each side spends, free of sockets and of the scheduling of a shared machine.
 */
public final class MemoryHandshake {
    /** A handshake needs three flights in TLS 1.3; more means the engines are stuck. */
    private static final int MAX_FLIGHTS = 16;
    /** Room for one flight: certificates of a few kilobytes, far below TLS's 16 KiB record. */
    private static final int FLIGHT_BYTES = 1 << 17;

    /**
     * What became of one handshake.
     *
     * @param failure  why it failed, {@code null} when it succeeded
     * @param clientNs what {@code cpuNanos} advanced by during the client's steps
     * @param serverNs the same for the server's steps
     */
    public record Outcome(SSLException failure, long clientNs, long serverNs) {
    }

    private MemoryHandshake() {
    }

    /**
     * Runs the handshake between {@code client} and {@code server}, fresh engines of the two contexts; a failure is
     * returned, not thrown. {@code cpuNanos} is read around each side's steps (a thread CPU clock for benchmarks,
     * {@code () -> 0} when nobody looks).
     *
     * @throws IllegalStateException when the engines neither finish nor fail within {@value #MAX_FLIGHTS} flights
     */
    public static Outcome run(SSLEngine client, SSLEngine server, LongSupplier cpuNanos) {
        ByteBuffer toServer = ByteBuffer.allocate(FLIGHT_BYTES);
        ByteBuffer toClient = ByteBuffer.allocate(FLIGHT_BYTES);
        // application data never flows during a handshake: one scratch buffer serves every unwrap, an empty one
        // every wrap (allocated per step they made 128 KiB a step, about 0.75 GB of garbage per 1,000-handshake warm-up)
        ByteBuffer app = ByteBuffer.allocate(FLIGHT_BYTES);
        ByteBuffer none = ByteBuffer.allocate(0);
        long clientNs = 0;
        long serverNs = 0;
        try {
            client.beginHandshake();
            server.beginHandshake();
            for (int flight = 0; flight < MAX_FLIGHTS; flight++) {
                long t0 = cpuNanos.getAsLong();
                step(client, toClient, toServer, app, none);
                long t1 = cpuNanos.getAsLong();
                step(server, toServer, toClient, app, none);
                serverNs += cpuNanos.getAsLong() - t1;
                clientNs += t1 - t0;
                if (done(client) && done(server) && toServer.position() == 0 && toClient.position() == 0) {
                    return new Outcome(null, clientNs, serverNs);
                }
            }
            throw new IllegalStateException("no handshake after " + MAX_FLIGHTS + " flights: client "
                    + client.getHandshakeStatus() + ", server " + server.getHandshakeStatus());
        } catch (SSLException e) {
            return new Outcome(e, clientNs, serverNs);
        }
    }

    private static boolean done(SSLEngine e) {
        return e.getHandshakeStatus() == HandshakeStatus.NOT_HANDSHAKING;
    }

    /** Reads what the peer sent, runs the engine's delegated tasks, and writes what it has to send. */
    private static void step(SSLEngine e, ByteBuffer in, ByteBuffer out, ByteBuffer app, ByteBuffer none)
            throws SSLException {
        for (int i = 0; i < MAX_FLIGHTS; i++) {
            in.flip();
            app.clear();
            int consumed = e.unwrap(in, app).bytesConsumed();
            in.compact();
            runTasks(e);
            int produced = e.wrap(none, out).bytesProduced();
            runTasks(e);
            if (consumed == 0 && produced == 0 && e.getHandshakeStatus() != HandshakeStatus.NEED_TASK) {
                return;
            }
        }
    }

    private static void runTasks(SSLEngine e) {
        for (Runnable task = e.getDelegatedTask(); task != null; task = e.getDelegatedTask()) {
            task.run();
        }
    }
}
