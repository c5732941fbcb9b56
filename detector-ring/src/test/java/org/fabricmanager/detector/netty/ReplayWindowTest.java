package org.fabricmanager.detector.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The replay window against a plain model: every accepted (sender, sequence) remembered, nothing forgotten. */
class ReplayWindowTest {

    /** What the window must decide, written the obvious way. */
    private static final class Model {
        final Map<Integer, Long> incarnation = new HashMap<>();
        final Map<Integer, Long> highest = new HashMap<>();
        final Map<Integer, Set<Long>> accepted = new HashMap<>();

        ReplayWindow.Verdict accept(int from, long inc, long sequence) {
            if (!highest.containsKey(from)) {
                incarnation.put(from, inc);
                highest.put(from, sequence);
                accepted.computeIfAbsent(from, f -> new HashSet<>()).add(sequence);
                return ReplayWindow.Verdict.ACCEPTED;
            }
            long known = incarnation.get(from);
            if (inc > known && inc - known > ReplayWindow.MAX_JUMP) {
                return ReplayWindow.Verdict.INCARNATION_JUMP;
            }
            long top = highest.get(from);
            if (sequence <= top && top - sequence >= ReplayWindow.WINDOW) {
                return ReplayWindow.Verdict.TOO_OLD;
            }
            if (!accepted.get(from).add(sequence)) {
                return ReplayWindow.Verdict.REPLAYED;
            }
            highest.put(from, Math.max(top, sequence));
            incarnation.put(from, Math.max(known, inc));
            return ReplayWindow.Verdict.ACCEPTED;
        }
    }

    @Test
    void decidesAsTheModelForManySendersReorderedReplayedAndRejoined() {
        for (int seed = 0; seed < 100; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int ring = 2 + random.nextInt(20_000);
            int senders = 1 + random.nextInt(Math.min(ring, 300)); // more than the first arrays hold
            // distinct members: two streams of one member are a restart, judged by tracks (tests below)
            int[] who = random.ints(0, ring).distinct().limit(senders).toArray();
            long[] next = new long[senders];
            long[] inc = new long[senders];
            for (int s = 0; s < senders; s++) {
                next[s] = ReplayWindow.firstSequence(1_700_000_000_000L + random.nextInt(1_000_000));
            }
            ReplayWindow window = new ReplayWindow(ring);
            Model model = new Model();
            for (int op = 0; op < 5_000; op++) {
                int s = random.nextInt(senders);
                long sequence;
                switch (random.nextInt(6)) {
                    case 0 -> sequence = next[s] - random.nextInt(100); // reordered, replayed or too old
                    case 1 -> sequence = next[s] += 1 + random.nextInt(200); // a gap (lost datagrams)
                    default -> sequence = ++next[s];
                }
                long incarnation = switch (random.nextInt(50)) {
                    case 0 -> inc[s] += 1; // a rejoin
                    case 1 -> inc[s] + ReplayWindow.MAX_JUMP + 1 + random.nextInt(10); // implausible
                    default -> inc[s];
                };
                assertThat(window.accept(who[s], incarnation, sequence))
                        .as("seed %d op %d sender %d sequence %d", seed, op, who[s], sequence)
                        .isEqualTo(model.accept(who[s], incarnation, sequence));
            }
            assertThat(window.senders()).as("state only for those heard from").isEqualTo(model.highest.size());
        }
    }

    @Test
    void oneSealedDatagramNumberedAtTheTopCannotBlindTheReceiverToItsSender() {
        long[] now = {5_000_000_000L};
        ReplayWindow window = new ReplayWindow(8, () -> now[0]);
        long next = ReplayWindow.firstSequence(1_700_000_000_000L);
        for (int i = 0; i < 10; i++) {
            assertThat(window.accept(3, 1, next++)).isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        }
        window.accept(3, 1, Long.MAX_VALUE); // forged with the ring key
        for (int i = 0; i < 1_000; i++) {
            now[0] += 1_000_000L;
            assertThat(window.accept(3, 1, next++)).as("true datagram %d after the forged one", i)
                    .isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        }
        assertThat(window.accept(3, 1, Long.MAX_VALUE)).as("the forged one replayed")
                .isEqualTo(ReplayWindow.Verdict.REPLAYED);
        assertThat(window.accept(3, 1, -2L)).as("a second leap within the interval")
                .isEqualTo(ReplayWindow.Verdict.SEQUENCE_JUMP);
        now[0] += ReplayWindow.LEAP_INTERVAL_NANOS;
        assertThat(window.accept(3, 1, -2L)).as("a second leap later: it takes the forged one's track")
                .isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        assertThat(window.accept(3, 1, next++)).as("the true track is kept").isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        assertThat(window.accept(3, 1, next - 1)).isEqualTo(ReplayWindow.Verdict.REPLAYED);
    }

    @Test
    void aRestartedSenderContinuesOnANewTrackAndItsEarlierLifeCannotBeReplayed() {
        long[] now = {1L};
        ReplayWindow window = new ReplayWindow(8, () -> now[0]);
        long first = ReplayWindow.firstSequence(1_700_000_000_000L);
        for (long s = first; s < first + 200; s++) {
            assertThat(window.accept(5, 2, s)).isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        }
        now[0] += 3_000_000_000L;
        long restarted = ReplayWindow.firstSequence(1_700_000_003_000L); // started 3 s later
        for (long s = restarted; s < restarted + 200; s++) {
            assertThat(window.accept(5, 2, s)).as("restarted life, datagram %d", s - restarted)
                    .isEqualTo(ReplayWindow.Verdict.ACCEPTED);
        }
        assertThat(window.accept(5, 2, first + 199)).isEqualTo(ReplayWindow.Verdict.REPLAYED);
        assertThat(window.accept(5, 2, first + 10)).isEqualTo(ReplayWindow.Verdict.TOO_OLD);
        assertThat(window.accept(5, 2, restarted + 150)).isEqualTo(ReplayWindow.Verdict.REPLAYED);
    }

    @Test
    void aSenderOutsideTheRingIsRefusedLoudly() {
        ReplayWindow window = new ReplayWindow(8);
        assertThatThrownBy(() -> window.accept(8, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> window.accept(-1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(window.senders()).isZero();
    }
}
