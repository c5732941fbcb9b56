package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.fabricmanager.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The watch's verdict against real sockets on loopback: "gone" only when the leader's port, which accepted the
 * watch before, closes it and then refuses; a server that closes idle connections but still listens, and a port
 * that never accepted, are no verdict.
 */
class LeaderWatchTest {
    final List<LeaderWatch.Target> gone = new CopyOnWriteArrayList<>();
    final LeaderWatch watch = new LeaderWatch("test-leader-watch", gone::add);

    @AfterEach
    void close() {
        watch.close();
    }

    @Test
    void aLeaderWhosePortClosesIsGone() throws Exception {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        LeaderWatch.Target leader = target("n2", 3, server.getLocalPort());
        watch.follow(leader);
        Socket accepted = server.accept(); // the watch holds a connection
        assertThat(gone).as("nothing while the leader listens").isEmpty();
        // the process dies: its kernel closes the listening socket and the held connection
        server.close();
        accepted.close();
        await("the verdict", () -> !gone.isEmpty());
        assertThat(gone).containsExactly(leader);
    }

    @Test
    void aDyingProcessWhoseListenerOutlivesTheHeldConnectionIsGone() throws Exception {
        // the kernel of a dying process may close the held connection first: the reconnect is accepted by the
        // listener that is about to close, then reset with it
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        LeaderWatch.Target leader = target("n1", 7, server.getLocalPort());
        watch.follow(leader);
        server.accept().close();
        Socket last = server.accept();
        server.close();
        last.setSoLinger(true, 0); // a reset
        last.close();
        await("the verdict", () -> !gone.isEmpty());
        assertThat(gone).containsExactly(leader);
    }

    @Test
    void aServerThatClosesIdleConnectionsButListensIsNotGone() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            watch.follow(target("n1", 2, server.getLocalPort()));
            server.accept().close(); // e.g. the Raft server's TLS handshake timeout
            server.setSoTimeout((int) (5 * LeaderWatch.MIN_HOLD_MS));
            try (Socket again = server.accept()) {
                assertThat(again.isConnected()).as("the watch connected again").isTrue();
            }
            assertThat(gone).isEmpty();
        }
    }

    @Test
    void aPortThatNeverAcceptedIsNoVerdict() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        watch.follow(target("n3", 5, port)); // refused from the start: a wrong address, not a death
        // refused, the watch waits MIN_HOLD_MS to try again (a timed wait); after a verdict it would wait untimed
        Thread thread = watchThread();
        await("the watch to wait before trying again", () -> thread.getState() == Thread.State.TIMED_WAITING);
        assertThat(gone).isEmpty();
    }

    @Test
    void aNewLeaderIsWatchedInsteadOfTheOld() throws Exception {
        try (ServerSocket first = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             ServerSocket second = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            watch.follow(target("n1", 2, first.getLocalPort()));
            Socket held = first.accept();
            watch.follow(target("n2", 3, second.getLocalPort()));
            held.setSoTimeout(5_000);
            assertThat(held.getInputStream().read()).as("the old leader's connection is closed").isEqualTo(-1);
            held.close();
            second.setSoTimeout(5_000);
            second.accept().close(); // and the new one is held (then closed by it: it still listens)
            try (Socket again = second.accept()) {
                assertThat(again.isConnected()).as("the watch connected again: no verdict").isTrue();
            }
            assertThat(gone).isEmpty();
        }
    }

    @Test
    void theMemberAfterTheGoneLeaderCampaigns() {
        assertThat(Campaigns.campaigner(List.of("n1", "n2", "n3"), "n2")).isEqualTo("n3");
        assertThat(Campaigns.campaigner(List.of("n3", "n1", "n2"), "n3")).as("wraps around, any order").isEqualTo("n1");
        assertThat(Campaigns.campaigner(List.of("b", "a", "e", "d", "c"), "c")).isEqualTo("d");
        assertThat(Campaigns.campaignRank(List.of("n1", "n2", "n3"), "n2", "n3")).as("the first campaigns at once").isZero();
        assertThat(Campaigns.campaignRank(List.of("n1", "n2", "n3"), "n2", "n1")).as("the other after one backup wait")
                .isOne();
        assertThat(Campaigns.campaignRank(List.of("b", "a", "e", "d", "c"), "c", "b")).isEqualTo(3);
    }

    private static LeaderWatch.Target target(String id, long term, int port) {
        return new LeaderWatch.Target(id, term, new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(15), condition);
    }

    /** The watch's thread, found by its name. */
    private static Thread watchThread() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("test-leader-watch"))
                .findFirst().orElseThrow();
    }
}
