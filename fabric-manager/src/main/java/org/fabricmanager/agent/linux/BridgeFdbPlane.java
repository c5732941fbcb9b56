package org.fabricmanager.agent.linux;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabricmanager.agent.AppliedTable;
import org.fabricmanager.agent.ForwardingPlane;
import org.fabricmanager.agent.PortCounterSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Linux bridge's static forwarding database as a switch's forwarding table: destination index {@code d} routed to
 * port {@code p} is the static FDB entry {@link DestinationAddresses#mac(int) mac(d)} on the bridge port of port
 * {@code p}; a destination without a route has no entry (with flooding off, its packets are dropped). An install
 * sends what differs from what the kernel holds to the switch's long-running {@code bridge -batch} process
 * ({@link BatchSession}: no process starts per commit; entries {@code replace}d, entries without a route
 * {@code del}eted), then reads the database back through the same process and returns only when it holds exactly
 * the new table. The changes reach the kernel before the read-back, so traffic moves at once; the read-back delays
 * only the acknowledgement. Without stdbuf it starts one {@code bridge -batch} and one read-back per commit. Any failure (the batch's exit, a difference read back, a namespace or bridge gone) is an
 * {@link InstallException}, and the next install starts from a fresh read of the kernel.
 *
 * <p>Entries of MACs outside the destination range (the ports' own addresses, multicast) are left alone.
 */
public final class BridgeFdbPlane implements ForwardingPlane, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BridgeFdbPlane.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int NO_ROUTE = 255;

    private final Iproute2 ip;
    private final String bridge;
    private final PortNames names;
    /** What the kernel held after the last read or verified install, by destination index; null: not known. */
    private int[] kernel;
    private long batches;
    /** The switch's long-running bridge process; null on a machine without stdbuf (a process per commit then). */
    private final BatchSession session;
    private final KernelCounters counters;

    /**
     * @param ip     iproute2 in the switch's namespace
     * @param bridge the bridge's name
     * @param names  the bridge port of each switch port
     */
    public BridgeFdbPlane(Iproute2 ip, String bridge, PortNames names) {
        LinuxNames.requireInterface("bridge", bridge);
        this.ip = ip;
        this.bridge = bridge;
        this.names = names;
        this.session = BatchSession.stdbuf() == null ? null : new BatchSession(ip, "bridge", "-j");
        this.counters = new KernelCounters(ip, names, System::nanoTime);
    }

    /** The kernel's statistics of the ports' interfaces ({@link KernelCounters}). */
    @Override
    public PortCounterSource counters() {
        return counters;
    }

    /** The {@code bridge -batch} runs that changed entries since construction. */
    public synchronized long batches() {
        return batches;
    }

    @Override
    public synchronized void install(AppliedTable held, AppliedTable next) throws InstallException {
        long start = System.nanoTime();
        try {
            if (kernel == null) {
                kernel = read();
            }
            List<String> lines = changes(kernel, next);
            int[] now;
            if (session != null) {
                now = applyInSession(lines);
            } else {
                applyInProcess(lines);
                now = read();
            }
            kernel = now;
            int d = firstDifference(now, next);
            if (d >= 0) {
                kernel = null;
                throw new InstallException(where() + ": read back, destination " + d + " (" + DestinationAddresses.mac(d)
                        + ") is on " + describe(d < now.length ? now[d] : NO_ROUTE) + ", the table says "
                        + describe(next.port(d)));
            }
            if (LOG.isDebugEnabled()) {
                LOG.debug("{}: {} changes applied and read back in {} us", where(), lines.size(),
                        (System.nanoTime() - start) / 1000);
            }
        } catch (IOException e) {
            kernel = null;
            throw new InstallException(where() + ": " + e.getMessage(), e);
        }
    }

    /** The changes and the read-back in the switch's bridge process; returns what the kernel holds after them. */
    private int[] applyInSession(List<String> lines) throws IOException, InstallException {
        BatchSession.Answer a = session.run(lines, "fdb show br " + bridge);
        if (!lines.isEmpty()) {
            batches++;
        }
        if (!a.errors().isEmpty()) {
            kernel = null;
            throw new InstallException(where() + ": bridge -batch of " + lines.size() + " changes failed: "
                    + a.errors().get(0) + (a.errors().size() > 1 ? " (and " + (a.errors().size() - 1) + " more)" : ""));
        }
        if (a.shown() == null) {
            throw new InstallException(where() + ": bridge fdb show failed: " + a.showError());
        }
        return parse(a.shown());
    }

    /** The changes as one {@code bridge -batch} process (a machine without stdbuf). */
    private void applyInProcess(List<String> lines) throws IOException, InstallException {
        if (lines.isEmpty()) {
            return;
        }
        Iproute2.Result r = ip.batch("bridge", lines);
        batches++;
        if (!r.ok()) {
            kernel = null;
            throw new InstallException(where() + ": bridge -batch of " + lines.size() + " changes failed: "
                    + r.firstLine());
        }
    }

    /** The batch lines that turn {@code held} (the kernel's entries by index) into {@code next}. */
    List<String> changes(int[] held, AppliedTable next) {
        List<String> lines = new ArrayList<>();
        int n = Math.max(held.length, next.length());
        for (int d = 0; d < n; d++) {
            int have = d < held.length ? held[d] : NO_ROUTE;
            int want = next.port(d);
            if (want == NO_ROUTE || want > names.portCount()) {
                want = NO_ROUTE;
            }
            if (have == want) {
                continue;
            }
            String mac = DestinationAddresses.mac(d);
            if (want == NO_ROUTE) {
                lines.add("fdb del " + mac + " dev " + names.name(have) + " master");
            } else {
                lines.add("fdb replace " + mac + " dev " + names.name(want) + " master static");
            }
        }
        return lines;
    }

    /** The first destination where {@code kernel} and {@code table} differ, or -1. */
    private int firstDifference(int[] kernelNow, AppliedTable table) {
        int n = Math.max(kernelNow.length, table.length());
        for (int d = 0; d < n; d++) {
            int have = d < kernelNow.length ? kernelNow[d] : NO_ROUTE;
            int want = table.port(d) > names.portCount() ? NO_ROUTE : table.port(d);
            if (have != want) {
                return d;
            }
        }
        return -1;
    }

    /** The bridge's destination entries, port by destination index (255: none); an entry on a foreign device is 0. */
    int[] read() throws IOException, InstallException {
        if (session != null) {
            return applyInSession(List.of());
        }
        Iproute2.Result r = ip.run("bridge", "-j", "fdb", "show", "br", bridge);
        if (!r.ok()) {
            throw new InstallException(where() + ": bridge fdb show failed: " + r.firstLine());
        }
        return parse(r.output());
    }

    /** The destination entries of {@code bridge -j fdb show} output. */
    int[] parse(String json) throws IOException {
        int[] ports = new int[0];
        JsonNode all = JSON.readTree(json);
        if (all == null || !all.isArray()) {
            throw new IOException("bridge fdb show: not a JSON array");
        }
        for (JsonNode e : all) {
            int d = DestinationAddresses.index(e.path("mac").asText(""));
            if (d < 0 || !bridge.equals(e.path("master").asText(""))) {
                continue;
            }
            if (d >= ports.length) {
                int old = ports.length;
                ports = Arrays.copyOf(ports, Math.max(d + 1, old * 2));
                Arrays.fill(ports, old, ports.length, NO_ROUTE);
            }
            ports[d] = names.port(e.path("ifname").asText(""));
        }
        return ports;
    }

    private String describe(int port) {
        return port == NO_ROUTE ? "no port" : port == 0 ? "a device that is no switch port" : names.name(port);
    }

    private String where() {
        return "bridge " + bridge + (ip.netns().isEmpty() ? "" : " in " + ip.netns());
    }

    /** Ends the switch's bridge process and its counters' ip process. */
    @Override
    public synchronized void close() {
        if (session != null) {
            session.close();
        }
        counters.close();
    }
}
