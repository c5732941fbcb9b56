package org.fabricmanager.daemon.push;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.fabricmanager.southbound.LftBatch;

/**
 * The traffic figures of an {@link LftPusher}: blocks, bytes, commits and retries since it started (totals and
 * Micrometer meters) and the figures of the current version's installation ({@link PushRound}), which counts the
 * blocks staged ahead of it too.
 */
final class PushAccounting {
    private final Counter blocksCounter;
    private final Counter bytesCounter;
    private final Counter commitsCounter;
    private final Counter retriesCounter;
    private long totalBlocks;
    private long totalBytes;
    private long totalCommits;
    private long totalRetries;
    private long totalAcks;
    private long totalStagedAhead;
    private Round round;

    PushAccounting(MeterRegistry registry) {
        this.blocksCounter = Counter.builder("fabric.push.blocks").description("LFT blocks sent").register(registry);
        this.bytesCounter = Counter.builder("fabric.push.bytes").baseUnit("bytes").description("bytes of LFT blocks and commits sent").register(registry);
        this.commitsCounter = Counter.builder("fabric.push.commits").description("LFT commits sent").register(registry);
        this.retriesCounter = Counter.builder("fabric.push.retries").description("batches re-sent after a timeout or a refusal").register(registry);
    }

    /** The installation of {@code version} starts: a new round. */
    void startRound(long version) {
        round = new Round(version);
    }

    /** Counts blocks and bytes sent, with their commit or ahead of it, in the totals and the meters. */
    void sent(int blocks, long bytes) {
        totalBlocks += blocks;
        totalBytes += bytes;
        blocksCounter.increment(blocks);
        bytesCounter.increment(bytes);
    }

    /**
     * Counts a commit sent in {@code batch} ({@code bytes} on the wire, blocks counted by {@link #sent}), to a switch
     * of unknown content when {@code full}, with blocks staged ahead ({@code stagedBytes} on the wire) when
     * {@code ahead}.
     */
    void committed(LftBatch batch, long bytes, boolean full, boolean ahead, long stagedBytes) {
        totalCommits++;
        commitsCounter.increment();
        if (ahead) {
            totalStagedAhead++;
        }
        if (round != null && round.version == batch.version()) {
            // blocks staged ahead count in the round that installs them (sent earlier, counted in the totals then)
            round.blocks += batch.commitBlocks();
            round.bytes += bytes + (ahead ? stagedBytes : 0);
            round.commits++;
            if (full) {
                round.fullPushes++;
            }
            if (ahead) {
                round.stagedAhead++;
            }
        }
    }

    /**
     * A switch acknowledged version {@code version} as expected.
     *
     * @return the acknowledgements in all, this one included (the switch's mark for {@link PushFigures})
     */
    long acked(long version) {
        totalAcks++;
        if (round != null && round.version == version) {
            round.acked++;
        }
        return totalAcks;
    }

    /** The totals since start. */
    PushTotals totals() {
        return new PushTotals(totalBlocks, totalBytes, totalCommits, totalAcks, totalStagedAhead);
    }

    /** A batch is to be sent again after a timeout or a refusal. */
    void retried() {
        totalRetries++;
        retriesCounter.increment();
        if (round != null) {
            round.retries++;
        }
    }

    /** Ends the round if it is still open. */
    void roundComplete() {
        if (round != null && round.completed < 0) {
            round.completed = System.nanoTime();
        }
    }

    /** Figures of the current version's installation, or {@code null} before the first. */
    PushRound round() {
        return round == null ? null : round.snapshot();
    }

    long totalBlocks() {
        return totalBlocks;
    }

    long totalBytes() {
        return totalBytes;
    }

    long totalCommits() {
        return totalCommits;
    }

    long totalRetries() {
        return totalRetries;
    }

    private static final class Round {
        final long version;
        final long started = System.nanoTime();
        long completed = -1;
        long blocks;
        long bytes;
        long commits;
        long acked;
        long retries;
        long fullPushes;
        long stagedAhead;

        Round(long version) {
            this.version = version;
        }

        PushRound snapshot() {
            return new PushRound(version, started, completed, blocks, bytes, commits, acked, retries, fullPushes,
                    stagedAhead);
        }
    }
}
