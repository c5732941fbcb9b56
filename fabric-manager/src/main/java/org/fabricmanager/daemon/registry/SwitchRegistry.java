package org.fabricmanager.daemon.registry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.fabricmanager.daemon.discovery.PortReports;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.SwitchSession;

/**
 * The switches that have a session, by GUID: who holds each GUID's session, which are admitted into
 * the fabric, and the takeover rule between two sessions claiming one GUID (the more recent agent run
 * wins; an older run is refused). Counts are kept as switches come and go, so every query is O(1).
 * Changed on the control thread only; {@link #admittedCountVolatile()} may be read from any thread.
 */
public final class SwitchRegistry implements PortReports {
    private final Map<Long, ManagedSwitch> switches = new HashMap<>();
    private final DepartedSwitches departed = new DepartedSwitches();
    private int admitted;
    private volatile int admittedVolatile;
    /** Admissions and removals so far: a watcher's cheap test for a change of the admitted switches. */
    private long changes;

    /** What a HELLO for its GUID would do (no change: {@link #register} or the caller's refusal follows). */
    public HelloVerdict judge(Hello hello) {
        ManagedSwitch existing = switches.get(hello.guid());
        if (existing == null) {
            return new HelloVerdict(HelloVerdict.Kind.NEW, null);
        }
        int order = Long.compareUnsigned(hello.incarnation(), existing.hello().incarnation());
        HelloVerdict.Kind kind = order < 0 ? HelloVerdict.Kind.OLDER
                : order == 0 ? HelloVerdict.Kind.RECONNECT : HelloVerdict.Kind.RESTART;
        return new HelloVerdict(kind, existing);
    }

    /**
     * Gives {@code session} its GUID's entry (not admitted yet). A session still holding the GUID must
     * have been {@link #remove removed} first.
     */
    public ManagedSwitch register(SwitchSession session, Hello hello, long nowMillis) {
        ManagedSwitch ms = new ManagedSwitch(session, hello, nowMillis);
        ManagedSwitch previous = switches.put(hello.guid(), ms);
        if (previous != null) {
            switches.put(hello.guid(), previous);
            throw new IllegalStateException("switch " + ms + " registered while " + previous.session() + " holds it");
        }
        departed.back(hello.guid());
        return ms;
    }

    /** The switch whose session {@code session} is, or {@code null} when the session no longer holds its GUID. */
    public ManagedSwitch current(SwitchSession session) {
        ManagedSwitch ms = switches.get(session.guid());
        return ms != null && ms.session() == session ? ms : null;
    }

    /** The switch holding GUID {@code guid}'s session, or {@code null}. */
    public ManagedSwitch get(long guid) {
        return switches.get(guid);
    }

    /** Admits a registered switch into the fabric (its first PORT_INFO was accepted). */
    public void admit(ManagedSwitch ms) {
        if (!ms.admitted()) {
            ms.admit();
            changes++;
            admitted++;
            admittedVolatile = admitted;
        }
    }

    /** Holds a registered switch out of the fabric until an admin admits it. */
    public void pend(ManagedSwitch ms, String reason) {
        if (!ms.admitted()) {
            ms.pend(reason);
        }
    }

    /** Registered switches waiting for admission. */
    public List<ManagedSwitch> pending() {
        List<ManagedSwitch> out = new ArrayList<>();
        for (ManagedSwitch ms : switches.values()) {
            if (ms.pendingReason() != null) {
                out.add(ms);
            }
        }
        return out;
    }

    /** Removes the switch of {@code session} if the session still holds its GUID; returns it, or {@code null}. */
    public ManagedSwitch remove(SwitchSession session) {
        ManagedSwitch ms = current(session);
        if (ms != null) {
            changes++;
            switches.remove(ms.guid());
            if (ms.admitted()) {
                admitted--;
                admittedVolatile = admitted;
                departed.left(ms, System.currentTimeMillis());
            }
        }
        return ms;
    }

    /** The admitted switches whose session ended and that have none since. */
    public DepartedSwitches departed() {
        return departed;
    }

    /** Every registered switch, admitted or not (a live view: do not change the registry while iterating). */
    public Collection<ManagedSwitch> all() {
        return Collections.unmodifiableCollection(switches.values());
    }

    /** How many admissions and removals there were so far: unchanged, the admitted switches and sessions are too. */
    public long changes() {
        return changes;
    }

    /** Registered switches, admitted or not. */
    public int size() {
        return switches.size();
    }

    @Override
    public int admittedCount() {
        return admitted;
    }

    /** {@link #admittedCount()} as of the last change, from any thread (the connected-switches gauge). */
    public int admittedCountVolatile() {
        return admittedVolatile;
    }

    @Override
    public SwitchPorts admittedPorts(long guid) {
        ManagedSwitch ms = switches.get(guid);
        return ms != null && ms.admitted() ? ms.ports() : null;
    }

    @Override
    public void forEachAdmitted(Consumer<SwitchPorts> action) {
        for (ManagedSwitch ms : switches.values()) {
            if (ms.admitted()) {
                action.accept(ms.ports());
            }
        }
    }
}
