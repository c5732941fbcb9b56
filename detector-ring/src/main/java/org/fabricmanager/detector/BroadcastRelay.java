package org.fabricmanager.detector;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fabricmanager.detector.message.BroadcastCopy;
import org.fabricmanager.detector.message.DetectorEvent;
import org.fabricmanager.detector.overlay.BroadcastOverlay;
import org.fabricmanager.detector.overlay.LiveRanks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's part in reliable broadcasts: starts broadcasts with the member's dead set as topology
 * and forwards the copies it receives along the overlay. Delivery (and its exactly-once rule) is the
 * member's business; the relay only decides where copies go. For flooding overlays it remembers the
 * broadcast instances (source, incarnation, sequence) it has forwarded, so that each is forwarded once
 * even when two sources broadcast the same event.
 */
final class BroadcastRelay {
    private static final Logger log = LoggerFactory.getLogger(BroadcastRelay.class);
    /** Instances remembered for flooding; all copies of one instance arrive within a few τ. */
    private static final int SEEN_INSTANCES = 4096;

    private final int self;
    private final int size;
    private final BroadcastOverlay overlay;
    private final RingTransport transport;
    private final DetectorMetrics metrics;
    private final Map<InstanceKey, Boolean> seen = new LinkedHashMap<>(64, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<InstanceKey, Boolean> eldest) {
            return size() > SEEN_INSTANCES;
        }
    };
    private long sequence;

    BroadcastRelay(int self, int size, BroadcastOverlay overlay, RingTransport transport, DetectorMetrics metrics) {
        this.self = self;
        this.size = size;
        this.overlay = overlay;
        this.transport = transport;
        this.metrics = metrics;
    }

    /**
     * Starts a broadcast of {@code event} over the live members of {@code dead}'s complement.
     *
     * @param dead        the member's dead set, ascending; becomes the topology of the whole broadcast
     * @param incarnation the member's incarnation
     */
    void originate(DetectorEvent event, int[] dead, long incarnation) {
        long seq = ++sequence;
        LiveRanks ranks = new LiveRanks(size, self, dead);
        if (overlay.forwardsFirstCopyOnly()) {
            seen.put(new InstanceKey(self, incarnation, seq), Boolean.TRUE);
        }
        metrics.broadcastOriginated();
        overlay.originate(ranks, (target, cube, tree) ->
                send(target, new BroadcastCopy(self, incarnation, self, incarnation, seq, cube, tree, dead, event)));
    }

    /** Forwards a received copy as the overlay says (nothing for a later copy of a flooded instance). */
    void forward(BroadcastCopy copy, long incarnation) {
        if (overlay.forwardsFirstCopyOnly()
                && seen.put(new InstanceKey(copy.source(), copy.sourceIncarnation(), copy.sequence()), Boolean.TRUE) != null) {
            return;
        }
        LiveRanks ranks;
        try {
            ranks = new LiveRanks(size, copy.source(), copy.sourceDead());
        } catch (IllegalArgumentException e) {
            log.warn("member {}: cannot forward broadcast from member {}: {}", self, copy.source(), e.getMessage());
            return;
        }
        int[] sent = new int[1];
        overlay.forward(ranks, self, copy.from(), copy.cube(), copy.tree(), (target, cube, tree) -> {
            send(target, copy.forwardedBy(self, incarnation, cube, tree));
            sent[0]++;
        });
        if (sent[0] > 0) {
            metrics.broadcastForwarded();
        }
    }

    private void send(int target, BroadcastCopy copy) {
        metrics.broadcastMessage();
        transport.send(target, copy);
    }

    private record InstanceKey(int source, long incarnation, long sequence) {
    }
}
