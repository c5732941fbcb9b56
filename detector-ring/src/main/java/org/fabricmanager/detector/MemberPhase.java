package org.fabricmanager.detector;

/** Life cycle of one {@link RingMember}. */
public enum MemberPhase {
    /** Constructed, {@link RingMember#start()} not called yet. */
    CREATED,
    /** Looking for a running member to admit it; forwards broadcasts but neither heartbeats nor observes. */
    JOINING,
    /** Heartbeating its observer and observing its emitter. */
    RUNNING,
    /** Stopped for good; every input is ignored. */
    STOPPED
}
