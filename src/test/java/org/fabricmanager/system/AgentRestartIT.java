package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.southbound.RawFrames.readFrame;
import static org.fabricmanager.southbound.RawFrames.readUntilClosed;
import static org.fabricmanager.southbound.RawFrames.send;
import static org.fabricmanager.system.SystemSupport.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.daemon.FabricManagerDaemon;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.daemon.config.Southbound;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A switch agent that restarts while the daemon still holds its previous run's TCP connection (a
 * process or host that died without a FIN) is back at once: its higher incarnation takes the session
 * over instead of being refused until the idle timeout. The idle timeout here is ten minutes, so
 * nothing but the takeover can explain the admission.
 */
class AgentRestartIT {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path state;
    FabricManagerDaemon daemon;
    FabricSimulator sim;
    final Fabric fabric = PgftGenerator.generate(SPEC);

    @BeforeEach
    void converge() throws Exception {
        DaemonConfig c = SystemSupport.config(state, SPEC);
        Southbound sb = c.southbound();
        c = new DaemonConfig(new Southbound(sb.bind(), sb.port(), sb.maxFrameBytes(), sb.handshakeTimeoutMs(),
                sb.echoIntervalMs(), 600_000, sb.ioThreads()), c.rest(), c.fabric(), c.discovery(), c.routing(), c.push(),
                c.state(), c.faults());
        daemon = FabricManagerDaemon.start(c, List.of());
        sim = SystemSupport.simulator(fabric, daemon.southboundAddress().getPort());
        sim.start();
        await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 8, "convergence");
    }

    @AfterEach
    void stop() {
        if (sim != null) {
            sim.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void restartedAgentTakesOverTheConnectionItsPreviousRunLeftOpen() throws Exception {
        long leaf = PgftGenerator.switchGuid(1, 2);
        SwitchAgent agent = sim.agent(leaf);
        long previousRun = agent.incarnation();
        // The previous run is played by a raw client at that run's incarnation, which never answers
        // anything and never closes (a frozen process): first take the real agent off the wire.
        agent.stop().syncUninterruptibly();
        await(daemon, s -> s.state() == DaemonState.CONVERGED && s.switches().connected() == 7, "the leaf gone");
        try (Socket old = new Socket("127.0.0.1", daemon.southboundAddress().getPort())) {
            old.setSoTimeout(20_000);
            send(old, new Message.Hello(1, 3, 3, leaf, previousRun, agent.portCount(), 65_536, 0, 0, TableHash.EMPTY,
                    agent.name()));
            assertThat(readFrame(old)).isInstanceOf(Message.HelloReply.class);
            send(old, new Message.PortInfo(2, agent.ports()));
            await(daemon, s -> s.switches().connected() == 8 && s.tables().pending() == 1,
                    "the previous run's session admitted, its table never acknowledged");

            agent.start(); // the restarted agent: same GUID, higher incarnation
            List<Message> frames = readUntilClosed(old);
            assertThat(frames).as("frames to the previous run").isNotEmpty();
            Message last = frames.get(frames.size() - 1);
            assertThat(last).as("last frame before the daemon closed it").isInstanceOf(ErrorReport.class);
            ErrorReport e = (ErrorReport) last;
            assertThat(e.errorCode()).contains(ErrorCode.SUPERSEDED);
            assertThat(e.fatal()).isTrue();
            assertThat(e.message()).contains("superseded by its restarted agent (incarnation " + agent.incarnation());
        }
        assertThat(agent.incarnation()).isGreaterThan(previousRun);

        Views.Status s = await(daemon, st -> st.state() == DaemonState.CONVERGED && st.switches().connected() == 8
                && st.tables().inSync() == 8, "convergence with the restarted agent");
        SystemSupport.assertAgentsHold(sim, SystemSupport.routeCommand(fabric, state, "intact"), s.routing().version());
        assertThat(agent.handshakes()).isEqualTo(2);

        JsonNode detail = get("/api/v1/switches/" + Guids.format(leaf));
        assertThat(detail.get("connected").asBoolean()).isTrue();
        assertThat(detail.get("incarnation").asLong()).isEqualTo(agent.incarnation());
        assertThat(detail.get("inSync").asBoolean()).isTrue();
        List<String> restarts = new ArrayList<>();
        for (JsonNode m : get("/api/v1/events?since=0")) {
            if (m.get("kind").asText().equals("SWITCH_RESTARTED")) {
                restarts.add(m.get("message").asText());
            }
        }
        assertThat(restarts).containsExactly("switch " + Guids.format(leaf) + " (" + agent.name() + ") restarted "
                + "(incarnation " + previousRun + " -> " + agent.incarnation() + "): took over its session");
    }

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(daemon.restUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

}
