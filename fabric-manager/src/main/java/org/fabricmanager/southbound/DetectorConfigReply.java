package org.fabricmanager.southbound;

import java.util.concurrent.CompletableFuture;

/**
 * How an agent answered a DETECTOR_CONFIG ({@code docs/protocol.md}, section 3.9): its member runs,
 * it has no detector (or could not start one), or no answer came before the session closed or the
 * wait ended. The daemon uses it to end its own member's start-up grace and to know which ring
 * members will never heartbeat.
 *
 * <p>An agent whose member is slow to start (a simulator starting thousands, a busy switch CPU) may
 * answer after the wait ended. The wait's NO_ANSWER then carries {@link #late()}: the session keeps
 * listening for that configuration's answer and completes it with the answer when it comes, or with
 * NO_ANSWER when the session closes or a newer configuration supersedes it. So the daemon can tell a
 * member that runs but started late from one that never answered.
 *
 * @param outcome what the answer means for the ring
 * @param detail  the agent's error message or why no answer came; empty when running
 * @param late    for a NO_ANSWER because the wait ended: the answer that may still come; {@code null} otherwise
 */
public record DetectorConfigReply(Outcome outcome, String detail,
                                  CompletableFuture<DetectorConfigReply> late) {

    public DetectorConfigReply {
        if (late != null && outcome != Outcome.NO_ANSWER) {
            throw new IllegalArgumentException("only an answer that did not come can come late");
        }
    }

    /** An answer that came, or NO_ANSWER that will never come (the session closed). */
    public DetectorConfigReply(Outcome outcome, String detail) {
        this(outcome, detail, null);
    }

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
