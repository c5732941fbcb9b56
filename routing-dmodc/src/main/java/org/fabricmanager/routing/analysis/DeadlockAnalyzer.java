package org.fabricmanager.routing.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.FabricIndex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the channel dependency graph (CDG) of all routes between attached nodes and looks for a
 * cycle: routes are deadlock-free when the graph is acyclic (Dally and Seitz). Channels are
 * switch-to-switch directed links times {@link VirtualChannels}; links from and to nodes are left
 * out because they can never be on a cycle (nothing enters a node's sending link, nothing leaves
 * a node's receiving link).
 *
 * <p>Dependencies are built per destination, not per pair: the routes of all sources to one
 * destination follow the same table entries, so a walk over the channels they use (each channel
 * once per destination) yields every dependency of those routes. That is O(destinations x
 * switches) rather than O(pairs x path length). Routes that dead-end or loop contribute the
 * dependencies of the part they do travel; a routing loop therefore shows up as a cycle. Cycle
 * detection is an iterative depth-first search, so it needs no deep call stack on large fabrics.
 */
public final class DeadlockAnalyzer {
    private static final Logger LOG = LoggerFactory.getLogger(DeadlockAnalyzer.class);

    private final RoutedFabric routed;
    private final VirtualChannels vcs;
    private final int threads;
    private final int vcCount;
    private final int channelCount;
    // Per channel: first word of its successor bitset (bits = (out port) * vcCount + out vc).
    private final int[] depStart;
    private final BooleanSupplier abandon;

    public DeadlockAnalyzer(RoutedFabric routed, VirtualChannels vcs, int threads) {
        this(routed, vcs, threads, () -> false);
    }

    /**
     * An analyzer that gives up (throws {@link org.fabricmanager.routing.AbandonedException}) at the next block
     * of destinations once {@code abandon} is true.
     */
    public DeadlockAnalyzer(RoutedFabric routed, VirtualChannels vcs, int threads, BooleanSupplier abandon) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        if (vcs.count() < 1) {
            throw new IllegalArgumentException("virtual channel count must be at least 1, got " + vcs.count());
        }
        this.routed = routed;
        this.abandon = abandon;
        this.vcs = vcs;
        this.threads = threads;
        this.vcCount = vcs.count();
        DirectedLinks links = routed.links();
        this.channelCount = Math.multiplyExact(links.count(), vcCount);
        this.depStart = new int[channelCount + 1];
        FabricIndex index = routed.index();
        long words = 0;
        for (int c = 0; c < channelCount; c++) {
            depStart[c] = Math.toIntExact(words);
            int u = links.peerSwitch(c / vcCount);
            if (u != FabricIndex.NONE) {
                words += ((long) (index.switchPorts(u) + 1) * vcCount + 63) >>> 6;
            }
        }
        depStart[channelCount] = Math.toIntExact(words);
    }

    /** Single virtual channel, one thread. */
    public DeadlockAnalyzer(RoutedFabric routed) {
        this(routed, VirtualChannels.single(), 1);
    }

    /** Builds the graph and searches it for a cycle. */
    public DeadlockReport analyze() {
        long t0 = System.nanoTime();
        List<Builder> workers = DestinationWorker.runAll(routed, threads, "deadlock", abandon, Builder::new);
        long[] deps = workers.get(0).deps;
        long[] used = workers.get(0).used;
        for (int w = 1; w < workers.size(); w++) {
            or(deps, workers.get(w).deps);
            or(used, workers.get(w).used);
        }
        long dependencies = 0;
        for (long word : deps) {
            dependencies += Long.bitCount(word);
        }
        int usedChannels = 0;
        for (long word : used) {
            usedChannels += Long.bitCount(word);
        }
        int switchChannels = 0;
        for (int l = 0; l < routed.links().count(); l++) {
            if (routed.links().isSwitchLink(l)) {
                switchChannels += vcCount;
            }
        }
        List<Channel> cycle = findCycle(deps);
        LOG.debug("channel dependency graph: {} of {} channels used, {} dependencies, {} in {} ms", usedChannels,
                switchChannels, dependencies, cycle.isEmpty() ? "acyclic" : "cycle of " + cycle.size(),
                (System.nanoTime() - t0) / 1_000_000);
        return new DeadlockReport(switchChannels, usedChannels, dependencies, cycle);
    }

    private static void or(long[] into, long[] from) {
        for (int i = 0; i < into.length; i++) {
            into[i] |= from[i];
        }
    }

    /** Builds the dependencies of the destinations of the blocks it is given. */
    private final class Builder extends DestinationWorker {
        final long[] deps = new long[depStart[channelCount]];
        final long[] used = new long[(channelCount + 63) >>> 6];
        // Per (switch, vc): marks the switch's out-channel for the current destination as queued.
        // A switch has one output per destination, so this names the channel, in a much smaller array.
        private final int[] stamp = new int[routed.index().switchCount() * vcCount];
        private final int[] work = new int[channelCount];

        Builder() {
            super(routed);
        }

        @Override
        void destination(int d, int j, int dLeaf) {
            FabricIndex index = routed.index();
            DirectedLinks links = routed.links();
            int[] linkStart = links.startArray();
            int[] peerSwitch = links.peerSwitchArray();
            int[] peerPort = links.peerPortArray();
            int[] attached = routed.attachedPerSwitchArray();
            int mark = d + 1;
            int top = 0;
            for (int leaf : index.leaves()) {
                int sources = attached[leaf] - (leaf == dLeaf ? 1 : 0);
                if (sources == 0) {
                    continue;
                }
                int port = block.port(leaf, j);
                if (port == ForwardingTables.NO_ROUTE || port > index.switchPorts(leaf)) {
                    continue;
                }
                int link = linkStart[leaf] + port - 1;
                if (peerSwitch[link] == FabricIndex.NONE) {
                    continue;
                }
                int vc = vcs.first(leaf, port, d);
                if (stamp[leaf * vcCount + vc] != mark) {
                    stamp[leaf * vcCount + vc] = mark;
                    work[top++] = link * vcCount + vc;
                }
            }
            while (top > 0) {
                int c = work[--top];
                used[c >>> 6] |= 1L << c;
                int link = c / vcCount;
                int u = peerSwitch[link];
                int port = block.port(u, j);
                if (port == ForwardingTables.NO_ROUTE || port > index.switchPorts(u)) {
                    continue;
                }
                int out = linkStart[u] + port - 1;
                if (peerSwitch[out] == FabricIndex.NONE) {
                    continue;
                }
                int vc = vcs.next(u, peerPort[link], c - link * vcCount, port, d);
                int bit = port * vcCount + vc;
                deps[depStart[c] + (bit >>> 6)] |= 1L << bit;
                if (stamp[u * vcCount + vc] != mark) {
                    stamp[u * vcCount + vc] = mark;
                    work[top++] = out * vcCount + vc;
                }
            }
        }
    }

    /** Iterative DFS (white/grey/black); returns the first cycle found, as channels. */
    private List<Channel> findCycle(long[] deps) {
        byte[] colour = new byte[channelCount];
        int[] stack = new int[channelCount];
        int[] cursor = new int[channelCount];
        int[] depth = new int[channelCount];
        for (int root = 0; root < channelCount; root++) {
            if (colour[root] != 0 || depStart[root] == depStart[root + 1]) {
                continue;
            }
            int top = 0;
            stack[0] = root;
            cursor[0] = 0;
            depth[root] = 0;
            colour[root] = 1;
            while (top >= 0) {
                int c = stack[top];
                int bit = nextBit(deps, c, cursor[top]);
                if (bit < 0) {
                    colour[c] = 2;
                    top--;
                    continue;
                }
                cursor[top] = bit + 1;
                int next = successor(c, bit);
                if (colour[next] == 1) {
                    List<Channel> cycle = new ArrayList<>();
                    for (int i = depth[next]; i <= top; i++) {
                        cycle.add(channel(stack[i]));
                    }
                    return cycle;
                }
                if (colour[next] == 0) {
                    colour[next] = 1;
                    top++;
                    stack[top] = next;
                    cursor[top] = 0;
                    depth[next] = top;
                }
            }
        }
        return List.of();
    }

    private int nextBit(long[] deps, int c, int from) {
        int start = depStart[c];
        int end = depStart[c + 1];
        int w = start + (from >>> 6);
        if (w >= end) {
            return -1;
        }
        long word = deps[w] & (-1L << from);
        while (true) {
            if (word != 0) {
                return ((w - start) << 6) + Long.numberOfTrailingZeros(word);
            }
            if (++w >= end) {
                return -1;
            }
            word = deps[w];
        }
    }

    private int successor(int c, int bit) {
        DirectedLinks links = routed.links();
        int u = links.peerSwitch(c / vcCount);
        int port = bit / vcCount;
        return links.id(u, port) * vcCount + bit % vcCount;
    }

    private Channel channel(int c) {
        DirectedLinks links = routed.links();
        FabricIndex index = routed.index();
        int link = c / vcCount;
        return new Channel(index.switchGuid(links.sourceSwitch(link)), links.port(link),
                index.switchGuid(links.peerSwitch(link)), links.peerPort(link), c % vcCount);
    }
}
