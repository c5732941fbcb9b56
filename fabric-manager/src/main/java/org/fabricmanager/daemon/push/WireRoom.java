package org.fabricmanager.daemon.push;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import org.fabricmanager.daemon.push.SwitchPush.InFlight;
import org.fabricmanager.southbound.Message.LftBlock;

/**
 * The room on the wire of an {@link LftPusher}: the batches on it (at most {@code push.maxInFlight} full tables'
 * worth, a batch counting as its share of a full table) and the switches waiting for room, first come first
 * served, so that keepalives and ACKs are not queued behind megabytes of blocks on thousands of connections.
 */
final class WireRoom {
    /** A full table's {@link #weight}: {@code push.maxInFlight} counts full tables. */
    static final int FULL_TABLE_WEIGHT = 64;

    private final int maxInFlight;
    /** Batches on the wire (at most {@code maxInFlight} full tables' worth); the switches beyond wait in {@code waiting}. */
    private final Set<InFlight> active = new HashSet<>();
    /** Switches waiting for room on the wire, first come first served. */
    private final LinkedHashSet<Long> waiting = new LinkedHashSet<>();
    /** The {@link #weight}s of the batches in {@code active}. */
    private long activeWeight;

    WireRoom(int maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    /**
     * What a batch of {@code blocks} blocks of {@code tables} takes of the room on the wire: its share of a full table, at least a
     * sixty-fourth (a commit alone still costs both ends a round trip).
     */
    static int weight(TableSet tables, int blocks) {
        long tableBlocks = Math.max(1, ((long) tables.length() + LftBlock.SIZE - 1) / LftBlock.SIZE);
        return (int) Math.max(1, Math.min(FULL_TABLE_WEIGHT, (blocks * (long) FULL_TABLE_WEIGHT + tableBlocks - 1) / tableBlocks));
    }

    /** All the room there is, in {@link #weight}s. */
    long capacity() {
        return (long) maxInFlight * FULL_TABLE_WEIGHT;
    }

    /** Whether a batch of {@code weight} goes out now: there is room for it, or nothing is on the wire. */
    boolean fits(int weight) {
        return active.isEmpty() || activeWeight + weight <= capacity();
    }

    boolean idle() {
        return active.isEmpty();
    }

    /** Puts {@code f} on the wire. */
    void take(InFlight f) {
        active.add(f);
        activeWeight += f.weight;
    }

    /** Takes {@code f} off the wire; false when it was not on it (abandoned already). */
    boolean retire(InFlight f) {
        if (!active.remove(f)) {
            return false;
        }
        activeWeight -= f.weight;
        return true;
    }

    // ---- the line of switches waiting for room ------------------------------------------------

    boolean isWaiting(long guid) {
        return waiting.contains(guid);
    }

    boolean noneWaiting() {
        return waiting.isEmpty();
    }

    /** True when other switches wait before {@code guid}: it must queue behind them. */
    boolean othersFirst(long guid) {
        return !waiting.isEmpty() && waiting.iterator().next() != guid;
    }

    long firstWaiting() {
        return waiting.iterator().next();
    }

    void enqueue(long guid) {
        waiting.add(guid);
    }

    void dequeue(long guid) {
        waiting.remove(guid);
    }
}
