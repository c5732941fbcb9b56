package org.fabricmanager.daemon.ha;

import java.time.Duration;
import java.util.List;
import org.fabricmanager.testing.Await;

/** The ha tests' wait for a ready leader among Raft members of this JVM. */
final class HaLeaders {
    private HaLeaders() {
    }

    /** The member of {@code among} that leads and is ready, once one does (at most {@code timeout}). */
    static HaNode awaitReady(List<HaNode> among, Duration timeout) {
        return Await.value("a ready leader among " + among.stream().map(HaNode::nodeId).toList(), timeout, () -> {
            for (HaNode n : among) {
                HaNode.View v = n.view();
                if (v.leading() && v.leaderReady()) {
                    return n;
                }
            }
            return null;
        }, n -> n != null);
    }
}
