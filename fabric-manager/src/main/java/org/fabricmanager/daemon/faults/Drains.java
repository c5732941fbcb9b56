package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.Collection;
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
 * The links the gray-link policy isolated are held here too, apart from the operator's drains (listed apart, given
 * back by the policy), masked the same way and stored in the same file. Used on the control thread only.
 */
public final class Drains {
    /** Drained elements, by switch GUID and port (0: the whole switch), in the order drained; value: since (ms). */
    private final Map<PortRef, Long> drained = new LinkedHashMap<>();
    private final DrainStore store;
    /** Drained switches, and the two ends of each drained cable as named: the mask's lookups. */
    private final Map<Long, Long> switches = new LinkedHashMap<>();
    /** Links isolated by the gray-link policy, by the end named, in the order isolated. */
    private final Map<PortRef, Isolation> isolated = new LinkedHashMap<>();

    /**
     * A link the gray-link policy isolated.
     *
     * @param peer        the link's other end
     * @param sinceMillis when it was isolated (wall clock)
     * @param probationMs how long it must be healthy before it is given back
     */
    public record Isolation(PortRef peer, long sinceMillis, long probationMs) {
    }

    /**
     * Drains what {@code store} holds ({@code null}: kept nowhere, for tests).
     *
     * @throws org.fabricmanager.daemon.store.StoreException when the stored drains are damaged
     */
    public Drains(DrainStore store) {
        this.store = store;
        if (store != null) {
            for (DrainStore.Entry e : store.load()) {
                if (e.isolated()) {
                    isolated.put(new PortRef(e.guid(), e.port()), new Isolation(e.peer(), e.sinceMillis(),
                            e.probationMs()));
                } else {
                    put(new PortRef(e.guid(), e.port()), e.sinceMillis());
                }
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
        Map<PortRef, Isolation> nextIsolated = new LinkedHashMap<>(isolated);
        nextIsolated.remove(element); // an isolated link drained is pinned: the operator's from now on
        save(next, nextIsolated);
        isolated.remove(element);
        put(element, sinceMillis);
    }

    /** Whether the gray-link policy isolated the link named by {@code element} (either end). */
    public Isolation isolation(PortRef element) {
        Isolation i = isolated.get(element);
        if (i != null) {
            return i;
        }
        for (Map.Entry<PortRef, Isolation> e : isolated.entrySet()) {
            if (e.getValue().peer().equals(element)) {
                return new Isolation(e.getKey(), e.getValue().sinceMillis(), e.getValue().probationMs());
            }
        }
        return null;
    }

    /** The links isolated by the gray-link policy, by the end named, in the order isolated. */
    public Map<PortRef, Isolation> isolatedView() {
        return Collections.unmodifiableMap(isolated);
    }

    /**
     * Isolates the link {@code element}-{@code isolation.peer()} for the gray-link policy: stored first, then in force.
     *
     * @throws org.fabricmanager.daemon.store.StoreException when it cannot be stored (nothing changes then)
     * @throws IllegalArgumentException when too many elements are drained or isolated already
     */
    public void isolate(PortRef element, Isolation isolation) {
        if (drained.size() + isolated.size() >= DrainStore.MAX_ENTRIES) {
            throw new IllegalArgumentException(drained.size() + isolated.size() + " elements are drained or isolated"
                    + " already");
        }
        Map<PortRef, Isolation> next = new LinkedHashMap<>(isolated);
        next.put(element, isolation);
        save(drained, next);
        isolated.put(element, isolation);
    }

    /**
     * Gives back the isolated link named by {@code element} (the end it was stored by): stored first, then in force.
     *
     * @throws org.fabricmanager.daemon.store.StoreException when it cannot be stored (nothing changes then)
     */
    public void reinstate(PortRef element) {
        Map<PortRef, Isolation> next = new LinkedHashMap<>(isolated);
        next.remove(element);
        save(drained, next);
        isolated.remove(element);
    }

    /**
     * Undrains {@code element}: stored first, then in force.
     *
     * @throws org.fabricmanager.daemon.store.StoreException when it cannot be stored (nothing changes then)
     */
    public void undrain(PortRef element) {
        Map<PortRef, Long> next = new LinkedHashMap<>(drained);
        next.remove(element);
        save(next, isolated);
        drained.remove(element);
        if (element.port() == 0) {
            switches.remove(element.guid());
        }
    }

    private void save(Map<PortRef, Long> next, Map<PortRef, Isolation> nextIsolated) {
        if (store == null) {
            return;
        }
        List<DrainStore.Entry> entries = new ArrayList<>(next.size() + nextIsolated.size());
        next.forEach((at, since) -> entries.add(new DrainStore.Entry(at.guid(), at.port(), since)));
        nextIsolated.forEach((at, i) -> entries.add(new DrainStore.Entry(at.guid(), at.port(), i.sinceMillis(),
                i.peer(), i.probationMs())));
        store.save(entries);
    }

    /** What the masks hold out: the drained elements (port 0: a switch) and one end of each isolated link. */
    public Collection<PortRef> masking() {
        if (isolated.isEmpty()) {
            return drained.keySet();
        }
        List<PortRef> all = new ArrayList<>(drained.keySet());
        all.addAll(isolated.keySet());
        return all;
    }

    /** Whether routing must see port {@code port} of {@code guid}, reported as {@code r}, down because of a drain. */
    public boolean masks(long guid, int port, PortRecord r) {
        PortRef at = new PortRef(guid, port);
        if (switches.containsKey(guid) || drained.containsKey(at) || isolated.containsKey(at)) {
            return true;
        }
        if (!r.isUp() || r.peerKind() != PortRecord.PeerKind.SWITCH) {
            return false;
        }
        PortRef peer = new PortRef(r.peerGuid(), r.peerPort());
        return switches.containsKey(r.peerGuid()) || drained.containsKey(peer) || isolated.containsKey(peer);
    }

    /** The reports as routing must see them: a copy with the drained ports down, or the reports themselves. */
    public SwitchPorts masked(SwitchPorts ports) {
        if (drained.isEmpty() && isolated.isEmpty()) {
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
