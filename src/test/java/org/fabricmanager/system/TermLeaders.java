package org.fabricmanager.system;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The members that say they lead each term, as each member's {@code /api/v1/ha} tells it, polled on a thread until
 * closed: a system test's check that no term ever had two leaders.
 */
final class TermLeaders implements AutoCloseable {
    /** A member's {@code /api/v1/ha}; any failure counts as no answer this time. */
    interface Ha {
        JsonNode of(int member) throws Exception;
    }

    private final Map<Long, Set<Integer>> byTerm = new ConcurrentHashMap<>();
    private volatile boolean watching = true;
    private final Thread thread;

    /** Starts polling members 1 to {@code members}. */
    TermLeaders(int members, Ha ha) {
        thread = new Thread(() -> {
            while (watching) {
                for (int m = 1; m <= members; m++) {
                    try {
                        JsonNode node = ha.of(m);
                        if (node.path("role").asText().equals("LEADER")) {
                            byTerm.computeIfAbsent(node.path("term").asLong(), t -> ConcurrentHashMap.newKeySet()).add(m);
                        }
                    } catch (Exception e) {
                        // a member stopping, or too busy to answer in time: the next poll asks again
                    }
                }
                try {
                    Thread.sleep(20); // a poll interval (an election takes a second), not a wait for an outcome
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "leader-watch");
        thread.start();
    }

    /** The members seen leading, by term, so far. */
    Map<Long, Set<Integer>> byTerm() {
        return byTerm;
    }

    @Override
    public void close() throws InterruptedException {
        watching = false;
        thread.join(10_000);
    }
}
