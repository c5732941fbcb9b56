package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * An immutable snapshot of a fabric: switches, end nodes and the links between their ports, plus
 * the shape it is expected to be, if known: a PGFT or a 2-D fat tree (HDFT), never both.
 * Construction validates every rule of
 * {@code fabric-topology/1}: unique GUIDs and destination indices, links between known GUIDs, ports
 * within range and used at most once, at most one link per node. Algorithms work on the
 * {@link #index() indexed view}.
 */
public final class Fabric {
    /** InfiniBand's largest LMC (3 bits of PortInfo): 128 LIDs per port. */
    public static final int MAX_LMC = 7;

    private final PgftSpec pgft;
    private final HdftSpec hdft;
    private final List<FabricSwitch> switches;
    private final List<EndNode> nodes;
    private final List<Link> links;
    /**
     * OpenSM's LMC of the end ports: each answers to 2^lmc LIDs, each a destination of its own ({@link FabricIndex}).
     * 0 for every fabric but an OpenSM subnet's with {@code lmc} set.
     */
    private final int lmc;
    /** GUID -> position in {@link #switches} / {@link #nodes}, without boxing (a fabric is rebuilt per change). */
    private final LongIntMap switchByGuid;
    private final LongIntMap nodeByGuid;
    private volatile FabricIndex index;
    /**
     * For a fabric derived by {@link #withChanges} with the same nodes: the index it was derived from,
     * the switches that went and the links that changed, so that {@link #index()} updates that index instead of
     * building one; dropped once the index exists.
     */
    private FabricIndex parentIndex;
    private IndexChange changeFromParent;

    /**
     * Builds and validates a fabric.
     *
     * @param pgft the expected PGFT, or {@code null} when unknown
     * @throws TopologyException naming the first offending entry
     */
    public Fabric(PgftSpec pgft, Collection<FabricSwitch> switches, Collection<EndNode> nodes, Collection<Link> links) {
        this(pgft, null, switches, nodes, links);
    }

    /**
     * Builds and validates a fabric with an expected shape of either family.
     *
     * @param pgft the expected PGFT, or {@code null}
     * @param hdft the expected 2-D fat tree, or {@code null}
     * @throws TopologyException when both shapes are given, or naming the first offending entry
     */
    public Fabric(PgftSpec pgft, HdftSpec hdft, Collection<FabricSwitch> switches, Collection<EndNode> nodes,
                  Collection<Link> links) {
        this(pgft, hdft, switches, nodes, links, 0);
    }

    /**
     * As {@link #Fabric(PgftSpec, HdftSpec, Collection, Collection, Collection)}, with every end port answering to
     * 2^{@code lmc} LIDs (OpenSM's {@code lmc}, 0..{@value #MAX_LMC}).
     *
     * @throws TopologyException also for an LMC outside 0..7
     */
    public Fabric(PgftSpec pgft, HdftSpec hdft, Collection<FabricSwitch> switches, Collection<EndNode> nodes,
                  Collection<Link> links, int lmc) {
        if (lmc < 0 || lmc > MAX_LMC) {
            throw new TopologyException("LMC " + lmc + " is outside 0.." + MAX_LMC);
        }
        this.lmc = lmc;
        if (pgft != null && hdft != null) {
            throw new TopologyException("a fabric cannot be expected to be both " + pgft + " and " + hdft);
        }
        this.pgft = pgft;
        this.hdft = hdft;
        this.switches = List.copyOf(switches);
        this.nodes = List.copyOf(nodes);
        this.links = List.copyOf(links);
        this.switchByGuid = new LongIntMap(this.switches.size());
        this.nodeByGuid = new LongIntMap(this.nodes.size());
        validate();
    }

    /**
     * A fabric derived from a valid one by {@link #withChanges}: nothing to validate again. The maps of the members
     * that did not change are shared (65,536 nodes at 5,120 switches: a switch's death or return does not copy them).
     */
    private Fabric(Fabric from, List<FabricSwitch> switches, List<EndNode> nodes, List<Link> links, boolean sameSwitches,
                   boolean sameNodes) {
        this.pgft = from.pgft;
        this.hdft = from.hdft;
        this.lmc = from.lmc;
        this.switches = switches;
        this.nodes = nodes;
        this.links = links;
        if (sameSwitches) {
            this.switchByGuid = from.switchByGuid;
        } else {
            this.switchByGuid = new LongIntMap(switches.size());
            for (int i = 0; i < switches.size(); i++) {
                switchByGuid.putIfAbsent(switches.get(i).guid(), i);
            }
        }
        if (sameNodes) {
            this.nodeByGuid = from.nodeByGuid;
        } else {
            this.nodeByGuid = new LongIntMap(nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                nodeByGuid.putIfAbsent(nodes.get(i).guid(), i);
            }
        }
    }

    /**
     * This fabric with switches, nodes and links taken away and links added, in one pass and without
     * validating again what was valid: a fault's change applied to the fabric in force costs a copy of the
     * link list, not a rebuild. Links touching a removed switch or node go with it. Removed links must be
     * links of this fabric; added links are checked as the constructor checks links (known ends, ports in
     * range, every port and node used at most once).
     *
     * @throws TopologyException naming the first removed link that is not there or added link that is invalid
     */
    public Fabric withChanges(Set<Long> removedSwitches, Set<Long> removedNodes, Collection<Link> removedLinks,
                              Collection<Link> addedLinks) {
        return withChanges(removedSwitches, removedNodes, removedLinks, List.of(), List.of(), addedLinks);
    }

    /**
     * As {@link #withChanges(Set, Set, Collection, Collection)}, with switches and end nodes joining too (a switch
     * that came back; a node whose link came back, with the destination index it had): {@code addedLinks} may use
     * their ports; the derived index gives switches their places in GUID order and nodes in destination-index order.
     *
     * @throws TopologyException also for an added switch or node whose GUID is already a switch's or a node's, or an
     *                           added node whose destination index a node of the fabric has
     */
    public Fabric withChanges(Set<Long> removedSwitches, Set<Long> removedNodes, Collection<Link> removedLinks,
                              Collection<FabricSwitch> addedSwitches, Collection<EndNode> addedNodes,
                              Collection<Link> addedLinks) {
        LongIntMap joining = new LongIntMap(addedSwitches.size() * 2 + 1);
        for (FabricSwitch sw : addedSwitches) {
            boolean present = isSwitch(sw.guid()) && !removedSwitches.contains(sw.guid());
            if (present || isNode(sw.guid()) || joining.putIfAbsent(sw.guid(), sw.ports()) != LongIntMap.ABSENT) {
                throw new TopologyException("added switch " + Guids.format(sw.guid()) + ": GUID already in the fabric");
            }
        }
        LongIntMap arriving = new LongIntMap(addedNodes.size() * 2 + 1);
        if (!addedNodes.isEmpty()) {
            FabricIndex before = index();
            Set<Integer> taken = new HashSet<>();
            for (EndNode n : addedNodes) {
                boolean present = isNode(n.guid()) && !removedNodes.contains(n.guid());
                if (present || isSwitch(n.guid()) && !removedSwitches.contains(n.guid()) || joining.containsKey(n.guid())
                        || arriving.putIfAbsent(n.guid(), n.index()) != LongIntMap.ABSENT) {
                    throw new TopologyException("added node " + Guids.format(n.guid()) + ": GUID already in the fabric");
                }
                int first = n.index() << lmc;
                int holder = first < before.destinationCount() ? before.nodeByDestination(first) : FabricIndex.NONE;
                if (!taken.add(n.index()) || holder != FabricIndex.NONE && !removedNodes.contains(before.nodeGuid(holder))) {
                    throw new TopologyException("added node " + Guids.format(n.guid()) + ": destination index "
                            + n.index() + " is another node's");
                }
            }
        }
        Set<Link> gone = new HashSet<>(removedLinks.size() * 2);
        // GUIDs whose links may go: a link touching none of them is kept without a set lookup (a fabric of
        // 5,120 switches has 200,000 links; a fault touches a handful)
        LongIntMap touched = new LongIntMap(removedLinks.size() * 2 + removedSwitches.size() + removedNodes.size() + 1);
        for (Link l : removedLinks) {
            gone.add(l.normalized());
            touched.putIfAbsent(l.a(), 0);
            touched.putIfAbsent(l.b(), 0);
        }
        for (long g : removedSwitches) {
            touched.putIfAbsent(g, 1);
        }
        for (long g : removedNodes) {
            touched.putIfAbsent(g, 1);
        }
        List<Link> kept = new ArrayList<>(links.size() + addedLinks.size());
        int removedFound = 0;
        for (Link l : links) {
            if (touched.size() > 0 && (touched.containsKey(l.a()) || touched.containsKey(l.b()))) {
                if (gone.contains(l.normalized())) {
                    removedFound++;
                    continue;
                }
                if (removedSwitches.contains(l.a()) || removedSwitches.contains(l.b()) || removedNodes.contains(l.a())
                        || removedNodes.contains(l.b())) {
                    continue;
                }
            }
            kept.add(l);
        }
        if (removedFound != gone.size()) {
            for (Link l : gone) {
                if (!links.contains(l) && !links.contains(new Link(l.b(), l.bPort(), l.a(), l.aPort()))) {
                    throw new TopologyException("link " + l + " to remove is not in the fabric");
                }
            }
        }
        boolean sameSwitches = removedSwitches.isEmpty() && addedSwitches.isEmpty();
        boolean sameNodes = removedNodes.isEmpty() && addedNodes.isEmpty();
        List<FabricSwitch> keptSwitches = switches;
        List<EndNode> keptNodes = nodes;
        if (!sameSwitches) {
            keptSwitches = new ArrayList<>(switches.size() + addedSwitches.size());
            for (FabricSwitch sw : switches) {
                if (!removedSwitches.contains(sw.guid())) {
                    keptSwitches.add(sw);
                }
            }
            keptSwitches.addAll(addedSwitches);
        }
        if (!sameNodes) {
            keptNodes = new ArrayList<>(nodes.size() + addedNodes.size());
            for (EndNode n : nodes) {
                if (!removedNodes.contains(n.guid())) {
                    keptNodes.add(n);
                }
            }
            keptNodes.addAll(addedNodes);
        }
        // ports the added links take, checked against the kept links through this fabric's index
        FabricIndex old = index();
        Set<PortRef> taken = new HashSet<>();
        for (Link l : addedLinks) {
            for (int end = 0; end < 2; end++) {
                long guid = end == 0 ? l.a() : l.b();
                int port = end == 0 ? l.aPort() : l.bPort();
                int joiningPorts = joining.get(guid);
                boolean isSwitch = isSwitch(guid) && !removedSwitches.contains(guid) || joiningPorts != LongIntMap.ABSENT;
                boolean isNode = isNode(guid) && !removedNodes.contains(guid) || arriving.containsKey(guid);
                if (!isSwitch && !isNode) {
                    throw new TopologyException("added link " + l + ": unknown GUID " + Guids.format(guid));
                }
                int ports = !isSwitch ? 0 : joiningPorts != LongIntMap.ABSENT ? joiningPorts
                        : switchByGuid(guid).orElseThrow().ports();
                if (isSwitch && (port < 1 || port > ports)) {
                    throw new TopologyException("added link " + l + ": port " + port + " outside the ports of switch "
                            + Guids.format(guid));
                }
                if (isNode && port != 1) {
                    throw new TopologyException("added link " + l + ": node " + Guids.format(guid) + " has only port 1");
                }
                if (!taken.add(new PortRef(guid, port)) || usedByKept(old, guid, port, gone, removedSwitches, removedNodes)) {
                    throw new TopologyException("added link " + l + ": " + Guids.format(guid) + ":" + port
                            + " is already in use");
                }
            }
            kept.add(l);
        }
        Fabric derived = new Fabric(this, sameSwitches ? switches : List.copyOf(keptSwitches),
                sameNodes ? nodes : List.copyOf(keptNodes), Collections.unmodifiableList(kept), sameSwitches, sameNodes);
        // its index is derived from this one's when first asked for (FabricIndex.derive), nodes removed included
        derived.parentIndex = old;
        derived.changeFromParent = new IndexChange(List.copyOf(removedSwitches), List.copyOf(addedSwitches),
                List.copyOf(removedNodes), List.copyOf(addedNodes), List.copyOf(gone), List.copyOf(addedLinks));
        return derived;
    }

    /** True when a link of this fabric that is kept uses {@code guid}'s port {@code port}. */
    private boolean usedByKept(FabricIndex old, long guid, int port, Set<Link> gone, Set<Long> removedSwitches,
                               Set<Long> removedNodes) {
        if (removedSwitches.contains(guid) || removedNodes.contains(guid)) {
            return false; // its kept links went with it (it may come back as an added switch)
        }
        long peer;
        int peerPort;
        int s = old.switchId(guid);
        if (s != FabricIndex.NONE) {
            if (old.peerSwitches(s)[port] != FabricIndex.NONE) {
                peer = old.switchGuid(old.peerSwitches(s)[port]);
                peerPort = old.peerPorts(s)[port];
            } else if (old.peerNodes(s)[port] != FabricIndex.NONE) {
                peer = old.nodeGuid(old.peerNodes(s)[port]);
                peerPort = 1;
            } else {
                return false;
            }
        } else {
            int n = old.nodePosition(guid);
            if (n == FabricIndex.NONE || old.nodeLeaf(n) == FabricIndex.NONE) {
                return false;
            }
            peer = old.switchGuid(old.nodeLeaf(n));
            peerPort = old.nodeLeafPort(n);
        }
        if (removedSwitches.contains(peer) || removedNodes.contains(peer)) {
            return false;
        }
        return !gone.contains(new Link(guid, port, peer, peerPort).normalized());
    }

    private void validate() {
        int[] portBase = new int[switches.size() + 1];
        for (int i = 0; i < switches.size(); i++) {
            FabricSwitch s = switches.get(i);
            if (switchByGuid.putIfAbsent(s.guid(), i) != LongIntMap.ABSENT) {
                throw new TopologyException("switches[" + i + "]: duplicate switch GUID " + Guids.format(s.guid()));
            }
            portBase[i + 1] = portBase[i] + s.ports() + 1;
        }
        int span = maxIndexSpan(nodes.size());
        BitSet indices = new BitSet();
        for (int i = 0; i < nodes.size(); i++) {
            EndNode n = nodes.get(i);
            if (switchByGuid.containsKey(n.guid())) {
                throw new TopologyException("nodes[" + i + "]: GUID " + Guids.format(n.guid()) + " is also a switch's GUID");
            }
            if (nodeByGuid.putIfAbsent(n.guid(), i) != LongIntMap.ABSENT) {
                throw new TopologyException("nodes[" + i + "]: duplicate node GUID " + Guids.format(n.guid()));
            }
            if (n.index() >= span) {
                throw new TopologyException("nodes[" + i + "] (" + Guids.format(n.guid()) + "): index " + n.index()
                        + " is too sparse for " + nodes.size() + " nodes (indices must stay below "
                        + span + ", every table has one entry per index)");
            }
            if (indices.get(n.index())) {
                throw new TopologyException("nodes[" + i + "] (" + Guids.format(n.guid()) + "): duplicate index " + n.index());
            }
            indices.set(n.index());
        }
        // the link using each switch port and each node, by position: arrays instead of a map of port keys
        int[] switchPortUse = new int[portBase[switches.size()]];
        int[] nodeUse = new int[nodes.size()];
        Arrays.fill(switchPortUse, -1);
        Arrays.fill(nodeUse, -1);
        for (int i = 0; i < links.size(); i++) {
            Link l = links.get(i);
            checkEnd(i, l, l.a(), l.aPort(), portBase, switchPortUse, nodeUse);
            checkEnd(i, l, l.b(), l.bPort(), portBase, switchPortUse, nodeUse);
        }
    }

    /**
     * Largest destination index + 1 accepted for {@code nodes} nodes. Every switch's table has one
     * entry per index up to the largest, so an index far above the node count would cost memory
     * for nothing (and near 2^31, more than any heap); indices may have gaps from departed nodes,
     * but not more gaps than nodes plus a margin.
     */
    public static int maxIndexSpan(int nodes) {
        return (int) Math.min(Integer.MAX_VALUE, 4L * nodes + 4096);
    }

    private void checkEnd(int i, Link l, long guid, int port, int[] portBase, int[] switchPortUse, int[] nodeUse) {
        int si = switchByGuid.get(guid);
        int ni = si == LongIntMap.ABSENT ? nodeByGuid.get(guid) : LongIntMap.ABSENT;
        if (si == LongIntMap.ABSENT && ni == LongIntMap.ABSENT) {
            throw new TopologyException("links[" + i + "] " + l + ": unknown GUID " + Guids.format(guid));
        }
        if (si != LongIntMap.ABSENT) {
            FabricSwitch s = switches.get(si);
            if (port < 1 || port > s.ports()) {
                throw new TopologyException("links[" + i + "] " + l + ": port " + port + " outside [1, " + s.ports()
                        + "] of switch " + Guids.format(guid) + " (" + s.name() + ")");
            }
            int previous = switchPortUse[portBase[si] + port];
            if (previous >= 0) {
                throw new TopologyException("links[" + i + "] " + l + ": port " + port + " of switch " + Guids.format(guid)
                        + " (" + s.name() + ") is used twice (also " + links.get(previous) + ")");
            }
            switchPortUse[portBase[si] + port] = i;
            return;
        }
        EndNode n = nodes.get(ni);
        if (port != 1) {
            throw new TopologyException("links[" + i + "] " + l + ": node " + Guids.format(guid) + " (" + n.name()
                    + ") has only port 1, got port " + port);
        }
        if (nodeUse[ni] >= 0) {
            throw new TopologyException("links[" + i + "] " + l + ": node " + Guids.format(guid) + " (" + n.name()
                    + ") has more than one link (also " + links.get(nodeUse[ni]) + ")");
        }
        nodeUse[ni] = i;
    }

    /** The expected PGFT shape, if known. */
    public Optional<PgftSpec> pgft() {
        return Optional.ofNullable(pgft);
    }

    /** The expected 2-D fat-tree shape, if known. */
    public Optional<HdftSpec> hdft() {
        return Optional.ofNullable(hdft);
    }

    /** Switches in the order they were given. */
    public List<FabricSwitch> switches() {
        return switches;
    }

    /** End nodes in the order they were given. */
    public List<EndNode> nodes() {
        return nodes;
    }

    /** Links in the order they were given. */
    public List<Link> links() {
        return links;
    }

    public Optional<FabricSwitch> switchByGuid(long guid) {
        int i = switchByGuid.get(guid);
        return i == LongIntMap.ABSENT ? Optional.empty() : Optional.of(switches.get(i));
    }

    public Optional<EndNode> nodeByGuid(long guid) {
        int i = nodeByGuid.get(guid);
        return i == LongIntMap.ABSENT ? Optional.empty() : Optional.of(nodes.get(i));
    }

    public boolean isSwitch(long guid) {
        return switchByGuid.containsKey(guid);
    }

    public boolean isNode(long guid) {
        return nodeByGuid.containsKey(guid);
    }

    /** The indexed view for algorithms, built once on first use. */
    public FabricIndex index() {
        FabricIndex i = index;
        if (i == null) {
            synchronized (this) {
                i = index;
                if (i == null) {
                    i = parentIndex != null ? FabricIndex.derive(this, parentIndex, changeFromParent)
                            : FabricIndex.of(this);
                    index = i;
                    parentIndex = null;
                    changeFromParent = null;
                }
            }
        }
        return i;
    }

    /** The LMC of the end ports: each answers to 2^lmc LIDs, each a destination (0: one LID, the base LID). */
    public int lmc() {
        return lmc;
    }

    /** This fabric with every end port answering to 2^{@code lmc} LIDs. */
    public Fabric withLmc(int lmc) {
        return lmc == this.lmc ? this : new Fabric(pgft, hdft, switches, nodes, links, lmc);
    }

    /** This fabric with another expected PGFT ({@code null} for none); a PGFT replaces an expected HDFT. */
    public Fabric withPgft(PgftSpec spec) {
        return new Fabric(spec, spec == null ? hdft : null, switches, nodes, links, lmc);
    }

    /** This fabric with another expected HDFT ({@code null} for none); an HDFT replaces an expected PGFT. */
    public Fabric withHdft(HdftSpec spec) {
        return new Fabric(spec == null ? pgft : null, spec, switches, nodes, links, lmc);
    }

    /** This fabric without the given links (compared end-order-insensitively); unknown links are ignored. */
    public Fabric withoutLinks(Collection<Link> removed) {
        Set<Link> gone = new HashSet<>();
        for (Link l : removed) {
            gone.add(l.normalized());
        }
        List<Link> kept = new ArrayList<>(links.size());
        for (Link l : links) {
            if (!gone.contains(l.normalized())) {
                kept.add(l);
            }
        }
        return new Fabric(pgft, hdft, switches, nodes, kept, lmc);
    }

    /** This fabric without the given switches and every link that touches them. */
    public Fabric withoutSwitches(Collection<Long> removedGuids) {
        Set<Long> gone = new HashSet<>(removedGuids);
        List<FabricSwitch> keptSwitches = new ArrayList<>(switches.size());
        for (FabricSwitch s : switches) {
            if (!gone.contains(s.guid())) {
                keptSwitches.add(s);
            }
        }
        List<Link> keptLinks = new ArrayList<>(links.size());
        for (Link l : links) {
            if (!gone.contains(l.a()) && !gone.contains(l.b())) {
                keptLinks.add(l);
            }
        }
        return new Fabric(pgft, hdft, keptSwitches, nodes, keptLinks, lmc);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Fabric f)) {
            return false;
        }
        return lmc == f.lmc && pgft().equals(f.pgft()) && hdft().equals(f.hdft())
                && new HashSet<>(switches).equals(new HashSet<>(f.switches))
                && new HashSet<>(nodes).equals(new HashSet<>(f.nodes))
                && normalizedLinks().equals(f.normalizedLinks());
    }

    private Set<Link> normalizedLinks() {
        Set<Link> set = new HashSet<>(links.size() * 2);
        for (Link l : links) {
            set.add(l.normalized());
        }
        return Collections.unmodifiableSet(set);
    }

    @Override
    public int hashCode() {
        return switches.size() * 31 * 31 + nodes.size() * 31 + links.size();
    }

    @Override
    public String toString() {
        return "Fabric[" + switches.size() + " switches, " + nodes.size() + " nodes, " + links.size() + " links"
                + (pgft == null ? "" : ", expected " + pgft) + (hdft == null ? "" : ", expected " + hdft)
                + (lmc == 0 ? "" : ", LMC " + lmc) + "]";
    }
}
