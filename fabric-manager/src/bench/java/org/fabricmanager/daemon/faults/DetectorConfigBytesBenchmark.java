package org.fabricmanager.daemon.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.SouthboundCodec;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Bytes the daemon sends to configure the agents' ring members, from the codec (exact, no timing): per agent
 * and in all, whole ring (DETECTOR_CONFIG chunks, agents without {@code features} bit 1) against the window
 * (DETECTOR_WINDOW) plus the start-up lookup of the overlay neighbours; and one join on a new endpoint. Rings of
 * {@code fm.bench.switches} switches (default 192,768,5120). A benchmark, not a test: {@code -Dfm.bench=true}.
 */
class DetectorConfigBytesBenchmark {

    @Test
    void detectorConfigurationBytes() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("fm.bench"), "benchmark: run with -Dfm.bench=true");
        String sizes = System.getProperty("fm.bench.switches", "192,768,5120");
        System.out.println("| switches | whole ring per agent | whole ring in all | window per agent | start-up lookup per "
                + "agent (ask + answer) | window + lookup in all | one join: agents told | one join: bytes |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (String s : sizes.split(",")) {
            int switches = Integer.parseInt(s.trim());
            List<Long> order = new ArrayList<>();
            try (RingCoordinator ring = RingWindowTest.planned(switches, order)) {
                int n = ring.size();
                long fullAll = 0;
                long windowAll = 0;
                long lookupAll = 0;
                int fullOne = 0;
                int windowOne = 0;
                int lookupOne = 0;
                for (int k = 0; k < order.size(); k++) {
                    long guid = order.get(k);
                    int full = RingWindowTest.fullFormBytes(ring, guid);
                    int window = SouthboundCodec.frameBytes(ring.windowFor(guid, false));
                    int lookup = startupLookupBytes(ring, k + 1, guid);
                    fullAll += full;
                    windowAll += window;
                    lookupAll += lookup;
                    if (k == order.size() / 2) {
                        fullOne = full;
                        windowOne = window;
                        lookupOne = lookup;
                    }
                }
                long mover = order.get(order.size() / 3);
                var updates = ring.moved(mover, RingWindowTest.endpoint(order.size() / 3, 9999));
                long joinBytes = SouthboundCodec.frameBytes(ring.windowFor(mover, true));
                for (Message.DetectorPeers u : updates.values()) {
                    joinBytes += SouthboundCodec.frameBytes(u);
                }
                System.out.printf("| %,d | %,d | %,d | %,d | %,d | %,d | %d | %,d |%n", switches, fullOne, fullAll,
                        windowOne, lookupOne, windowAll + lookupAll, updates.size(), joinBytes);
            }
        }
    }

    /** What the member of ring index {@code self} asks at start (self ± 2^j outside its window) and the answer. */
    private static int startupLookupBytes(RingCoordinator ring, int self, long guid) {
        int n = ring.size();
        TreeSet<Integer> ask = new TreeSet<>();
        for (long step = 1; step < n; step <<= 1) {
            for (long peer : new long[] {self + step, self - step + n}) {
                int p = (int) (peer % n);
                int d = Math.floorMod(p - self, n);
                if (Math.min(d, n - d) > RingDirectory.WINDOW) {
                    ask.add(p);
                }
            }
        }
        if (ask.isEmpty()) {
            return 0;
        }
        int[] members = ask.stream().mapToInt(Integer::intValue).toArray();
        int bytes = 0;
        for (int from = 0; from < members.length; from += Protocol.MAX_LOOKUP_MEMBERS) {
            int[] part = java.util.Arrays.copyOfRange(members, from, Math.min(members.length, from + Protocol.MAX_LOOKUP_MEMBERS));
            bytes += SouthboundCodec.frameBytes(new Message.DetectorLookup(1, ring.epoch(), part));
            bytes += SouthboundCodec.frameBytes(ring.lookup(1, ring.epoch(), guid, part));
        }
        return bytes;
    }
}
