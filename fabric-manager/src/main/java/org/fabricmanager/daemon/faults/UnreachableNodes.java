package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.daemon.routing.NodeImpact;
import org.fabricmanager.topology.EndNode;

/**
 * The end nodes no route reaches any more (their leaf died, their node link failed, their leaf lost every link to the
 * rest of the fabric), from the routings installed since start. Each installed routing gives at most one {@code
 * NODE_UNREACHABLE} milestone naming every node it cut off and one {@code NODE_REACHABLE} for those back, never one per
 * node: a leaf's death with its 32 nodes is one event, and routings come at most once per settle window, so a fault
 * storm at 5,120 switches does not flood the events. Events name at most {@value #NAMED} nodes in their figures and
 * {@value ReactionImpact#IN_TEXT} in their text, with the count. Control thread only.
 */
public final class UnreachableNodes {
    /** Nodes named in an event's figures and in the faults view. */
    static final int NAMED = 256;
    /**
     * Nodes kept: more than the unicast LID space (49,151 addresses) can hold, so that no report can
     * grow the map without bound.
     */
    static final int MAX_KEPT = 65_536;

    private final MilestoneLog milestones;
    /** By GUID, in the order they were cut off. */
    private final Map<Long, EndNode> unreachable = new LinkedHashMap<>();

    UnreachableNodes(MilestoneLog milestones) {
        this.milestones = milestones;
    }

    /** A routing was installed with {@code impact}: records and announces the nodes it cut off and those back. */
    public void installed(NodeImpact impact) {
        List<EndNode> lost = new ArrayList<>();
        for (EndNode n : impact.cutOff()) {
            if (!unreachable.containsKey(n.guid()) && unreachable.size() < MAX_KEPT) {
                unreachable.put(n.guid(), n);
                lost.add(n);
            }
        }
        List<EndNode> back = new ArrayList<>();
        for (EndNode n : impact.attached()) {
            EndNode was = unreachable.remove(n.guid());
            if (was != null) {
                back.add(n);
            }
        }
        if (!lost.isEmpty()) {
            announce(Milestone.Kind.NODE_UNREACHABLE, lost, "no route reaches them");
        }
        if (!back.isEmpty()) {
            announce(Milestone.Kind.NODE_REACHABLE, back, "routed again");
        }
    }

    private void announce(Milestone.Kind kind, List<EndNode> nodes, String what) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("count", nodes.size());
        d.put("nodes", ReactionImpact.named(nodes, NAMED));
        d.put("unreachableNow", unreachable.size());
        milestones.record(kind, String.format("%d end node%s %s: %s (%d unreachable now)", nodes.size(),
                nodes.size() == 1 ? "" : "s", what, ReactionImpact.names(nodes, ReactionImpact.IN_TEXT),
                unreachable.size()), d);
    }

    /** End nodes unreachable now. */
    public int count() {
        return unreachable.size();
    }

    /** Up to {@value #NAMED} of the unreachable nodes, in the order they were cut off. */
    public List<EndNode> sample() {
        List<EndNode> out = new ArrayList<>();
        for (EndNode n : unreachable.values()) {
            if (out.size() == NAMED) {
                break;
            }
            out.add(n);
        }
        return out;
    }
}
