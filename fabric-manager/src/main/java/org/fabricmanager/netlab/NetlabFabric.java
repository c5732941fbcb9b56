package org.fabricmanager.netlab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.fabricmanager.agent.linux.DestinationAddresses;
import org.fabricmanager.agent.linux.Iproute2;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;

/**
 * Makes and removes the namespaces of a netlab: one per switch and per end node, a veth pair per cable (port
 * {@code p} of a switch is {@code p<p>}, a node's end {@code eth0}), every interface up, IPv6 off (so that nothing
 * but the lab's own traffic crosses the switches) and ICMP errors off in the nodes (a probe sent to a closed UDP port
 * is not answered back through the fabric). Once the daemon has given the nodes their destination indices, each
 * node gets its destination MAC and address and a static neighbour entry for every other node. Everything goes
 * through iproute2 batches: a few processes per namespace, never one per entry.
 */
public final class NetlabFabric {
    private static final Iproute2 ROOT = new Iproute2("");
    /**
     * Most commands per {@code ip -batch} that makes namespaces and cables: iproute2 keeps open the two namespace files
     * each {@code link add ... netns A ... peer ... netns B} names, so one batch of all 12,288 cables of a 768-switch
     * lab ran out of file descriptors (20,000 here) and stopped; 400 commands stay below even a limit of 1,024.
     */
    static final int COMMANDS_PER_BATCH = 400;

    private final NetlabNames names;
    private final Fabric fabric;

    public NetlabFabric(NetlabNames names, Fabric fabric) {
        this.names = names;
        this.fabric = fabric;
    }

    /** The namespace of each end node, by GUID (named by the node's index in the canonical fabric). */
    public Map<Long, String> nodeNamespaces() {
        Map<Long, String> m = new HashMap<>();
        for (EndNode n : fabric.nodes()) {
            m.put(n.guid(), names.nodeNamespace(n.index()));
        }
        return m;
    }

    /** Creates every namespace and cable and brings the interfaces up. */
    public void create() throws IOException {
        Map<Long, String> nodeNs = nodeNamespaces();
        List<String> lines = new ArrayList<>();
        for (FabricSwitch s : fabric.switches()) {
            lines.add("netns add " + names.switchNamespace(s.guid()));
        }
        for (EndNode n : fabric.nodes()) {
            lines.add("netns add " + nodeNs.get(n.guid()));
        }
        for (Link l : fabric.links()) {
            lines.add("link add " + end(l.a(), l.aPort()) + " netns " + namespace(l.a(), nodeNs) + " type veth peer name "
                    + end(l.b(), l.bPort()) + " netns " + namespace(l.b(), nodeNs));
        }
        for (List<String> batch : batches(lines, COMMANDS_PER_BATCH)) {
            check(ROOT.batch("ip", batch), "creating the namespaces and cables");
        }
        List<Runnable> jobs = new ArrayList<>();
        for (FabricSwitch s : fabric.switches()) {
            String ns = names.switchNamespace(s.guid());
            List<String> up = new ArrayList<>();
            up.add("link set dev lo up");
            for (int p = 1; p <= s.ports(); p++) {
                up.add("link set dev " + NetlabNames.PORT_PREFIX + p + " up");
            }
            jobs.add(() -> prepare(ns, up, "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"));
        }
        for (EndNode n : fabric.nodes()) {
            String ns = nodeNs.get(n.guid());
            jobs.add(() -> prepare(ns, List.of("link set dev lo up", "link set dev " + NetlabNames.NODE_INTERFACE + " up"),
                    "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1",
                    // no ICMP error goes back through the fabric (a probe to a closed UDP port)
                    "net.ipv4.icmp_ratelimit=2000000000"));
        }
        parallel(jobs);
    }

