package org.fabricmanager.daemon.control;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fabricmanager.daemon.api.DaemonListener;
import org.fabricmanager.daemon.api.Milestone;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's recent milestones (bounded), each also logged at info and handed to the listeners.
 * Written by the control thread; read by REST through the control thread too.
 */
public final class MilestoneLog {
    private static final Logger LOG = LoggerFactory.getLogger("org.fabricmanager.daemon");
    private static final int CAPACITY = 1000;

    private final ArrayDeque<Milestone> recent = new ArrayDeque<>();
    private final List<DaemonListener> listeners = new CopyOnWriteArrayList<>();
    private long seq;

    public void addListener(DaemonListener l) {
        listeners.add(l);
    }

    /**
     * Records, logs and announces a milestone. A switch connecting is announced and logged at debug
     * but not kept (thousands of them at start-up would push the milestones that matter out of the
     * log); it carries sequence number 0.
     */
    public Milestone record(Milestone.Kind kind, String message) {
        return record(kind, message, null);
    }

    /** As {@link #record(Milestone.Kind, String)}, with figures. */
    public Milestone record(Milestone.Kind kind, String message, Map<String, Object> details) {
        boolean transientKind = kind == Milestone.Kind.SWITCH_CONNECTED;
        Milestone m = new Milestone(transientKind ? 0 : ++seq, System.currentTimeMillis(), kind, message, details);
        if (transientKind) {
            LOG.debug(message);
        } else {
            LOG.info(message);
            recent.addLast(m);
            while (recent.size() > CAPACITY) {
                recent.removeFirst();
            }
        }
        for (DaemonListener l : listeners) {
            try {
                l.milestone(m);
            } catch (RuntimeException e) {
                LOG.warn("milestone listener failed", e);
            }
        }
        return m;
    }

    /** Milestones with a sequence number above {@code since}, oldest first. */
    public List<Milestone> since(long since) {
        List<Milestone> out = new ArrayList<>();
        for (Milestone m : recent) {
            if (m.seq() > since) {
                out.add(m);
            }
        }
        return out;
    }
}
