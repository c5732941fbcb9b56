package org.fabricmanager.daemon.faults;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.api.FaultReport;
import org.fabricmanager.topology.Guids;

/**
 * Flap quarantine per switch port: a port that goes down more than {@code threshold} times within
 * {@code windowMs} is quarantined, i.e. kept down in the routed fabric whatever it reports, until it
 * has stayed up for {@code quarantineMs} (hysteresis). Each end of a link is judged on its own reports;
 * one quarantined end is enough to keep the link out of the fabric. Used on the control thread only;
 * times are {@link System#nanoTime()} values passed in.
 */
public final class FlapGuard {
    // not final: SIGHUP re-tunes them (on the control thread, like every other use)
    private int threshold;
    private long windowNanos;
    private long quarantineNanos;
    private final Map<Long, Map<Integer, PortFlaps>> ports = new HashMap<>();

    private static final class PortFlaps {
        final ArrayDeque<Long> downs = new ArrayDeque<>();
        int flaps;
        boolean quarantined;
        long sinceMillis;
        long upSinceNanos = -1;
        long upSinceMillis;
    }

    /** What a transition did. */
    public enum Verdict {
        /** Not quarantined: the change counts. */
        PASS,
        /** This down made the port flap too often: it is quarantined now (the change still counts). */
        QUARANTINED,
        /** The port is quarantined: the change is ignored. */
        MASKED
    }

    public FlapGuard(int threshold, long windowMs, long quarantineMs) {
        this.threshold = threshold;
        this.windowNanos = windowMs * 1_000_000L;
        this.quarantineNanos = quarantineMs * 1_000_000L;
    }

    /**
     * New knobs from a configuration reload: the next transition and the next quarantine check use them;
     * ports quarantined now stay so until they have been up for the new {@code quarantineMs}.
     */
    public void retune(int threshold, long windowMs, long quarantineMs) {
        this.threshold = threshold;
        this.windowNanos = windowMs * 1_000_000L;
        this.quarantineNanos = quarantineMs * 1_000_000L;
    }

    /** Records that port {@code port} of {@code guid} went up or down at {@code nowNanos}. */
    public Verdict transition(long guid, int port, boolean up, long nowNanos) {
        PortFlaps f = ports.computeIfAbsent(guid, g -> new HashMap<>()).computeIfAbsent(port, p -> new PortFlaps());
        if (up) {
            if (f.quarantined) {
                f.upSinceNanos = nowNanos;
                f.upSinceMillis = System.currentTimeMillis();
                return Verdict.MASKED;
            }
            return Verdict.PASS;
        }
        f.flaps++;
        f.downs.addLast(nowNanos);
        while (!f.downs.isEmpty() && nowNanos - f.downs.peekFirst() > windowNanos) {
            f.downs.removeFirst();
        }
        if (f.quarantined) {
            f.upSinceNanos = -1;
            return Verdict.MASKED;
        }
        if (f.downs.size() > threshold) {
            f.quarantined = true;
            f.sinceMillis = System.currentTimeMillis();
            f.upSinceNanos = -1;
            return Verdict.QUARANTINED;
        }
        return Verdict.PASS;
    }

    /**
     * A quarantined port's state as a new session of its switch reports it (PORT_INFO after a reboot or reconnect):
     * the port was not watched while the switch was away, so an up port starts its stable-up clock afresh at
     * {@code nowNanos}, and a down one stops it. Returns true when the clock (re)started, i.e. a release is due after
     * the quarantine time; false for a port that is not quarantined or is down.
     */
    public boolean reported(long guid, int port, boolean up, long nowNanos) {
        Map<Integer, PortFlaps> m = ports.get(guid);
        PortFlaps f = m == null ? null : m.get(port);
        if (f == null || !f.quarantined) {
            return false;
        }
        if (!up) {
            f.upSinceNanos = -1;
            return false;
        }
        f.upSinceNanos = nowNanos;
        f.upSinceMillis = System.currentTimeMillis();
        return true;
    }

    /**
     * Quarantines a port as an earlier manager did (the replicated or stored quarantine, read at start). Its
     * stable-up clock starts at {@code nowNanos}: this manager has not seen the port stay up, so it counts the
     * whole quarantine time itself, and a down meanwhile stops the clock as for any quarantined port.
     */
    public void restore(long guid, int port, int flaps, long sinceMillis, long nowNanos) {
        PortFlaps f = ports.computeIfAbsent(guid, g -> new HashMap<>()).computeIfAbsent(port, p -> new PortFlaps());
        f.quarantined = true;
        f.flaps = flaps;
        f.sinceMillis = sinceMillis;
        f.upSinceNanos = nowNanos;
        f.upSinceMillis = System.currentTimeMillis();
    }

    /** True when the port is quarantined. */
    public boolean isQuarantined(long guid, int port) {
        Map<Integer, PortFlaps> m = ports.get(guid);
        PortFlaps f = m == null ? null : m.get(port);
        return f != null && f.quarantined;
    }

    /** True when some port of {@code guid} is quarantined. */
    public boolean hasQuarantined(long guid) {
        Map<Integer, PortFlaps> m = ports.get(guid);
        if (m != null) {
            for (PortFlaps f : m.values()) {
                if (f.quarantined) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Releases the port when it has been up for the quarantine time; returns whether it did. */
    public boolean releaseIfStable(long guid, int port, long nowNanos) {
        Map<Integer, PortFlaps> m = ports.get(guid);
        PortFlaps f = m == null ? null : m.get(port);
        if (f == null || !f.quarantined || f.upSinceNanos < 0 || nowNanos - f.upSinceNanos < quarantineNanos) {
            return false;
        }
        f.quarantined = false;
        f.downs.clear();
        f.upSinceNanos = -1;
        return true;
    }

    /**
     * How long a quarantined port that is up still has to stay up before its release, in ms (at least 1); -1 for a
     * port that is not quarantined or is down.
     */
    public long upRemainingMs(long guid, int port, long nowNanos) {
        Map<Integer, PortFlaps> m = ports.get(guid);
        PortFlaps f = m == null ? null : m.get(port);
        if (f == null || !f.quarantined || f.upSinceNanos < 0) {
            return -1;
        }
        long leftNanos = quarantineNanos - (nowNanos - f.upSinceNanos);
        return Math.max(1, (leftNanos + 999_999) / 1_000_000L);
    }

    /** Quarantine time in ms. */
    public long quarantineMs() {
        return quarantineNanos / 1_000_000L;
    }

    /** The quarantined ports now. */
    public List<FaultReport.Quarantine> quarantined() {
        List<FaultReport.Quarantine> out = new ArrayList<>();
        for (Map.Entry<Long, Map<Integer, PortFlaps>> e : ports.entrySet()) {
            for (Map.Entry<Integer, PortFlaps> p : e.getValue().entrySet()) {
                PortFlaps f = p.getValue();
                if (f.quarantined) {
                    out.add(new FaultReport.Quarantine(Guids.format(e.getKey()), p.getKey(), f.flaps, f.sinceMillis,
                            f.upSinceNanos < 0 ? null : f.upSinceMillis));
                }
            }
        }
        return out;
    }
}
