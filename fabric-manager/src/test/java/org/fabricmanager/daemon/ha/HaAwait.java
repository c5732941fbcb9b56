package org.fabricmanager.daemon.ha;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waiting in the ha tests: for a condition, and for a ready leader among Raft members of this JVM. */
final class HaAwait {
    private HaAwait() {
    }

    /** Polls {@code condition} every 20 ms; fails after {@code seconds}. */
    static void until(String what, int seconds, BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within " + seconds + " s: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** The member of {@code among} that leads and is ready, once one does (at most {@code seconds}). */
    static HaNode leader(List<HaNode> among, int seconds) throws InterruptedException {
        HaNode[] found = new HaNode[1];
        until("a leader among " + among.stream().map(HaNode::nodeId).toList(), seconds, () -> {
            for (HaNode n : among) {
                try {
                    HaNode.View v = n.view();
                    if (v.leading() && v.leaderReady()) {
                        found[0] = n;
                        return true;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return false;
        });
        return found[0];
    }
}
