package org.fabricmanager.daemon.api;

/** Receives the daemon's milestones as they happen (on the control thread: must not block). */
@FunctionalInterface
public interface DaemonListener {
    void milestone(Milestone milestone);
}
