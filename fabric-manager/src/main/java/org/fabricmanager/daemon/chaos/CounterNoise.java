package org.fabricmanager.daemon.chaos;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;

/**
 * Port counters that are noisy but healthy, for every switch port with a cable: each port carries traffic of its own
 * (loaded, light, or idle below {@code loadPacketsPerSecond}), a loaded or light port counts errors and drops at a
 * rate of its own under a third of the suspect thresholds, now and then a burst of receive errors that leaves the
 * port's window under two fifths of the bad threshold, and an idle port a few errors now and then (one to three, on
 * one read in twenty). So no window of a link ever reaches a bad threshold, yet the judgements see errors everywhere
 * and bursts over the suspect ones. Seeded: one seed, one run. Tallies what it injected, so that a run can show the
 * noise was there.
 */
final class CounterNoise {
    /** A port's traffic and its own error rates. */
    private record PortNoise(long packetsPerSecond, double rxErrorPpm, double txDropPpm) {
    }

    /** What was injected. */
    record Tally(long reads, long errors, long bursts, long idleErrors) {
    }

    private static final int F = PortCounters.FIELDS;
    private final LinkHealthSection config;
    private final Random random;
    private final Map<Long, PortNoise[]> noise = new HashMap<>();
    private final Map<Long, long[]> values = new HashMap<>();
    private final Map<Long, Long> lastNanos = new HashMap<>();
    /** Each switch's first read: no burst until a whole window of reads is behind it (a short window's ppm is high). */
    private final Map<Long, Long> firstNanos = new HashMap<>();
    /** Each port's bursts in its last window (ns of the burst), to keep two fifths of the bad threshold. */
    private final Map<Long, long[]> burstAt = new HashMap<>();
    private long reads;
    private long errors;
    private long bursts;
    private long idleErrors;

    CounterNoise(Fabric fabric, LinkHealthSection config, long seed) {
        this.config = config;
        this.random = new Random(seed);
        Map<Long, Integer> radix = new HashMap<>();
        for (Link l : fabric.links()) {
            if (fabric.isSwitch(l.a())) {
                radix.merge(l.a(), l.aPort(), Math::max);
            }
            if (fabric.isSwitch(l.b())) {
                radix.merge(l.b(), l.bPort(), Math::max);
            }
        }
        radix.forEach((guid, ports) -> {
            PortNoise[] n = new PortNoise[ports];
            for (int p = 0; p < ports; p++) {
                int kind = random.nextInt(10);
                long pps = kind < 6 ? 20_000 + random.nextInt(2_000_000) // loaded
                        : kind < 8 ? config.loadPacketsPerSecond() + random.nextInt(19_000) // light
                        : random.nextInt(Math.max(1, config.loadPacketsPerSecond() / 2)); // idle
                n[p] = new PortNoise(pps, random.nextDouble() * config.suspectPpm().rxErrors() / 3,
                        random.nextDouble() * config.suspectPpm().txDrops() / 3);
            }
            noise.put(guid, n);
            values.put(guid, new long[ports * F]);
            burstAt.put(guid, new long[ports]);
        });
    }

    /** Makes switch {@code guid}'s port {@code port} err under load at five times the bad threshold: not noise. */
    void plantErring(long guid, int port) {
        noise.get(guid)[port - 1] = new PortNoise(200_000, config.badPpm().rxErrors() * 5.0, 0);
    }

    /** The switches with cabled ports, whose counters this makes. */
    Iterable<Long> switches() {
        return noise.keySet();
    }

    /** Switch {@code guid}'s counters read at {@code nanos}: what its ports counted since its last read. */
    PortCounters read(long guid, long nanos) {
        PortNoise[] n = noise.get(guid);
        long[] v = values.get(guid);
        Long last = lastNanos.put(guid, nanos);
        long first = firstNanos.computeIfAbsent(guid, g -> nanos);
        reads++;
        double seconds = last == null ? 0 : (nanos - last) / 1e9;
        long windowNanos = config.windowMs() * 1_000_000L;
        boolean full = nanos - first > windowNanos + config.pollIntervalMs() * 1_000_000L;
        for (int p = 0; p < n.length; p++) {
            long packets = Math.round(n[p].packetsPerSecond() * seconds * (0.8 + 0.4 * random.nextDouble()));
            v[p * F + PortCounter.RX_PACKETS.ordinal()] += packets;
            v[p * F + PortCounter.TX_PACKETS.ordinal()] += packets;
            v[p * F + PortCounter.RX_BYTES.ordinal()] += packets * 2_048;
            v[p * F + PortCounter.TX_BYTES.ordinal()] += packets * 2_048;
            long rx;
            long drops;
            if (n[p].packetsPerSecond() < config.loadPacketsPerSecond()) {
                rx = random.nextInt(20) == 0 ? 1 + random.nextInt(3) : 0;
                idleErrors += rx;
                drops = 0;
            } else {
                rx = chance(packets * n[p].rxErrorPpm() / 1e6);
                drops = chance(packets * n[p].txDropPpm() / 1e6);
                long[] at = burstAt.get(guid);
                if (full && random.nextInt(2_000) == 0 && (at[p] == 0 || nanos - at[p] > windowNanos)) {
                    // the window's packets at this port's rate, two fifths of the bad threshold of them at most
                    double windowPackets = n[p].packetsPerSecond() * 0.8 * config.windowMs() / 1000.0;
                    long most = (long) (windowPackets * config.badPpm().rxErrors() / 1e6 * 0.4);
                    if (most > config.minErrors()) {
                        rx += most / 2 + random.nextLong(most / 2);
                        at[p] = nanos;
                        bursts++;
                    }
                }
            }
            v[p * F + PortCounter.RX_ERRORS.ordinal()] += rx;
            v[p * F + PortCounter.TX_DROPS.ordinal()] += drops;
            errors += rx + drops;
        }
        return new PortCounters(1, v.clone());
    }

    /** {@code mean} rounded down, plus one with the chance of its fraction. */
    private long chance(double mean) {
        long whole = (long) mean;
        return whole + (random.nextDouble() < mean - whole ? 1 : 0);
    }

    Tally tally() {
        return new Tally(reads, errors, bursts, idleErrors);
    }
}
