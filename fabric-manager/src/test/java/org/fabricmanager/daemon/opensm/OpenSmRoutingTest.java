package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.UnixDomainSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.fabricmanager.daemon.api.DaemonState;
import org.fabricmanager.daemon.api.Views;
import org.fabricmanager.daemon.opensm.OpenSmWire.EndPort;
import org.fabricmanager.daemon.opensm.OpenSmWire.Subnet;
import org.fabricmanager.daemon.opensm.OpenSmWire.SwitchEntry;
import org.fabricmanager.daemon.testing.UnansweredApi;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.southbound.SwitchSession;
import org.fabricmanager.southbound.SwitchUnreachableException;
import org.fabricmanager.southbound.TableHash;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.Fabric;
import org.junit.jupiter.api.Test;

/**
 * What the daemon's discovery hears from OpenSM's subnets, the refusal when its tables are not ready, the refusal of a
 * subnet naming an agent's switch, and a switch in sync only once OpenSM's SET after the pass that carried its table.
 */
class OpenSmRoutingTest {
    private static final long LEAF = 0x10;
    private static final long SPINE = 0x20;
    private static final long CA = 0xC0;

    private final List<String> heard = new ArrayList<>();
    private final List<String> refusals = new ArrayList<>();
    private final Set<Long> agents = new HashSet<>();
    private final AtomicReference<String> lost = new AtomicReference<>();
    private final PassRequests passes = new PassRequests(n -> true, System::currentTimeMillis);
    private final SouthboundListener listener = new SouthboundListener() {
        @Override
        public boolean heldByAgent(long guid) {
            return agents.contains(guid);
        }

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
        return new Subnet(seq, 0, switches, List.of(new EndPort(CA, CA + 1, 1, 3, "node")));
    }

    @Test
    void reportsSwitchesAsSessionsThenOnlyTheirChangedPortsThenTheirDeparture() throws Exception {
        OpenSmRouting routing = routing(DaemonState.DISCOVERING);
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
        OpenSmRouting routing = routing(DaemonState.ROUTING);
        OpenSmAnswer answer = routing.answer(subnet(5, true, true), 20);
        assertThat(answer).isInstanceOfSatisfying(OpenSmAnswer.Refused.class, r -> {
            assertThat(r.seq()).isEqualTo(5);
            assertThat(r.why()).as("the daemon asks for a pass once it has tables").isEqualTo(Refusal.NOT_READY);
            assertThat(r.reason()).contains("were not ready in time (state ROUTING)");
        });
    }

    @Test
    void refusesASubnetNamingAnAgentsSwitchBeforeMakingAnySessionOfIt() throws Exception {
        agents.add(SPINE);
        OpenSmAnswer.Refused answer = (OpenSmAnswer.Refused) routing(DaemonState.CONVERGED).answer(subnet(6, true, true),
                1_000);
        assertThat(answer.why()).isEqualTo(Refusal.INVALID);
        assertThat(reason(answer)).contains("names 1 switch(es) that an agent of its own manages")
                .contains("0x0000000000000020 (spine)");
        assertThat(refusals).containsExactly(reason(answer));
        assertThat(heard).as("no session of the leaf or the spine").isEmpty();
    }

    @Test
    void aTableIsInstalledOnlyOnceOpenSmSetsThePassThatCarriedIt() {
        OpenSmSwitchSession session = new OpenSmSwitchSession(new Message.Hello(0, 1, 1, LEAF, 1, 2, 65_536, 0, 0, 0,
                "leaf"), UnixDomainSocketAddress.of("/nonexistent"), listener, passes, lost::get);
        byte[] row = {2, 1};
        CompletableFuture<Message.CommitAck> ack = session.sendBatch(new LftBatch(7, List.of(new LftBatch.Block(0, row)),
                2, TableHash.of(row)), 1_000);
        assertThat(session.answer(41)).containsExactly(2, 1);
        assertThat(session.set(40, true)).as("an older pass's word").isFalse();
        assertThat(session.set(41, false)).as("the pass's word: not set").isTrue();
        assertThat(ack).as("not installed while OpenSM has not set it").isNotDone();

        assertThat(session.answer(42)).as("the next pass carries it again").containsExactly(2, 1);
        session.set(42, true);
        assertThat(ack).isCompletedWithValueMatching(a -> a.version() == 7 && a.hash() == TableHash.of(row));
        assertThat(session.answer(43)).as("then what OpenSM confirmed").containsExactly(2, 1);
    }

    @Test
    void whileOpenSmIsLostATableCannotReachItsSwitchAndOneWaitingFailsAsUnreachable() {
        OpenSmSwitchSession session = new OpenSmSwitchSession(new Message.Hello(0, 1, 1, LEAF, 1, 2, 65_536, 0, 0, 0,
                "leaf"), UnixDomainSocketAddress.of("/nonexistent"), listener, passes, lost::get);
        byte[] row = {2, 1};
        LftBatch batch = new LftBatch(7, List.of(new LftBatch.Block(0, row)), 2, TableHash.of(row));
        CompletableFuture<Message.CommitAck> waiting = session.sendBatch(batch, 1_000);
        session.answer(41);
        session.unreachable("no keepalive for 20 s");
        assertThatThrownBy(waiting::join).hasCauseInstanceOf(SwitchUnreachableException.class)
                .hasMessageContaining("OpenSM lost: no keepalive for 20 s");
        lost.set("no keepalive for 21 s");
        assertThatThrownBy(() -> session.sendBatch(batch, 1_000).join()).as("failed at once, not after a timeout")
                .hasCauseInstanceOf(SwitchUnreachableException.class).hasMessageContaining("21 s");
        lost.set(null);
        CompletableFuture<Message.CommitAck> back = session.sendBatch(batch, 1_000);
        assertThat(session.answer(42)).containsExactly(2, 1);
        session.set(42, true);
        assertThat(back).as("confirmed once OpenSM is back and sets it").isCompleted();
    }

