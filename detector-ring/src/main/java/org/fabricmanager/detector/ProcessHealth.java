package org.fabricmanager.detector;

/**
 * The lateness of a process that hosts several ring members (a simulator, a test), shared by all of them: a
 * timer of any member that fires late is evidence for every member of the process, as a member's own late
 * timer is for itself in {@link LocalHealth}. Members of one process share its cores and may run on different
 * event loops; when one loop falls behind (a burst of broadcast copies to read), the members on the other loop
 * still fire their timers on time and would declare dead, after δ, emitters whose only fault is the lag of
 * their loop, in this very process. A member waits δ·(1 + max(own score, process score)) before a verdict.
 *
 * <p>A process that hosts one member (an agent, the daemon) needs none: that member's own health is the
 * process's. The score rises by one per late timer up to {@link SuspicionPolicy#MAX_HEALTH_SCORE} and falls by one
 * per calm period without a late timer. Thread-safe.
 */
public final class ProcessHealth {
    /** The score, kept by the rule of a member's own; null until a member's timer first fires. */
    private LocalHealth health;
    /** One warning per 10 s for all the members' late heartbeats, not one per member. */
    private final LateWarnings lateWarnings = new LateWarnings();

    /** The late-heartbeat warnings all members of this process share. */
    LateWarnings lateWarnings() {
        return lateWarnings;
    }

    /**
     * A member's timer fired {@code lateness} ns after it was due; later than {@code slipThreshold}, it raises the
     * score. {@code calmPeriod}: how long without a late timer forgives one point (the member's δ). Members of one
     * ring pass the same periods; a member of a ring with other ones (a new epoch's) starts the score over.
     */
    synchronized void timerFired(long lateness, long slipThreshold, long calmPeriod, long now) {
        if (health == null || health.slipThreshold() != slipThreshold || health.calmPeriod() != calmPeriod) {
            health = new LocalHealth(SuspicionPolicy.MAX_HEALTH_SCORE, slipThreshold, calmPeriod);
        }
        health.timerFired(lateness, now);
    }

    /** The score at {@code now}: 0 when no member of the process was late in the last calm periods. */
    synchronized int score(long now) {
        if (health == null) {
            return 0;
        }
        health.decay(now);
        return health.score();
    }

    /** The score as last computed (for inspection). */
    public synchronized int score() {
        return health == null ? 0 : health.score();
    }
}
