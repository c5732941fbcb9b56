package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** When the changes waiting for a re-route are a complete picture of link faults, and when they are not. */
class LinkReportsTest {
    final LinkReports links = new LinkReports();

    @Test
    void aLinkIsCompleteOnceItsSecondEndReports() {
        assertThat(links.complete()).isTrue();
        links.portChanged(0xA, 3, 0xB, 7, false);
        assertThat(links.complete()).isFalse();
        links.portChanged(0xB, 7, 0xA, 3, true);
        assertThat(links.complete()).isTrue();
        assertThat(links.waiting()).isZero();
    }

    @Test
    void aPortToANodeOrToNobodyKnownIsCompleteByItself() {
        links.portChanged(0xA, 1, 0, 0, true);
        assertThat(links.complete()).isTrue();
    }

    @Test
    void anyOtherChangeKeepsThePictureIncompleteUntilTheRerouteStarts() {
        links.portChanged(0xA, 3, 0xB, 7, false);
        links.otherChange();
        links.portChanged(0xB, 7, 0xA, 3, true);
        assertThat(links.complete()).as("a switch lost or admitted is not a link").isFalse();
        links.clear();
        assertThat(links.complete()).isTrue();
    }

    @Test
    void theNeighboursOfADeadSwitchNeverCompleteThePicture() {
        for (int port = 1; port <= 32; port++) {
            links.portChanged(0x100 + port, 1, 0xDEAD, port, false);
        }
        assertThat(links.complete()).isFalse();
        assertThat(links.waiting()).isEqualTo(32);
    }

    @Test
    void reportsOfManyLinksInAnyOrderAreCompleteExactlyWhenEveryLinkHasBothEnds() {
        Random random = new Random(5);
        for (int round = 0; round < 200; round++) {
            LinkReports r = new LinkReports();
            int n = 1 + random.nextInt(10);
            List<long[]> ends = new ArrayList<>(); // guid, port, peer guid, peer port
            for (int i = 0; i < n; i++) {
                ends.add(new long[] {10 + i, 1 + i, 100 + i, 20 + i});
                ends.add(new long[] {100 + i, 20 + i, 10 + i, 1 + i});
            }
            Collections.shuffle(ends, random);
            int withheld = random.nextBoolean() ? random.nextInt(ends.size()) : -1;
            List<long[]> reported = new ArrayList<>();
            for (int k = 0; k < ends.size(); k++) {
                if (k == withheld) {
                    continue;
                }
                long[] e = ends.get(k);
                boolean peerReported = reported.stream().anyMatch(x -> x[0] == e[2] && x[1] == e[3]);
                r.portChanged(e[0], (int) e[1], e[2], (int) e[3], peerReported);
                reported.add(e);
                boolean allPaired = reported.stream().allMatch(x -> reported.stream()
                        .anyMatch(y -> y[0] == x[2] && y[1] == x[3]));
                assertThat(r.complete()).as("round %d after %d reports", round, reported.size()).isEqualTo(allPaired);
            }
        }
    }
}
