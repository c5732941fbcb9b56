package org.fabricmanager.southbound;

import java.util.Arrays;

/**
 * An agent's seat in a failure-detector ring, as a DETECTOR_WINDOW tells it ({@code docs/protocol.md}, section
 * 3.12): the ring's size, the agent's index, how its member starts and whom it starts with dead.
 *
 * @param memberCount the ring's size
 * @param selfIndex   the agent's index in it
 * @param startMode   how the agent's member enters the ring
 * @param deadAtStart ring members the agent's member starts with in its dead set (slots of switches that have not
 *                    connected), ascending; empty for agents without {@link Protocol#FEATURE_DETECTOR_SLOTS}, and
 *                    then not on the wire
 */
public record RingSeat(int memberCount, int selfIndex, Message.StartMode startMode, int[] deadAtStart) {
    public RingSeat {
        deadAtStart = deadAtStart.clone();
        if (deadAtStart.length > Protocol.MAX_DEAD_AT_START) {
            throw new IllegalArgumentException(deadAtStart.length + " members dead at start, more than "
                    + Protocol.MAX_DEAD_AT_START);
        }
    }

    /** A seat whose member starts with every member alive. */
    public RingSeat(int memberCount, int selfIndex, Message.StartMode startMode) {
        this(memberCount, selfIndex, startMode, new int[0]);
    }

    @Override
    public int[] deadAtStart() {
        return deadAtStart.clone();
    }

    /** How many members the agent's member starts dead, without copying them. */
    int deadCount() {
        return deadAtStart.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RingSeat r && r.memberCount == memberCount && r.selfIndex == selfIndex
                && r.startMode == startMode && Arrays.equals(r.deadAtStart, deadAtStart);
    }

    @Override
    public int hashCode() {
        return (memberCount * 31 + selfIndex) * 31 + Arrays.hashCode(deadAtStart);
    }

    @Override
    public String toString() {
        return "RingSeat[n=" + memberCount + ", self=" + selfIndex + ", " + startMode + ", dead at start "
                + Arrays.toString(deadAtStart) + "]";
    }
}
