package org.fabricmanager.detector.sim;

/**
 * Messages sent in a simulation, by type (lost ones included: they were sent).
 */
public record MessageCounts(long heartbeats, long newObservers, long joins, long stateSyncs, long broadcastCopies) {

    public long total() {
        return heartbeats + newObservers + joins + stateSyncs + broadcastCopies;
    }

    /** Messages other than heartbeats: what repairing and informing the ring cost. */
    public long nonHeartbeat() {
        return total() - heartbeats;
    }

    public MessageCounts minus(MessageCounts earlier) {
        return new MessageCounts(heartbeats - earlier.heartbeats, newObservers - earlier.newObservers,
                joins - earlier.joins, stateSyncs - earlier.stateSyncs, broadcastCopies - earlier.broadcastCopies);
    }
}
