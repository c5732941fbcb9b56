package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.routing.NodeImpact;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Guids;

/**
 * The end nodes one fault reaction cut off, attached again and moved, over all the routings it installed: a node cut
 * off and back within the reaction is neither; moved destinations are the union of each routing's. The named lists are
 * bounded ({@value #NAMED} nodes in the figures, {@value #IN_TEXT} in the event's text), the counts are not. Control
 * thread only.
 */
final class ReactionImpact {
    /** Nodes named in a reaction's figures: a leaf of 32 or 64 nodes in full, never a whole fabric. */
    static final int NAMED = 64;
    /** Nodes named in a reaction's text line. */
    static final int IN_TEXT = 8;

    private final Map<Long, EndNode> cutOff = new LinkedHashMap<>();
    private final Map<Long, EndNode> attached = new LinkedHashMap<>();
    private final BitSet moved = new BitSet();
    private final Map<Integer, EndNode> movedSample = new LinkedHashMap<>();
    private boolean known;

    /** A routing of the reaction was installed with {@code impact}. */
    void add(NodeImpact impact) {
        known = true;
        for (EndNode n : impact.cutOff()) {
            if (attached.remove(n.guid()) == null) {
                cutOff.put(n.guid(), n);
            }
        }
        for (EndNode n : impact.attached()) {
            if (cutOff.remove(n.guid()) == null) {
                attached.put(n.guid(), n);
            }
        }
        impact.addMovedTo(moved);
        for (EndNode n : impact.movedSample()) {
            if (movedSample.size() < NodeImpact.MOVED_SAMPLE) {
                movedSample.putIfAbsent(n.index(), n);
            }
        }
    }

    /** Adds the reaction's node figures to {@code d} (nothing when no routing of it was installed). */
    void figures(Map<String, Object> d) {
        if (!known) {
            return;
        }
        d.put("nodesCutOff", cutOff.size());
        d.put("cutOffNodes", named(cutOff.values(), NAMED));
        d.put("nodesAttached", attached.size());
        d.put("attachedNodes", named(attached.values(), NAMED));
        d.put("nodesMoved", moved.cardinality());
        d.put("movedNodes", named(movedSample.values(), NodeImpact.MOVED_SAMPLE));
    }

    /** ", 32 end nodes cut off (node-1, node-2, ...), 480 moved", or "" when no routing was installed. */
    String text() {
        if (!known) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        if (!cutOff.isEmpty()) {
            sb.append(", ").append(cutOff.size()).append(" end nodes cut off (").append(names(cutOff.values(), IN_TEXT))
                    .append(')');
        }
        if (!attached.isEmpty()) {
            sb.append(", ").append(attached.size()).append(" attached again");
        }
        sb.append(", ").append(moved.cardinality()).append(" end nodes' routes moved");
        return sb.toString();
    }

    /** Up to {@code max} nodes as {@code {guid, name, index}} maps, for the figures' JSON. */
    static List<Map<String, Object>> named(Iterable<EndNode> nodes, int max) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (EndNode n : nodes) {
            if (out.size() == max) {
                break;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("guid", Guids.format(n.guid()));
            m.put("name", n.name());
            m.put("index", n.index());
            out.add(m);
        }
        return out;
    }

    /** "a, b, c and 29 more": the first {@code max} names of {@code nodes}. */
    static String names(Collection<EndNode> nodes, int max) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        for (EndNode n : nodes) {
            if (i == max) {
                break;
            }
            sb.append(i++ == 0 ? "" : ", ").append(n.name());
        }
        if (nodes.size() > max) {
            sb.append(" and ").append(nodes.size() - max).append(" more");
        }
        return sb.toString();
    }
}
