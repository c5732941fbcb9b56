package org.fabricmanager.routing;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The virtual-channel rules that go with some forwarding tables: for each switch (dense ids, as in
 * {@link ForwardingTables}) the class of each port and a short list of {@link VcTransition}s. The
 * channel a packet leaves a switch on depends only on the classes of its input and output ports and
 * on the channel it arrived on: a matching transition sets the channel, otherwise the packet keeps
 * it; packets from end nodes start on channel 0. This is what a switch's VL-arbitration setup needs,
 * so the daemon can push it next to the LFTs. Immutable.
 *
 * <p>Lookups for the analyses go through a per-switch class-by-class matrix, so {@link #next} costs
 * two array reads and allocates nothing.
 */
public final class VcRules {
    private static final int CLASSES = PortClass.values().length;
    private static final byte KEEP = -1;

    private final int vcCount;
    private final byte[][] portClasses;
    private final List<List<VcTransition>> transitions;
    private final byte[][] matrix;

    private VcRules(int vcCount, byte[][] portClasses, List<List<VcTransition>> transitions) {
        this.vcCount = vcCount;
        this.portClasses = portClasses;
        this.transitions = transitions;
        this.matrix = new byte[portClasses.length][];
        for (int s = 0; s < portClasses.length; s++) {
            byte[] m = new byte[CLASSES * CLASSES];
            Arrays.fill(m, KEEP);
            for (VcTransition t : transitions.get(s)) {
                m[t.from().ordinal() * CLASSES + t.to().ordinal()] = (byte) t.vc();
            }
            matrix[s] = m;
        }
    }

    /**
     * A builder for {@code portCounts.length} switches with {@code vcCount} channels, every port
     * {@link PortClass#OTHER} and no transition.
     */
    public static Builder builder(int[] portCounts, int vcCount) {
        return new Builder(portCounts, vcCount);
    }

    /** Virtual channels the rules use (channels are {@code 0..vcCount()-1}). */
    public int vcCount() {
        return vcCount;
    }

    public int switchCount() {
        return portClasses.length;
    }

    /** Ports of switch {@code s} (ports are 1..ports). */
    public int ports(int s) {
        return portClasses[s].length - 1;
    }

    /** The class of port {@code port} of switch {@code s}. */
    public PortClass portClass(int s, int port) {
        return PortClass.values()[portClasses[s][port]];
    }

    /** The transitions of switch {@code s} (empty: every packet keeps its channel). */
    public List<VcTransition> transitions(int s) {
        return transitions.get(s);
    }

    /** Channel of a packet leaving switch {@code s} by {@code outPort} after arriving by {@code inPort} on {@code inVc}. */
    public int next(int s, int inPort, int inVc, int outPort) {
        byte vc = matrix[s][portClasses[s][inPort] * CLASSES + portClasses[s][outPort]];
        return vc == KEEP ? inVc : vc;
    }

    /** Channel of a packet from an end node leaving its leaf {@code s} by {@code outPort}. */
    public int first(int s, int outPort) {
        byte vc = matrix[s][PortClass.NODE.ordinal() * CLASSES + portClasses[s][outPort]];
        return vc == KEEP ? 0 : vc;
    }

    /**
     * One line for operators, e.g. {@code 2 virtual channels; column->row: vc1 on 241 switches},
     * each distinct list of transitions with the number of switches that have it.
     */
    public String summary() {
        Map<List<VcTransition>, Integer> counts = new LinkedHashMap<>();
        for (List<VcTransition> t : transitions) {
            if (!t.isEmpty()) {
                counts.merge(t, 1, Integer::sum);
            }
        }
        StringBuilder sb = new StringBuilder(vcCount + (vcCount == 1 ? " virtual channel" : " virtual channels"));
        if (counts.isEmpty()) {
            sb.append("; no transition");
        }
        for (Map.Entry<List<VcTransition>, Integer> e : counts.entrySet()) {
            sb.append("; ");
            for (int i = 0; i < e.getKey().size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(e.getKey().get(i));
            }
            sb.append(" on ").append(e.getValue()).append(e.getValue() == 1 ? " switch" : " switches");
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VcRules r && r.vcCount == vcCount && Arrays.deepEquals(r.portClasses, portClasses)
                && r.transitions.equals(transitions);
    }

    @Override
    public int hashCode() {
        return vcCount * 31 + transitions.hashCode();
    }

    /** Fills the rules switch by switch. */
    public static final class Builder {
        private final int vcCount;
        private final byte[][] portClasses;
        private final List<VcTransition>[] transitions;

        @SuppressWarnings("unchecked")
        private Builder(int[] portCounts, int vcCount) {
            if (vcCount < 1 || vcCount > 15) {
                throw new IllegalArgumentException("virtual channel count " + vcCount + " outside [1, 15]");
            }
            this.vcCount = vcCount;
            this.portClasses = new byte[portCounts.length][];
            for (int s = 0; s < portCounts.length; s++) {
                portClasses[s] = new byte[portCounts[s] + 1];
            }
            this.transitions = new List[portCounts.length];
            Arrays.fill(transitions, List.of());
        }

        /** Sets the class of port {@code port} of switch {@code s}. */
        public Builder portClass(int s, int port, PortClass c) {
            portClasses[s][port] = (byte) c.ordinal();
            return this;
        }

        /** Sets the transitions of switch {@code s}; the list may be shared between switches. */
        public Builder transitions(int s, List<VcTransition> rules) {
            for (VcTransition t : rules) {
                if (t.vc() >= vcCount) {
                    throw new IllegalArgumentException("transition " + t + " uses a channel beyond the " + vcCount
                            + " of the rules");
                }
            }
            transitions[s] = List.copyOf(rules);
            return this;
        }

        public VcRules build() {
            return new VcRules(vcCount, portClasses, List.of(transitions));
        }
    }
}
