package org.fabricmanager.agent.linux;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.fabricmanager.southbound.PortRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Linux switch's port states as the kernel sees them: port {@code p} is up when its interface is administratively
 * up and has carrier ({@code UP} and {@code LOWER_UP}), and then its neighbour is the one the {@link Cabling} names.
 * It follows the kernel's link events ({@code ip -o monitor link}, one process per switch, each event read from
 * its line: no process starts per event) and reports each port whose record changed; when the monitor ends, the links cannot be read or the namespace's name is gone from
 * {@code /run/netns}, it says so once.
 */
public final class KernelPorts implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KernelPorts.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How often a switch namespace's name is looked for. */
    private static final long NAME_POLL_MS = 100;

    private final Iproute2 ip;
    private final PortNames names;
    private final Cabling cabling;
    private final long guid;
    private PortRecord[] last;
    private Process monitor;
    private volatile boolean closed;

    public KernelPorts(Iproute2 ip, PortNames names, Cabling cabling, long guid) {
        this.ip = ip;
        this.names = names;
        this.cabling = cabling;
        this.guid = guid;
    }

    /** Every port's record now (ports the kernel does not have are down). */
    public synchronized List<PortRecord> read() throws IOException {
        Iproute2.Result r = ip.run("ip", "-j", "link", "show");
        if (!r.ok()) {
            throw new IOException("ip link show" + (ip.netns().isEmpty() ? "" : " in " + ip.netns()) + " failed: "
                    + r.firstLine());
        }
        return parse(r.output());
    }

    /** The records of {@code ip -j link show} output. */
    List<PortRecord> parse(String json) throws IOException {
        PortRecord[] ports = new PortRecord[names.portCount() + 1];
        JsonNode all = JSON.readTree(json);
        if (all == null || !all.isArray()) {
            throw new IOException("ip link show: not a JSON array");
        }
        for (JsonNode link : all) {
            int p = names.port(link.path("ifname").asText(""));
            if (p == 0) {
                continue;
            }
            List<String> flags = new ArrayList<>();
            for (JsonNode f : link.path("flags")) {
                flags.add(f.asText());
            }
            ports[p] = up(flags) ? cabling.up(guid, p) : PortRecord.down(p);
        }
        List<PortRecord> list = new ArrayList<>(names.portCount());
        for (int p = 1; p <= names.portCount(); p++) {
            list.add(ports[p] == null ? PortRecord.down(p) : ports[p]);
        }
        return list;
    }

    /**
     * Starts following link events: from now on {@code changed} gets each port whose record changes, and {@code gone}
     * runs once when the links can no longer be read. Returns the records at start (read after the monitor started,
     * so that no change between the two is lost).
     */
    public synchronized List<PortRecord> follow(Consumer<PortRecord> changed, Runnable gone) throws IOException {
        monitor = ip.start("ip", "-o", "monitor", "link");
        List<PortRecord> now = read();
        last = now.toArray(new PortRecord[0]);
        Process p = monitor;
        Thread t = new Thread(() -> watch(p, changed, gone), "fm-linux-ports-" + (ip.netns().isEmpty() ? "host" : ip.netns()));
        t.setDaemon(true);
        t.start();
        if (!ip.netns().isEmpty()) {
            // a namespace removed after its links emits no event its monitor could see (and a process still inside
            // keeps the namespace alive): its name going is the switch's death
            Thread named = new Thread(() -> watchName(p), "fm-linux-netns-" + ip.netns());
            named.setDaemon(true);
            named.start();
        }
        return now;
    }

    /** Ends the monitor once the namespace's name is gone from {@code /run/netns}. */
    private void watchName(Process p) {
        Path name = Path.of("/run/netns", ip.netns());
        try {
            while (p.isAlive() && Files.exists(name)) {
                Thread.sleep(NAME_POLL_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.destroy();
    }

    private void watch(Process p, Consumer<PortRecord> changed, Runnable gone) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                // an event names the link and its flags: no process starts to read the kernel again
                PortRecord r = event(line);
                if (r == null) {
                    continue;
                }
                if (LOG.isDebugEnabled()) {
                    LOG.debug("{}: link event: port {} {}", where(), r.port(), r.isUp() ? "up" : "down");
                }
                report(r, changed);
            }
        } catch (IOException e) {
            LOG.debug("{}: link monitor ended: {}", ip.netns(), e.getMessage());
        }
        p.destroy();
        if (!closed) {
            gone.run();
        }
    }

    /**
     * The record of a switch port that one line of {@code ip -o monitor link} gives ({@code [Deleted ]N: NAME[@PEER]:
     * <FLAGS> ...}), or null when the line is about another interface or is not a link line. A deleted link is
     * down; a link is up when its flags hold {@code UP} and {@code LOWER_UP} but not {@code NO-CARRIER}.
     */
    PortRecord event(String line) {
        boolean deleted = line.startsWith("Deleted ");
        String t = deleted ? line.substring("Deleted ".length()) : line;
        int colon = t.indexOf(": ");
        int lt = t.indexOf('<');
        int gt = t.indexOf('>', lt + 1);
        if (colon < 0 || lt < colon || gt < 0) {
            return null;
        }
        String name = t.substring(colon + 2, lt).trim();
        if (name.endsWith(":")) {
            name = name.substring(0, name.length() - 1);
        }
        int at = name.indexOf('@');
        int p = names.port(at < 0 ? name : name.substring(0, at));
        if (p == 0) {
            return null;
        }
        return !deleted && up(List.of(t.substring(lt + 1, gt).split(","))) ? cabling.up(guid, p) : PortRecord.down(p);
    }

    /** A link carries traffic: administratively up with carrier. */
    private static boolean up(List<String> flags) {
        return flags.contains("UP") && flags.contains("LOWER_UP") && !flags.contains("NO-CARRIER");
    }

    /** Reports {@code r} when it differs from the port's last record. */
    private void report(PortRecord r, Consumer<PortRecord> changed) {
        synchronized (this) {
            if (r.equals(last[r.port() - 1])) {
                return;
            }
            last[r.port() - 1] = r;
        }
        changed.accept(r);
    }

    private String where() {
        return ip.netns().isEmpty() ? "switch ports" : ip.netns();
    }

    /** Stops following (the monitor process ends). */
    @Override
    public synchronized void close() {
        closed = true;
        if (monitor != null) {
            monitor.destroy();
        }
    }
}