    @Test
    void openSmsCounterChangesAddUpOnTheSwitchsPortsAsAnAgentReportsThem() {
        OpenSmSwitchSession session = new OpenSmSwitchSession(new Message.Hello(0, 1, 1, LEAF, 1, 2, 65_536, 0, 0, 0,
                "leaf"), UnixDomainSocketAddress.of("/nonexistent"), listener, passes, lost::get);
        assertThat(session.requestCounters(1_000)).as("before OpenSM's performance manager read any")
                .isCompletedExceptionally();
        session.countersChanged(2, new long[] {0, 10, 20, 30, 40, 1, 0, 0, 0, 2}, 2);
        session.countersChanged(2, new long[] {5, 5, 5, 5, 0, 0, 0, 1}, 0);
        session.countersChanged(3, new long[] {1, 1, 1, 1, 1, 1, 1, 1}, 0); // beyond the switch's two ports
        PortCounters c = session.requestCounters(1_000).join();
        assertThat(c.get(1, PortCounter.RX_PACKETS)).as("a port never read").isEqualTo(PortCounters.UNAVAILABLE);
        assertThat(c.get(2, PortCounter.RX_PACKETS)).isEqualTo(25);
        assertThat(c.get(2, PortCounter.TX_BYTES)).isEqualTo(6);
        assertThat(c.get(2, PortCounter.TX_DROPS)).isEqualTo(3);
        assertThat(c.lastPort()).isEqualTo(2);
    }

    @Test
    void aBatchHandedToASessionAsksThePlugInForAPassAgainUntilOneCarriesIt() {
        List<Long> requests = new CopyOnWriteArrayList<>();
        try (PassRequests asks = new PassRequests(n -> requests.add(n), System::currentTimeMillis)) {
            asks.handed();
            asks.handed();
            Await.value("a pass asked", Duration.ofSeconds(10), () -> requests.size(), n -> n >= 1);
            asks.passStarted();
            asks.passEnded(-1); // refused: what was handed is still not carried
            Await.value("a pass asked again after the refused one", Duration.ofSeconds(10),
                    () -> requests.size(), n -> n >= 2);
            assertThat(requests).startsWith(1L, 2L);
        }
    }

    @Test
    void aDaemonThatSawNoPassYetAsksAQuietMasterForOne() {
        List<Long> requests = new CopyOnWriteArrayList<>();
        try (PassRequests asks = new PassRequests(n -> requests.add(n), System::currentTimeMillis)) {
            asks.keepalive(1, 0); // discovering: its first sweep routes by itself
            asks.keepalive(PassRequests.MASTER, 12); // master, sweeping
            asks.keepalive(PassRequests.MASTER, 0); // master and quiet once: maybe just before its first pass
            assertThat(asks.describe()).isEqualTo("no pass asked yet");
            asks.keepalive(PassRequests.MASTER, 0); // quiet again, 5 s on: a running OpenSM with nothing to route
            Await.value("a pass asked of the quiet master", Duration.ofSeconds(10), requests::size, n -> n >= 1);
        }
    }

    @Test
    void aDaemonThatSawAPassAsksNothingOfAQuietMaster() {
        List<Long> requests = new CopyOnWriteArrayList<>();
        try (PassRequests asks = new PassRequests(n -> requests.add(n), System::currentTimeMillis)) {
            asks.passStarted();
            asks.passEnded(-1); // refused: asking again would only be refused again
            asks.keepalive(PassRequests.MASTER, 0);
            asks.keepalive(PassRequests.MASTER, 0);
            assertThat(asks.describe()).isEqualTo("no pass asked yet");
            assertThat(requests).isEmpty();
        }
    }

    private OpenSmRouting routing(DaemonState state) {
        return new OpenSmRouting(listener, new StatusApi(state), UnixDomainSocketAddress.of("/nonexistent"), passes,
                refusals::add, lost::get);
    }

    private static String reason(OpenSmAnswer.Refused answer) {
        return answer.reason();
    }

    /** A daemon that is always in one state and answers nothing else. */
    private static final class StatusApi extends UnansweredApi {
        private final DaemonState state;

        StatusApi(DaemonState state) {
            this.state = state;
        }

        @Override
        public CompletableFuture<Views.Status> status() {
            return CompletableFuture.completedFuture(new Views.Status(state, null, 0, null, null, null, null, 0, "x", null, null, null));
        }

        @Override
        public <T> CompletableFuture<T> whenHanded(Function<Fabric, T> read) {
            return new CompletableFuture<>(); // never installed: nothing to read
        }
    }
}
