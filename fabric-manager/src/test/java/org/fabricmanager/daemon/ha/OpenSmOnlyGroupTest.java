package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Ha;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.opensm.OpenSmWire;
import org.fabricmanager.daemon.testing.PluginFrames;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three hot-standby managers in this JVM (plaintext Raft) of an OpenSM-only site, {@code southbound.enabled: false}:
 * neither the active manager nor a standby binds its configured southbound port, the active manager announces and
 * commits its REST address alone, and the standbys rehearse a takeover all the same (on a socket of their own).
 */
@Timeout(180)
class OpenSmOnlyGroupTest {
    private static final int ELECTION_MS = 1_000;

    @TempDir
    Path dir;
    private final List<HaManager> managers = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        HaMembers.closeAll(managers);
    }

    @Test
    void noMemberListensForAgentsAndTheLeaderAdvertisesRestAlone() throws Exception {
        List<String> peers = new ArrayList<>();
        List<Integer> southboundPorts = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            peers.add("n" + i + "=127.0.0.1:" + freePort());
            southboundPorts.add(freePort());
        }
        List<List<String>> lines = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            DaemonConfig config = DaemonConfig.defaults().withDetector(false).withSouthboundBind("127.0.0.1")
                    .withPorts(southboundPorts.get(i - 1), 0)
                    .withStateDirectory(Files.createDirectories(dir.resolve("n" + i))).withDiscovery(300, 10_000)
                    .withHa(new Ha(true, "n" + i, peers, ELECTION_MS, 1_000, 60_000))
                    .withOpenSm(OpenSm.of(dir.resolve("n" + i + ".sock").toString(), "0600", List.of(), null));
            config = config.withSouthbound(config.southbound().withEnabled(false));
            List<String> printed = new CopyOnWriteArrayList<>();
            lines.add(printed);
            managers.add(HaManager.start(config, printed::add));
        }
        HaManager leader = Await.value("an active manager", Duration.ofSeconds(60),
                () -> managers.stream().filter(m -> m.daemon() != null).findFirst().orElse(null), m -> m != null);
        int n = managers.indexOf(leader) + 1;
        assertThat(leader.daemon().southboundAddress()).isNull();
        List<String> printed = lines.get(n - 1);
        Await.until("n" + n + "'s rest line", Duration.ofSeconds(10), () -> printed.stream().anyMatch(l -> l.startsWith("rest ")));
        assertThat(printed).anyMatch(l -> l.startsWith("ha n" + n + " ACTIVE term "))
                .noneMatch(l -> l.startsWith("southbound "));

        LeaderEndpoints committed = Await.value("the endpoints committed to every member", Duration.ofSeconds(30),
                () -> endpoints(3), e -> e != null);
        assertThat(committed.nodeId()).isEqualTo("n" + n);
        assertThat(committed.southbound()).isNull();
        assertThat(committed.rest()).isEqualTo(leader.daemon().restUrl());

        // a standby rehearses once the replicated state holds a routing: the active manager routes OpenSM's subnet
        Await.value("OpenSM's subnet routed by n" + n, Duration.ofSeconds(60), () -> PluginFrames.exchange(
                dir.resolve("n" + n + ".sock"), PluginFrames.subnet(1, PgftGenerator.generate(
                        PgftSpec.parse("PGFT(2;2,2;1,2;1,1)")))), a -> a != null && a.type() == OpenSmWire.TABLES);
        Await.until("a standby's rehearsal", Duration.ofSeconds(90), () -> lines.stream()
                .anyMatch(l -> l.stream().anyMatch(s -> s.startsWith("hot ") && s.contains("manager start rehearsed"))));

        for (int i = 0; i < 3; i++) {
            int port = southboundPorts.get(i);
            assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
                    .as("n%d's southbound.port %d (%s)", i + 1, port, managers.get(i) == leader ? "active" : "standby")
                    .isInstanceOf(ConnectException.class);
        }
    }

    /** The leader endpoints every member's state directory holds, when they all hold the same; else {@code null}. */
    private LeaderEndpoints endpoints(int members) throws Exception {
        LeaderEndpoints first = null;
        for (int i = 1; i <= members; i++) {
            Path f = dir.resolve("n" + i).resolve(LeaderEndpoints.FILE);
            LeaderEndpoints e = Files.exists(f) ? LeaderEndpoints.decode(Files.readAllBytes(f)).orElse(null) : null;
            if (e == null || first != null && !first.equals(e)) {
                return null;
            }
            first = e;
        }
        return first;
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
