package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The InfiniBand LIDs of a fabric's switches and end nodes, and the port GUID each end node's LID
 * belongs to. InfiniBand (and OpenSM's table files) key forwarding entries by LID, our tables by
 * destination index; this plan is the bridge. It comes either from an {@code ibnetdiscover} dump
 * (the LIDs the running subnet manager assigned) or from {@link #sequential(Fabric)} for a
 * generated fabric. Unicast LIDs are 1..{@value #MAX_UNICAST_LID}: a fabric that needs more is
 * refused, since OpenSM could not address it.
 */
public final class LidPlan {
    /** The largest unicast LID (0xBFFF); 0xC000 and above are multicast. */
    public static final int MAX_UNICAST_LID = 0xBFFF;

    private final Map<Long, Integer> lidByGuid;
    private final Map<Long, Long> portGuidByGuid;
    private final Map<Integer, Long> guidByLid;
    /** The GUIDs that answer to 2^lmc LIDs from their base LID (end ports, under an LMC), with that count. */
    private final Map<Long, Integer> lidCountByGuid;
    private final int maxLid;

    /**
     * A plan from explicit LIDs ({@code lidByGuid}: switch and end-node GUIDs) and end-node port
     * GUIDs (absent: the port GUID is the node GUID, as for switches' port 0).
     *
     * @throws TopologyException when a LID is outside 1..0xBFFF or two GUIDs share one
     */
    public LidPlan(Map<Long, Integer> lidByGuid, Map<Long, Long> portGuidByGuid) {
        this(lidByGuid, portGuidByGuid, Map.of());
    }

    private LidPlan(Map<Long, Integer> lidByGuid, Map<Long, Long> portGuidByGuid, Map<Long, Integer> lidCounts) {
        this.lidByGuid = Map.copyOf(lidByGuid);
        this.portGuidByGuid = Map.copyOf(portGuidByGuid);
        this.lidCountByGuid = Map.copyOf(lidCounts);
        Map<Integer, Long> byLid = new HashMap<>();
        int max = 0;
        for (Map.Entry<Long, Integer> e : lidByGuid.entrySet()) {
            int base = e.getValue();
            int count = lidCounts.getOrDefault(e.getKey(), 1);
            if (base < 1 || base + count - 1 > MAX_UNICAST_LID) {
                throw new TopologyException((count == 1 ? "LID " + base : "LIDs " + base + ".." + (base + count - 1))
                        + " of " + Guids.format(e.getKey()) + " outside the unicast range 1.." + MAX_UNICAST_LID);
            }
            if (count > 1 && base % count != 0) {
                throw new TopologyException("base LID " + base + " of " + Guids.format(e.getKey()) + " is not a multiple"
                        + " of " + count + ", as its LMC needs (InfiniBand masks the path bits off the base LID)");
            }
            for (int lid = base; lid < base + count; lid++) {
                Long other = byLid.putIfAbsent(lid, e.getKey());
                if (other != null) {
                    throw new TopologyException("LID " + lid + " is given to both " + Guids.format(other) + " and "
                            + Guids.format(e.getKey()));
                }
            }
            max = Math.max(max, base + count - 1);
        }
        this.guidByLid = Collections.unmodifiableMap(byLid);
        this.maxLid = max;
    }

    /**
     * This plan with each of {@code endPorts} answering to 2^{@code lmc} LIDs from its base LID (OpenSM's {@code
     * lmc}): the base LID and the ones above it, the path bits. Switches keep one LID (base switch port 0 has no LMC).
     *
     * @throws TopologyException when an end port's LIDs would leave the unicast range, a base LID is not a multiple of
     *                           2^lmc, or two GUIDs would share a LID
     */
    public LidPlan withLmc(int lmc, Collection<Long> endPorts) {
        if (lmc < 0 || lmc > Fabric.MAX_LMC) {
            throw new TopologyException("LMC " + lmc + " is outside 0.." + Fabric.MAX_LMC);
        }
        Map<Long, Integer> counts = new HashMap<>();
        if (lmc > 0) {
            for (long guid : endPorts) {
                if (lidByGuid.containsKey(guid)) {
                    counts.put(guid, 1 << lmc);
                }
            }
        }
        return new LidPlan(lidByGuid, portGuidByGuid, counts);
    }

    /** How many LIDs {@code guid} answers to from its base LID: 2^lmc for an end port under an LMC, else 1. */
    public int lidCount(long guid) {
        return lidCountByGuid.getOrDefault(guid, 1);
    }

    /**
     * The documented LID plan of a fabric that has none (a generated PGFT or HDFT): switches
     * first, in ascending GUID order, from LID 1; then end nodes in destination-index order. Port
     * GUIDs are the node GUIDs.
     *
     * @throws TopologyException when the fabric needs more than 49,151 LIDs
     */
    public static LidPlan sequential(Fabric fabric) {
        requireFits(fabric);
        List<Long> switches = new ArrayList<>();
        fabric.switches().forEach(s -> switches.add(s.guid()));
        switches.sort(Long::compareUnsigned);
        List<EndNode> nodes = new ArrayList<>(fabric.nodes());
        nodes.sort((a, b) -> Integer.compare(a.index(), b.index()));
        Map<Long, Integer> lids = new HashMap<>();
        int next = 1;
        for (long guid : switches) {
            lids.put(guid, next++);
        }
        for (EndNode n : nodes) {
            lids.put(n.guid(), next++);
        }
        return new LidPlan(lids, Map.of());
    }

    /**
     * Refuses a fabric with more switches and end nodes than there are unicast LIDs
     * (e.g. PGFT(3;32,32,64;1,32,32;1,1,1): 65,536 nodes and 5,120 switches).
     */
    public static void requireFits(Fabric fabric) {
        long needed = (long) fabric.switches().size() + fabric.nodes().size();
        if (needed > MAX_UNICAST_LID) {
            throw new TopologyException(String.format("the fabric needs %,d LIDs (%,d switches + %,d nodes) but InfiniBand"
                    + " has %,d unicast LIDs: OpenSM cannot address it (our own southbound has no such limit)", needed,
                    fabric.switches().size(), fabric.nodes().size(), MAX_UNICAST_LID));
        }
    }

    /** The (base) LID of a switch or end node, if it has one. */
    public Optional<Integer> lid(long guid) {
        return Optional.ofNullable(lidByGuid.get(guid));
    }

    /** The switch or end node that answers to {@code lid} (an end port's extra LIDs included), if any. */
    public Optional<Long> guidOfLid(int lid) {
        return Optional.ofNullable(guidByLid.get(lid));
    }

    /** The port GUID behind a node's LID (the node GUID when no other was given). */
    public long portGuid(long guid) {
        return portGuidByGuid.getOrDefault(guid, guid);
    }

    /** The largest LID in the plan, an end port's path bits included (0 when empty). */
    public int maxLid() {
        return maxLid;
    }

    /** How many GUIDs have a LID. */
    public int size() {
        return lidByGuid.size();
    }

    /** The GUIDs of {@code fabric}'s switches and nodes that have no LID here. */
    public List<Long> missing(Fabric fabric) {
        List<Long> missing = new ArrayList<>();
        fabric.switches().forEach(s -> {
            if (!lidByGuid.containsKey(s.guid())) {
                missing.add(s.guid());
            }
        });
        fabric.nodes().forEach(n -> {
            if (!lidByGuid.containsKey(n.guid())) {
                missing.add(n.guid());
            }
        });
        return missing;
    }
}
