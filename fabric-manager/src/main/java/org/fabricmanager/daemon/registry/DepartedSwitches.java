package org.fabricmanager.daemon.registry;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admitted switches whose session ended and that have not connected again, so that the views keep listing a dead
 * or disconnected switch with its state instead of forgetting it when the fabric is re-routed without it. Bounded:
 * beyond {@link #MAX} departures the oldest is forgotten (only authenticated agents are admitted, but a fabric whose
 * GUIDs keep changing must not grow it for ever). Control thread only.
 */
public final class DepartedSwitches {
    /** Departures remembered at most. */
    public static final int MAX = 65_536;

    /** A switch that left: its GUID, name and port count as its last session gave them, and when it left. */
    public record Departed(long guid, String name, int ports, long sinceMillis) {
    }

    private final Map<Long, Departed> departed = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Departed> eldest) {
            return size() > MAX;
        }
    };

    /** Switch {@code ms} lost its session at {@code nowMillis}. */
    void left(ManagedSwitch ms, long nowMillis) {
        departed.remove(ms.guid()); // re-inserted: the order is that of the departures
        departed.put(ms.guid(), new Departed(ms.guid(), ms.name(), ms.hello().portCount(), nowMillis));
    }

    /** Switch {@code guid} has a session again. */
    void back(long guid) {
        departed.remove(guid);
    }

    /** The departure of {@code guid}, or {@code null} when it has a session or never had one admitted. */
    public Departed get(long guid) {
        return departed.get(guid);
    }

    /** Every departure, oldest first. */
    public List<Departed> all() {
        return new ArrayList<>(departed.values());
    }

    /** Departed switches. */
    public int size() {
        return departed.size();
    }
}
