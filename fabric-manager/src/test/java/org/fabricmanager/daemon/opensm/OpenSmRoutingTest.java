package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.opensm.OpenSmWire.EndPort;
import org.fabricmanager.daemon.opensm.OpenSmWire.Subnet;
import org.fabricmanager.daemon.opensm.OpenSmWire.SwitchEntry;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.southbound.SwitchSession;
import org.junit.jupiter.api.Test;
import org.fabricmanager.daemon.testing.UnansweredApi;

/** What the daemon's discovery hears from OpenSM's subnets, and the refusal when its tables do not converge. */
class OpenSmRoutingTest {
    private static final long LEAF = 0x10;
    private static final long SPINE = 0x20;
    private static final long CA = 0xC0;

    private final List<String> heard = new ArrayList<>();
    private final SouthboundListener listener = new SouthboundListener() {
        @Override
        public void helloReceived(SwitchSession session, Message.Hello hello) {
            heard.add("hello " + Long.toHexString(hello.guid()) + " ports " + hello.portCount());
        }

        @Override
        public void portInfoReceived(SwitchSession session, Message.PortInfo info) {
            heard.add("info " + Long.toHexString(session.guid()) + " " + info.ports());
        }

        @Override
        public void portStatusReceived(SwitchSession session, Message.PortStatus status) {
            heard.add("status " + Long.toHexString(session.guid()) + " " + status.ports());
        }

        @Override
        public void sessionClosed(SwitchSession session, String reason) {
            heard.add("closed " + Long.toHexString(session.guid()) + ": " + reason);
        }
    };

    /** A leaf (port 1: the CA, port 2: the spine's port 1 when {@code linked}) and a spine. */
    private static Subnet subnet(long seq, boolean linked, boolean withSpine) {
        List<SwitchEntry> switches = new ArrayList<>();
        switches.add(new SwitchEntry(LEAF, 1, "leaf", new long[] {CA, linked ? SPINE : 0}, new int[] {1, linked ? 1 : 0}));
        if (withSpine) {
            switches.add(new SwitchEntry(SPINE, 2, "spine", new long[] {linked ? LEAF : 0}, new int[] {linked ? 2 : 0}));
        }
        return new Subnet(seq, switches, List.of(new EndPort(CA, CA + 1, 1, 3, "node")));
    }

    @Test
    void reportsSwitchesAsSessionsThenOnlyTheirChangedPortsThenTheirDeparture() throws Exception {
        OpenSmRouting routing = new OpenSmRouting(listener, new StatusApi(DaemonState.DISCOVERING),
                UnixDomainSocketAddress.of("/nonexistent"));
        routing.answer(subnet(1, true, true), 1);
        assertThat(heard).containsExactly("hello 10 ports 2",
                "info 10 " + List.of(PortRecord.toNode(1, CA, "node"), PortRecord.toSwitch(2, SPINE, 1, "spine")),
                "hello 20 ports 1", "info 20 " + List.of(PortRecord.toSwitch(1, LEAF, 2, "leaf")));
        heard.clear();

        routing.answer(subnet(2, false, true), 1);
        assertThat(heard).containsExactly("status 10 " + List.of(PortRecord.down(2)), "status 20 " + List.of(PortRecord.down(1)));
        heard.clear();

        routing.answer(subnet(3, false, true), 1);
        assertThat(heard).as("the same subnet again changes nothing").isEmpty();

        routing.answer(subnet(4, false, false), 1);
        assertThat(heard).containsExactly("closed 20: OpenSM's subnet no longer holds it");
    }

    @Test
    void refusesASubnetWhoseTablesDoNotConvergeInTime() throws Exception {
        OpenSmRouting routing = new OpenSmRouting(listener, new StatusApi(DaemonState.ROUTING),
                UnixDomainSocketAddress.of("/nonexistent"));
        ByteBuffer answer = routing.answer(subnet(5, true, true), 20);
        assertThat(answer.get(5)).isEqualTo((byte) OpenSmWire.REFUSED);
        assertThat(answer.getLong(OpenSmWire.HEADER_BYTES)).isEqualTo(5);
        assertThat(new String(answer.array(), OpenSmWire.HEADER_BYTES + 8, answer.limit() - OpenSmWire.HEADER_BYTES - 8,
                StandardCharsets.UTF_8)).contains("did not converge in time (state ROUTING)");
    }

    /** A daemon that is always in one state and answers nothing else. */
    private static final class StatusApi extends UnansweredApi {
        private final DaemonState state;

        StatusApi(DaemonState state) {
            this.state = state;
        }

        @Override
        public CompletableFuture<Views.Status> status() {
            return CompletableFuture.completedFuture(new Views.Status(state, null, 0, null, null, null, null, 0, "x", null, null));
        }
    }
}
