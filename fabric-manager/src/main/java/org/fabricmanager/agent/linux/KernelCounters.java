package org.fabricmanager.agent.linux;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import org.fabricmanager.agent.PortCounterSource;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;

/**
 * A Linux switch's port counters: the kernel's statistics of each port's interface, read with one
 * {@code ip -s -j link show} in the switch's namespace for all ports at once (never one process per port), written to
 * the switch's long-running {@code ip -s -j -batch} process ({@link BatchSession}): a read costs no process start,
 * which matters because the daemon asks every switch every ten seconds and a lab of hundreds of switches would
 * otherwise start dozens of processes a second (without stdbuf, one process per read). The answers to the requests of one poll (several when the daemon's receive limit splits it) share one read: a read
 * younger than {@link #REUSE_MS} is reused. Mapped from the kernel's {@code stats64}: packets, bytes, {@code errors}
 * and {@code dropped} of {@code rx} and {@code tx}; a port without an interface has its counters
 * {@link PortCounters#UNAVAILABLE}. The kernel's counters belong to the interface, so they reset when it is
 * re-created, not when the agent restarts.
 */
final class KernelCounters implements PortCounterSource, AutoCloseable {
    /** A read this recent answers the next request too (the ranges of one poll). */
    static final long REUSE_MS = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Iproute2 ip;
    private final PortNames names;
    private final LongSupplier nanoClock;
    /** The switch's long-running ip process; null on a machine without stdbuf (a process per read then). */
    private final BatchSession session;
    private long[] last;
    private long lastNanos;
    /** Reads run as a process of their own (without stdbuf). */
    private long processReads;

    KernelCounters(Iproute2 ip, PortNames names, LongSupplier nanoClock) {
        this.ip = ip;
        this.names = names;
        this.nanoClock = nanoClock;
        this.session = BatchSession.stdbuf() == null ? null : new BatchSession(ip, "ip", "-s", "-j");
    }

    @Override
    public synchronized PortCounters read(int firstPort, int lastPort) throws IOException {
        long now = nanoClock.getAsLong();
        if (last == null || now - lastNanos > REUSE_MS * 1_000_000) {
            last = parse(show(), names);
            lastNanos = now;
        }
        return new PortCounters(firstPort, Arrays.copyOfRange(last, (firstPort - 1) * PortCounters.FIELDS,
                lastPort * PortCounters.FIELDS));
    }

    /** The JSON of {@code ip -s -j link show} in the switch's namespace. */
    private String show() throws IOException {
        String where = ip.netns().isEmpty() ? "" : " in namespace " + ip.netns();
        if (session != null) {
            BatchSession.Answer a = session.run(List.of(), "link show");
            if (a.shown() == null) {
                throw new IOException("ip -s -j link show" + where + " failed: " + a.showError());
            }
            return a.shown();
        }
        processReads++;
        Iproute2.Result r = ip.run("ip", "-s", "-j", "link", "show");
        if (!r.ok()) {
            throw new IOException("ip -s -j link show" + where + " failed (exit " + r.exit() + "): " + r.firstLine());
        }
        return r.output();
    }

    /** Processes started for the reads so far (one per read without stdbuf). */
    synchronized long processesStarted() {
        return session == null ? processReads : session.processesStarted();
    }

    /** Ends the switch's ip process. */
    @Override
    public synchronized void close() {
        if (session != null) {
            session.close();
        }
    }

    /**
     * The counters of every port 1..portCount from the JSON of {@code ip -s -j link show}, port after port
     * ({@link PortCounters#FIELDS} each); {@link PortCounters#UNAVAILABLE} for a port whose interface is not listed.
     *
     * @throws IOException when the output is not that JSON
     */
    static long[] parse(String json, PortNames names) throws IOException {
        long[] values = new long[names.portCount() * PortCounters.FIELDS];
        Arrays.fill(values, PortCounters.UNAVAILABLE);
        JsonNode all;
        try {
            all = JSON.readTree(json);
        } catch (IOException e) {
            throw new IOException("ip -s -j link show: not JSON: " + e.getMessage(), e);
        }
        if (all == null || !all.isArray()) {
            throw new IOException("ip -s -j link show: expected a JSON array of links");
        }
        for (JsonNode link : all) {
            int port = names.port(link.path("ifname").asText(""));
            JsonNode stats = link.has("stats64") ? link.path("stats64") : link.path("stats");
            if (port == 0 || !stats.isObject()) {
                continue;
            }
            int at = (port - 1) * PortCounters.FIELDS;
            put(values, at, PortCounter.RX_PACKETS, stats.path("rx").path("packets"));
            put(values, at, PortCounter.TX_PACKETS, stats.path("tx").path("packets"));
            put(values, at, PortCounter.RX_BYTES, stats.path("rx").path("bytes"));
            put(values, at, PortCounter.TX_BYTES, stats.path("tx").path("bytes"));
            put(values, at, PortCounter.RX_ERRORS, stats.path("rx").path("errors"));
            put(values, at, PortCounter.TX_ERRORS, stats.path("tx").path("errors"));
            put(values, at, PortCounter.RX_DROPS, stats.path("rx").path("dropped"));
            put(values, at, PortCounter.TX_DROPS, stats.path("tx").path("dropped"));
        }
        return values;
    }

    private static void put(long[] values, int at, PortCounter c, JsonNode n) {
        // the kernel's counters are unsigned 64-bit: Jackson gives those above 2^63 as a BigInteger
        if (n.isIntegralNumber()) {
            values[at + c.ordinal()] = n.bigIntegerValue().longValue();
        }
    }
}
