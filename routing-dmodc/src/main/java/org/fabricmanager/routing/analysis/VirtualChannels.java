package org.fabricmanager.routing.analysis;

import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.VcRules;

/**
 * Which virtual channel a route uses on each switch-to-switch hop. The deadlock analysis works on
 * channels = (directed link, virtual channel), numbered {@code link * count() + vc}; with the
 * default {@link #single()} a channel is just a directed link. A routing scheme that changes
 * virtual channel at some turns (e.g. one extra channel at the column-to-row turn of a 2-D
 * fat-tree) implements this interface; the analysis then checks the dependency graph it induces.
 * Implementations must be stateless (they are called from several threads) and return values in
 * {@code [0, count())}.
 */
public interface VirtualChannels {

    /** Number of virtual channels per link, at least 1. */
    int count();

    /** Channel of the first switch-to-switch hop of a route leaving leaf {@code leaf} by {@code outPort} for {@code destination}. */
    int first(int leaf, int outPort, int destination);

    /**
     * Channel of the hop leaving switch {@code s} by {@code outPort} for {@code destination}, for a
     * packet that arrived on port {@code inPort} on channel {@code inVc}.
     */
    int next(int s, int inPort, int inVc, int outPort, int destination);

    /** One virtual channel everywhere: channels are directed links. */
    static VirtualChannels single() {
        return Single.INSTANCE;
    }

    /** The channels the tables' {@link VcRules} give, or {@link #single()} when they have none. */
    static VirtualChannels of(ForwardingTables tables) {
        return tables.vcRules().<VirtualChannels>map(RuleChannels::new).orElse(Single.INSTANCE);
    }

    /** The channels of {@link VcRules}: they depend on the ports' classes, not on the destination. */
    record RuleChannels(VcRules rules) implements VirtualChannels {
        @Override
        public int count() {
            return rules.vcCount();
        }

        @Override
        public int first(int leaf, int outPort, int destination) {
            return rules.first(leaf, outPort);
        }

        @Override
        public int next(int s, int inPort, int inVc, int outPort, int destination) {
            return rules.next(s, inPort, inVc, outPort);
        }
    }

    /** The one-channel scheme. */
    enum Single implements VirtualChannels {
        INSTANCE;

        @Override
        public int count() {
            return 1;
        }

        @Override
        public int first(int leaf, int outPort, int destination) {
            return 0;
        }

        @Override
        public int next(int s, int inPort, int inVc, int outPort, int destination) {
            return 0;
        }
    }
}
