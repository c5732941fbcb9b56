package org.fabricmanager.daemon.health;

/** A link's health as its counters say, from best to worst. */
public enum LinkLevel {
    HEALTHY, SUSPECT, BAD
}
