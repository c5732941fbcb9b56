package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.system.OpenSmStandbyGroup.awaitOpenSmLog;
import static org.fabricmanager.system.OpenSmStandbyGroup.line;
import static org.fabricmanager.system.OpenSmStandbyGroup.msBetween;
import static org.fabricmanager.system.OpenSmStandbyGroup.nextLine;
import static org.fabricmanager.system.OpenSmStandbyGroup.openSmTime;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.opensm.IbsimFabric;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.system.OpenSmStandbyGroup.Member;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * Hot-standby managers under OpenSM as processes (docs/opensm.md, "OpenSM and hot standbys"): three {@code run}
 * members on Raft ({@link OpenSmStandbyGroup}), two OpenSMs with the plug-in on two end nodes of an ibsim fabric (SM
 * priorities 15 and 14, so the master is known), each OpenSM's plug-in on its own member's socket as on two management
 * hosts: the master SM beside n1, the standby SM beside another member. Each test forces one of the two ways the
 * manager's leadership can go when the master SM fails.
 * <ul>
 * <li>Raft elects another member than the one beside the new master SM: its first pass reaches a standby, which
 * refuses it and asks the leader for the leadership; its socket is unbound while the leadership moves, the member's
 * manager binds it once it leads, and the plug-in's re-route gets the daemon's tables.
 * <li>Raft elects the member beside the new master SM: its first pass is answered at once, no standby sees it.
 * </ul>
 * n2 and n3 wait {@value #SLOW_ELECTION_MS} ms of silence before they campaign, so that n1 is elected first and no other
 * member led within the 30 s a member that led holds back its transfers. Which member Raft elects after n1's kill
 * depends on the campaign order and the load, so n1's manager is killed first and the standby SM started beside the
 * member elected, or beside the other one, before the master SM is killed. No timer of a few hundred milliseconds
 * decides the path, so the class runs beside another system test: n2 and n3 campaign on the leader watch's verdict
 * or after seconds of silence, never on a short election timeout. Each test shows its path in the members'
 * logs, OpenSM's log, the events, the socket and {@code fabric_ha_opensm_transfers_total}, then every switch's table,
 * as {@code ibroute} reads it, equals offline Dmodc. Times from the master SM's kill are printed for docs/opensm.md,
 * not asserted. Skipped when OpenSM, ibsim, infiniband-diags or the plug-in are missing.
 */
class OpenSmStandbysIT {
    private static final String SPEC = "PGFT(2;4,4;1,4;1,1)";
    private static final long TOOL_LIMIT_SECONDS = OpenSmLab.TOOL_LIMIT_SECONDS;
    /**
     * The standby SM polls the master's SMInfo every second and declares it dead after 2 failed polls (defaults: 10 s
     * and 4, i.e. about 40 s before a standby SM takes over).
     */
    private static final String ELECTION = "sminfo_polling_timeout 1000\npolling_retry_number 2\n";
    /** n2's and n3's election timeout: n1 is elected first, whatever the load. */
    private static final int SLOW_ELECTION_MS = 6_000;
    /** The words of a standby's REFUSED on which the plug-in waits for the socket (docs/opensm.md, "The plug-in's protocol"). */
    private static final String MOVING = "leadership is moving here";

    @Test
    void whenRaftElectsAnotherManagerTheStandbyBesideTheNewMasterSmRefusesAndTakesTheLeadership() throws Exception {
        OpenSmLab lab = OpenSmLab.require();
        Path work = workDirectory(lab, "opensm-standbys-it-moved");
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        int switches = fabric.switches().size();
        OpenSmStandbyGroup group = new OpenSmStandbyGroup(work);
        try (FabricProcesses processes = new FabricProcesses(work);
             IbsimFabric ibsim = IbsimFabric.start(lab.tools(), fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS);
             Sms sms = new Sms()) {
            Member elected = electAfterN1(lab, group, processes, ibsim, fabric, work, sms);
            Member beside = group.members().stream().filter(m -> !m.id().equals("n1") && m != elected).findFirst()
                    .orElseThrow();
            // a member that led within 30 s holds the leadership back (no back and forth): this one never led
            assertThat(group.led(beside)).as("%s led (its election timeout is %d ms)", beside.id(), SLOW_ELECTION_MS)
                    .isFalse();
            Path standbyLog = startStandbySm(lab, ibsim, fabric, work, beside, sms);
            String from = elected.id();

            // the master SM fails: SIGKILL, no goodbye
            LocalTime killedAt;
            try (SocketWatch besideSocket = new SocketWatch(beside.socket())) {
                killedAt = LocalTime.now();
                killSm(ibsim, sms.master);
                awaitOpenSmLog(standbyLog, "Entering MASTER state");
                awaitOpenSmLog(standbyLog, "routed by the daemon");
                JsonNode converged = group.awaitConverged(beside, switches);
                assertThat(converged.at("/switches/connected").asInt()).isEqualTo(switches);
                LocalTime convergedAt = LocalTime.now();

                // the path: the standby refused the new master SM's pass and asked the leader for the leadership, its
                // socket unbound; its manager bound it once it led, and the plug-in's re-route got its tables
                String id = beside.id();
                LocalTime refused = group.awaitLogged(beside, "refused on standby " + id + ": this manager is a standby; "
                        + MOVING + " from " + from);
                LocalTime took = group.awaitLogged(beside, id + " took the leadership from " + from);
                LocalTime bound = group.awaitLogged(beside, "OpenSM provider listening on " + beside.socket());
                assertThat(took).as("%s took the leadership after refusing the pass", id).isAfterOrEqualTo(refused);
                assertThat(bound).as("%s's manager bound the socket after the refusal", id).isAfterOrEqualTo(refused);
                Gap unbound = besideSocket.gaps().stream().filter(gap -> !gap.from().isBefore(refused) && gap.to() != null)
                        .findFirst().orElse(null);
                assertThat(unbound).as("a time %s's socket refused connections after it refused the pass at %s, until"
                        + " its manager bound it at %s (times it refused: %s)", id, refused, bound, besideSocket.gaps())
                        .isNotNull();
                assertThat(group.events(beside)).as("%s's events", id).contains("leadership moved to " + id + " from "
                        + from + " because OpenSM's master SM runs next to it");
                // one pass reached the standby: one transfer asked and done, none held (the socket was unbound)
                assertThat(List.of(group.transfers(beside, "requested"), group.transfers(beside, "done"),
                        group.transfers(beside, "failed"), group.transfers(beside, "held"))).as("%s's transfers:"
                        + " requested, done, failed, held", id).containsExactly(1.0, 1.0, 0.0, 0.0);
                String log = Files.readString(standbyLog, StandardCharsets.ISO_8859_1);
                int moving = log.indexOf(MOVING + " from " + from);
                assertThat(moving).as("the new master SM's pass refused with '%s from %s'", MOVING, from).isNotNegative();
                int again = log.indexOf("the daemon listens again on " + beside.socket(), moving);
                assertThat(again).as("the plug-in saw %s's socket listen again after the refusal", id).isPositive();
                int routed = log.indexOf("routed by the daemon", again);
                assertThat(routed).as("the re-route routed by the daemon").isPositive();
                assertThat(log).as("the new master SM's log").doesNotContain("SUBNET_ERROR");

                System.out.printf("OpenSM standby takeover on %s, the leadership moved: kill to MASTER %.0f ms, to its"
                        + " first SUBNET UP %.0f ms, to the pass refused by the standby %.0f ms, to it leading %.0f ms,"
                        + " its socket unbound from %.0f to %.0f ms, to routed by the daemon %.0f ms, to the daemon's"
                        + " tables on every switch %.0f ms, to CONVERGED %.0f ms%n", SPEC,
                        ms(killedAt, log, "Entering MASTER state", 0), ms(killedAt, log, "SUBNET UP", 0),
                        msBetween(killedAt, refused), msBetween(killedAt, took), msBetween(killedAt, unbound.from()),
                        msBetween(killedAt, unbound.to()), ms(killedAt, log, "routed by the daemon", again),
                        ms(killedAt, log, "fabric-manager tables configured on all switches", routed),
                        msBetween(killedAt, convergedAt));
            }
            assertThat(group.logLines(elected, "OpenSM subnet")).as("passes %s saw", from).isEmpty();
            OpenSmRoutingIT.assertTablesEqualOffline(ibsim, work.resolve("after"), null);
            assertThat(sms.standby.isAlive()).as("the new master SM runs on").isTrue();
        }
    }

    @Test
    void whenRaftElectsTheManagerBesideTheNewMasterSmItAnswersItsFirstPass() throws Exception {
        OpenSmLab lab = OpenSmLab.require();
        Path work = workDirectory(lab, "opensm-standbys-it-beside");
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse(SPEC));
        int switches = fabric.switches().size();
        OpenSmStandbyGroup group = new OpenSmStandbyGroup(work);
        try (FabricProcesses processes = new FabricProcesses(work);
             IbsimFabric ibsim = IbsimFabric.start(lab.tools(), fabric, work.resolve("ibsim"), TOOL_LIMIT_SECONDS);
             Sms sms = new Sms()) {
            Member elected = electAfterN1(lab, group, processes, ibsim, fabric, work, sms);
            String id = elected.id();
            LocalTime active = group.awaitLogged(elected, "ha: " + id + " active in term " + group.lastTerm(elected) + ":");
            Path standbyLog = startStandbySm(lab, ibsim, fabric, work, elected, sms);
            LocalTime killedAt = LocalTime.now();
            killSm(ibsim, sms.master);
            awaitOpenSmLog(standbyLog, "Entering MASTER state");
            awaitOpenSmLog(standbyLog, "routed by the daemon");
            group.awaitConverged(elected, switches);
            LocalTime convergedAt = LocalTime.now();

            // the path: the new master SM's first pass reached the active manager, which answered it; no standby saw it
            String log = Files.readString(standbyLog, StandardCharsets.ISO_8859_1);
            int master = log.indexOf("Entering MASTER state");
            assertThat(openSmTime(line(log, "Entering MASTER state", 0))).as("OpenSM-2 master after %s ran its manager",
                    id).isAfter(active);
            assertThat(nextLine(log, "fabric-manager: routing subnet", 0)).as("a pass of OpenSM-2 refused or failed")
                    .isNull();
            assertThat(log).as("OpenSM-2's log").doesNotContain(MOVING).doesNotContain("listens again")
                    .doesNotContain("SUBNET_ERROR");
            assertThat(group.logLines(elected, "refused on standby")).as("passes %s's standby listener refused", id)
                    .isEmpty();
            assertThat(group.logLines(elected, "OpenSM subnet ")).as("passes %s's manager answered", id)
                    .anyMatch(l -> l.contains(" answered in "));
            assertThat(group.events(elected)).as("%s's events", id).doesNotContain("leadership moved");
            for (Member m : group.members().subList(1, 3)) {
                for (String outcome : List.of("requested", "done", "held")) {
                    assertThat(group.transfers(m, outcome)).as("%s's transfers %s", m.id(), outcome).isZero();
                }
            }
            System.out.printf("OpenSM standby takeover on %s, the leadership already beside it: OpenSM-1's kill to"
                    + " MASTER %.0f ms, to routed by the daemon %.0f ms, to the daemon's tables on every switch %.0f ms,"
                    + " to CONVERGED %.0f ms%n", SPEC,
                    ms(killedAt, log, "Entering MASTER state", 0), ms(killedAt, log, "routed by the daemon", master),
                    ms(killedAt, log, "fabric-manager tables configured on all switches", master),
                    msBetween(killedAt, convergedAt));
            OpenSmRoutingIT.assertTablesEqualOffline(ibsim, work.resolve("after"), null);
            assertThat(sms.standby.isAlive()).as("the new master SM runs on").isTrue();
        }
    }

    /**
     * Starts the members and the master SM beside n1, and waits until n1 routes its subnet with the daemon's tables on
     * every switch; then kills n1's manager (SIGKILL) and returns the member elected after it, once active. The master
     * SM runs on, its plug-in on n1's socket: its passes, if any, fall back to its own engine.
     */
    private static Member electAfterN1(OpenSmLab lab, OpenSmStandbyGroup group, FabricProcesses processes,
                                       IbsimFabric ibsim, Fabric fabric, Path work, Sms sms) throws Exception {
        Map<String, Process> members = group.start(processes, Map.of("n2", SLOW_ELECTION_MS, "n3", SLOW_ELECTION_MS));
        Member n1 = group.member("n1");
        group.awaitActive();
        Path masterLog = work.resolve("opensm-n1").resolve("opensm.log");
        sms.master = lab.plugin().startElectingOpenSm(ibsim, n1.socket(), OpenSmLab.PLUGIN_TIMEOUT_MS,
                masterLog.getParent(), "sm_priority 15\n" + ELECTION, null);
        group.awaitConverged(n1, fabric.switches().size());
        awaitOpenSmLog(masterLog, "routed by the daemon");
        OpenSmRoutingIT.assertTablesEqualOffline(ibsim, work.resolve("before"), null);
        long n1Term = group.lastTerm(n1);
        kill(members.get("n1"));
        return group.awaitActiveAfter(n1Term);
    }

    /**
     * Starts the standby SM beside {@code beside}, on an end node of the last leaf (another "host" than the net file's
     * first node, the master's), and waits until it is STANDBY; returns its log.
     */
    private static Path startStandbySm(OpenSmLab lab, IbsimFabric ibsim, Fabric fabric, Path work, Member beside, Sms sms)
            throws Exception {
        EndNode standbyNode = fabric.nodes().stream().max((a, b) -> Integer.compare(a.index(), b.index())).orElseThrow();
        assertThat(standbyNode.guid()).isNotEqualTo(IbsimNet.smNode(fabric).guid());
        Path standbyLog = work.resolve("opensm-" + beside.id()).resolve("opensm.log");
        sms.standby = lab.plugin().startElectingOpenSm(ibsim, beside.socket(), OpenSmLab.PLUGIN_TIMEOUT_MS,
                standbyLog.getParent(), "sm_priority 14\n" + ELECTION, IbsimNet.id(standbyNode.name(), standbyNode.guid()));
        awaitOpenSmLog(standbyLog, "Entering STANDBY state");
        assertThat(Files.readString(standbyLog, StandardCharsets.ISO_8859_1)).as("the standby SM never routed")
                .doesNotContain("routed by the daemon").doesNotContain("Entering MASTER state");
        Path masterLog = work.resolve("opensm-n1").resolve("opensm.log");
        assertThat(Files.readString(masterLog, StandardCharsets.ISO_8859_1)).as("OpenSM-1 stayed master")
                .doesNotContain("Entering STANDBY state");
        return standbyLog;
    }

    private static Path workDirectory(OpenSmLab lab, String name) throws IOException {
        Path work = lab.plugin().directory().resolveSibling(name);
        OpenSmRoutingIT.deleteTree(work);
        return Files.createDirectories(work);
    }

    /**
     * SIGKILL of an OpenSM, its client detached from ibsim first: as on a real fabric, a request to its port then
     * times out instead of being lost with the client ({@link IbsimFabric#detach}).
     */
    private static void killSm(IbsimFabric ibsim, Process sm) throws Exception {
        assertThat(ibsim.detach(sm.pid(), TOOL_LIMIT_SECONDS)).as("OpenSM %d attached to ibsim", sm.pid()).isTrue();
        kill(sm);
    }

    /** SIGKILL, no goodbye, to all at once; waits for their end. */
    private static void kill(Process... processes) throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("killed").isTrue();
        }
    }

    /** Milliseconds from {@code t} to the first line of OpenSM's {@code log} holding {@code text} after {@code from}. */
    private static double ms(LocalTime t, String log, String text, int from) {
        return msBetween(t, openSmTime(line(log, text, from)));
    }

    /** The two OpenSMs, stopped at the end (before ibsim, which closes after). */
    private static final class Sms implements AutoCloseable {
        Process master;
        Process standby;

        @Override
        public void close() {
            OpenSmLab.stop(master);
            OpenSmLab.stop(standby);
        }
    }

    /** A time a socket refused connections: {@code to} is when it accepted one again ({@code null}: not yet). */
    record Gap(LocalTime from, LocalTime to) {
    }

    /**
     * Tries to connect to a Unix socket every few milliseconds and notes when it refuses (unbound) and when it accepts
     * again; each connection is closed at once, before any frame, as the plug-in's own probe does.
     */
    private static final class SocketWatch implements AutoCloseable {
        private static final long EVERY_MS = 10;
        private final List<Gap> gaps = new CopyOnWriteArrayList<>();
        private final Thread thread;
        private volatile boolean stop;

        SocketWatch(Path socket) {
            thread = new Thread(() -> {
                LocalTime from = null;
                while (!stop) {
                    boolean accepted;
                    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                        accepted = ch.isConnected();
                    } catch (IOException e) {
                        accepted = false;
                    }
                    LocalTime now = LocalTime.now();
                    if (!accepted && from == null) {
                        from = now;
                    } else if (accepted && from != null) {
                        gaps.add(new Gap(from, now));
                        from = null;
                    }
                    try {
                        Thread.sleep(EVERY_MS); // a sampling period, not a wait for a condition
                    } catch (InterruptedException e) {
                        break;
                    }
                }
                if (from != null) {
                    gaps.add(new Gap(from, null));
                }
            }, "socket-watch");
            thread.setDaemon(true);
            thread.start();
        }

        List<Gap> gaps() {
            return List.copyOf(gaps);
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(10_000);
        }
    }
}
