package org.fabricmanager.detector;

/**
 * A member's estimate of its own lateness (Lifeguard's "local health multiplier"): a small bounded
 * score that rises when the member has evidence that it, rather than its emitter, is the slow one, and
 * falls back when it has been on time for a while. The member waits δ·(1 + score) of silence before
 * it declares its emitter dead, so a healthy member (score 0) keeps the SC'16 bound exactly.
 *
 * <p>Evidence, each worth one point: one of its own timers fired more than the slip threshold late (its
 * event loop or process was not running when it should have); another member suspected it (its own
 * heartbeats arrived late); a member it suspected answered (the silence it measured was its own
 * doing, or the network's). One point is forgiven per calm period (δ) without new evidence. The score
 * never exceeds {@code max}. Not thread-safe: used on the member's thread only.
 */
final class LocalHealth {
    private final int max;
    private final long slipThreshold;
    private final long calmPeriod;
    private int score;
    /** When the score last rose or was last forgiven a point. */
    private long since;

    /**
     * @param max           highest score (0 turns local health off)
     * @param slipThreshold how late a timer may fire before it counts as evidence
     * @param calmPeriod    how long without evidence forgives one point
     */
    LocalHealth(int max, long slipThreshold, long calmPeriod) {
        if (max < 0 || slipThreshold <= 0 || calmPeriod <= 0) {
            throw new IllegalArgumentException("local health needs max >= 0 and positive periods, got max " + max
                    + ", slip " + slipThreshold + " ns, calm " + calmPeriod + " ns");
        }
        this.max = max;
        this.slipThreshold = slipThreshold;
        this.calmPeriod = calmPeriod;
    }

    /** The score at {@code now}, after forgiving the calm periods since the last change. Returns the change. */
    int decay(long now) {
        if (score == 0 || now - since < calmPeriod) {
            return 0;
        }
        long periods = (now - since) / calmPeriod;
        int forgiven = (int) Math.min(score, periods);
        score -= forgiven;
        since += periods * calmPeriod;
        return -forgiven;
    }

    /** A timer fired {@code lateness} ns after it was due. Returns the change of the score. */
    int timerFired(long lateness, long now) {
        return lateness > slipThreshold ? raise(now) : decay(now);
    }

    /** Other evidence of this member's own lateness. Returns the change of the score. */
    int raise(long now) {
        int change = decay(now);
        if (score < max) {
            score++;
            change++;
        }
        since = now;
        return change;
    }

    long slipThreshold() {
        return slipThreshold;
    }

    long calmPeriod() {
        return calmPeriod;
    }

    int score() {
        return score;
    }

    int max() {
        return max;
    }

    /** δ·(1 + score): how long this member lets its emitter be silent before it declares it dead. */
    long scaled(long delta) {
        return delta * (1 + score);
    }
}
