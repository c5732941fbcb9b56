package org.fabricmanager.southbound;

/**
 * How an agent answered a DETECTOR_CONFIG ({@code docs/protocol.md}, section 3.9): its member runs,
 * it has no detector (or could not start one), or no answer came before the session closed or the
 * wait ended. The daemon uses it to end its own member's start-up grace and to know which ring
 * members will never heartbeat.
 *
 * @param outcome what the answer means for the ring
 * @param detail  the agent's error message or why no answer came; empty when running
 */
public record DetectorConfigReply(Outcome outcome, String detail) {

    /** What the answer means for the ring. */
    public enum Outcome {
        /** The agent acknowledged the chunk completing the configuration: its member runs. */
        RUNNING,
        /** The agent answered ERROR UNSUPPORTED_FEATURE or DETECTOR_UNAVAILABLE: it will never heartbeat. */
        NO_DETECTOR,
        /** No answer: the session closed or the wait ended. */
        NO_ANSWER
    }

    /** The answer of an agent whose member runs. */
    public static final DetectorConfigReply RUNNING = new DetectorConfigReply(Outcome.RUNNING, "");

    /** True when the switch will take part in the ring. */
    public boolean running() {
        return outcome == Outcome.RUNNING;
    }
}
