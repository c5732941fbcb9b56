package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.registry.ManagedSwitch;

/**
 * The fault manager's requests to the control loop, written down in order for tests to assert: {@code drop NAME},
 * {@code changed} (the mask changed), {@code state} (the daemon's state may have changed), {@code prepare GUID} and
 * {@code refuted GUID} (a routing prepared during a second opinion, then not wanted).
 */
final class RecordingFaultActions implements FaultActions {
    final List<String> actions = new ArrayList<>();

    @Override
    public void dropSession(ManagedSwitch ms, String reason) {
        actions.add("drop " + ms.name());
    }

    @Override
    public void maskChanged() {
        actions.add("changed");
    }

    @Override
    public void stateMayHaveChanged() {
        actions.add("state");
    }

    @Override
    public void prepareWithout(long guid) {
        actions.add("prepare " + org.fabricmanager.topology.Guids.format(guid));
    }

    @Override
    public void preparationRefuted(long guid) {
        actions.add("refuted " + org.fabricmanager.topology.Guids.format(guid));
    }

    /** The switches whose session was dropped, by name, in order. */
    List<String> dropped() {
        return actions.stream().filter(a -> a.startsWith("drop ")).map(a -> a.substring(5)).toList();
    }
}
