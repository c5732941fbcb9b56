package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.store.DrainStore;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PortRef;

/**
 * The switches and cables an operator drained for maintenance, and what routing sees of them: a drained switch has
 * every port down, and so has every port that reports it as its peer; a drained cable has both its ends down, whichever
 * end the operator named. Routing therefore goes around them exactly as around failed ones (the same snapshot, the same
 * repair), while their switches stay connected and keep getting tables. Every change is written to the
 * {@link DrainStore} before it takes effect, so that a restarted daemon or a standby taking over keeps the drain.
 * Used on the control thread only.
 */
public final class Drains {
    /** Drained elements, by switch GUID and port (0: the whole switch), in the order drained; value: since (ms). */
    private final Map<PortRef, Long> drained = new LinkedHashMap<>();
    private final DrainStore store;
    /** Drained switches, and the two ends of each drained cable as named: the mask's lookups. */
    private final Map<Long, Long> switches = new LinkedHashMap<>();

    /**
     * Drains what {@code store} holds ({@code null}: kept nowhere, for tests).
     *
     * @throws org.fabricmanager.daemon.store.StoreException when the stored drains are damaged
     */
    public Drains(DrainStore store) {
        this.store = store;
        if (store != null) {
            for (DrainStore.Entry e : store.load()) {
                put(new PortRef(e.guid(), e.port()), e.sinceMillis());
            }
        }
    }

    private void put(PortRef at, long since) {
        drained.put(at, since);
        if (at.port() == 0) {
            switches.put(at.guid(), since);
        }
    }

    /** Whether switch {@code guid} is drained. */
    public boolean isSwitchDrained(long guid) {
        return switches.containsKey(guid);
    }

    /** Whether the cable at {@code guid} port {@code port} was drained by naming this end (not its peer). */
    public boolean isLinkDrained(long guid, int port) {
        return port > 0 && drained.containsKey(new PortRef(guid, port));
    }

    /** Whether {@code element} (port 0: a switch) is drained as named. */
    public boolean contains(PortRef element) {
        return drained.containsKey(element);
    }

    /** The drained elements (port 0: a switch) and since when (ms), in the order drained. */
    public Map<PortRef, Long> view() {
        return Collections.unmodifiableMap(drained);
    }

    /** Drained switches. */
    public int switchCount() {
        return switches.size();
    }

    /** Drained cables. */
    public int linkCount() {
        return drained.size() - switches.size();
    }

    /**
     * Drains {@code element} (port 0: a whole switch) from {@code sinceMillis}: stored first, then in force.
     *
     * @throws org.fabricmanager.daemon.store.StoreException when it cannot be stored (nothing changes then)
     * @throws IllegalArgumentException when too many elements are drained already
     */
    public void drain(PortRef element, long sinceMillis) {
        if (drained.size() >= DrainStore.MAX_ENTRIES) {
            throw new IllegalArgumentException(drained.size() + " elements are drained already: undrain some first");
        }
        Map<PortRef, Long> next = new LinkedHashMap<>(drained);
        next.put(element, sinceMillis);
        save(next);
        put(element, sinceMillis);
    }

    /**
     * Undrains {@code element}: stored first, then in force.
     *
     * @throws org.fabricmanager.daemon.store.StoreException when it cannot be stored (nothing changes then)
     */
    public void undrain(PortRef element) {
        Map<PortRef, Long> next = new LinkedHashMap<>(drained);
        next.remove(element);
        save(next);
        drained.remove(element);
        if (element.port() == 0) {
            switches.remove(element.guid());
        }
    }

    private void save(Map<PortRef, Long> next) {
        if (store == null) {
            return;
        }
        List<DrainStore.Entry> entries = new ArrayList<>(next.size());
        next.forEach((at, since) -> entries.add(new DrainStore.Entry(at.guid(), at.port(), since)));
        store.save(entries);
    }

    /** Whether routing must see port {@code port} of {@code guid}, reported as {@code r}, down because of a drain. */
    public boolean masks(long guid, int port, PortRecord r) {
        if (switches.containsKey(guid) || drained.containsKey(new PortRef(guid, port))) {
            return true;
        }
        return r.isUp() && r.peerKind() == PortRecord.PeerKind.SWITCH && (switches.containsKey(r.peerGuid())
                || drained.containsKey(new PortRef(r.peerGuid(), r.peerPort())));
    }

    /** The reports as routing must see them: a copy with the drained ports down, or the reports themselves. */
    public SwitchPorts masked(SwitchPorts ports) {
        if (drained.isEmpty()) {
            return ports;
        }
        SwitchPorts copy = null;
        for (int p = 1; p <= ports.portCount(); p++) {
            if (masks(ports.guid(), p, ports.port(p))) {
                if (copy == null) {
                    copy = ports.copy();
                }
                copy.update(PortRecord.down(p));
            }
        }
        return copy == null ? ports : copy;
    }

    /** A drained element as an operator reads it: "switch 0x…" or "link 0x…:P". */
    public static String describe(PortRef element) {
        return element.port() == 0 ? "switch " + Guids.format(element.guid()) : "link " + element;
    }
}