    /** {@code lines} cut into consecutive batches of at most {@code size}, in order. */
    static List<List<String>> batches(List<String> lines, int size) {
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i += size) {
            out.add(lines.subList(i, Math.min(lines.size(), i + size)));
        }
        return out;
    }

    /** Gives each node its destination MAC and address, and static neighbours for every other node. */
    public void addressNodes(Map<Long, Integer> indexByGuid) throws IOException {
        Map<Long, String> nodeNs = nodeNamespaces();
        List<Runnable> jobs = new ArrayList<>();
        for (EndNode n : fabric.nodes()) {
            Integer index = indexByGuid.get(n.guid());
            if (index == null) {
                continue;
            }
            List<String> lines = new ArrayList<>();
            String dev = " dev " + NetlabNames.NODE_INTERFACE;
            lines.add("link set" + dev + " address " + DestinationAddresses.mac(index));
            lines.add("addr flush" + dev);
            lines.add("addr add " + DestinationAddresses.ipv4(index) + "/8" + dev);
            for (Map.Entry<Long, Integer> other : indexByGuid.entrySet()) {
                if (other.getKey() != n.guid()) {
                    lines.add("neigh replace " + DestinationAddresses.ipv4(other.getValue()) + " lladdr "
                            + DestinationAddresses.mac(other.getValue()) + dev + " nud permanent");
                }
            }
            String ns = nodeNs.get(n.guid());
            jobs.add(() -> uncheckedBatch(ns, lines, "addressing node " + n.name()));
        }
        parallel(jobs);
    }

    private void prepare(String ns, List<String> links, String... sysctls) {
        try {
            List<String> cmd = new ArrayList<>(List.of("netns", "exec", ns, "sysctl", "-qw"));
            cmd.addAll(List.of(sysctls));
            check(ROOT.run("ip", cmd.toArray(new String[0])), "sysctl in " + ns);
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        uncheckedBatch(ns, links, "bringing up the links of " + ns);
    }

    private static void uncheckedBatch(String ns, List<String> lines, String what) {
        try {
            check(new Iproute2(ns).batch("ip", lines), what);
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private String namespace(long guid, Map<Long, String> nodeNs) {
        return fabric.isSwitch(guid) ? names.switchNamespace(guid) : nodeNs.get(guid);
    }

    private String end(long guid, int port) {
        return fabric.isSwitch(guid) ? NetlabNames.PORT_PREFIX + port : NetlabNames.NODE_INTERFACE;
    }

    /**
     * Removes every namespace of the lab {@code names} (a running lab's, or a crashed one's): first each switch
     * namespace's links (which takes every cable down, even when a process still holds a namespace), then the
     * namespaces. Returns how many namespaces were removed.
     */
    public static int destroy(NetlabNames names) throws IOException {
        List<String> ours = namespaces(names);
        List<Runnable> jobs = new ArrayList<>();
        for (String ns : ours) {
            if (ns.startsWith(names.prefix() + "-s")) {
                jobs.add(() -> deleteLinks(ns));
            }
        }
        parallel(jobs);
        if (!ours.isEmpty()) {
            List<String> lines = new ArrayList<>();
            ours.forEach(ns -> lines.add("netns del " + ns));
            check(ROOT.batch("ip", lines), "removing the namespaces");
        }
        return ours.size();
    }

    /** Deletes the bridge and the port links of one switch namespace (a cable goes with either of its ends). */
    public static void deleteLinks(String ns) {
        try {
            Iproute2 ip = new Iproute2(ns);
            Iproute2.Result r = ip.run("ip", "-o", "link", "show");
            if (!r.ok()) {
                return;
            }
            List<String> lines = new ArrayList<>();
            for (String line : r.output().split("\n")) {
                String[] f = line.split(":\\s+", 3);
                if (f.length >= 2) {
                    String ifname = f[1].split("@")[0].trim();
                    if (!ifname.equals("lo")) {
                        lines.add("link del dev " + ifname);
                    }
                }
            }
            if (!lines.isEmpty()) {
                ip.batch("ip", lines);
            }
        } catch (IOException e) {
            // the namespace went meanwhile: nothing left to delete
        }
    }

    /** This lab's namespaces that exist now. */
    public static List<String> namespaces(NetlabNames names) throws IOException {
        Iproute2.Result r = ROOT.run("ip", "netns", "list");
        check(r, "listing the namespaces");
        List<String> ours = new ArrayList<>();
        for (String line : r.output().split("\n")) {
            String ns = line.trim().split("\\s+")[0];
            if (!ns.isEmpty() && names.owns(ns)) {
                ours.add(ns);
            }
        }
        return ours;
    }

    private static void check(Iproute2.Result r, String what) throws IOException {
        if (!r.ok()) {
            throw new IOException(what + " failed: " + r.firstLine());
        }
    }

    /** Runs {@code jobs} on a few threads (each starts processes; the machine's cores do the rest). */
    private static void parallel(List<Runnable> jobs) throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            jobs.forEach(j -> done.add(pool.submit(j)));
            for (Future<?> f : done) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            pool.shutdownNow();
        }
    }
}
