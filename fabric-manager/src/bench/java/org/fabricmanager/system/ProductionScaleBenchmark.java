package org.fabricmanager.system;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Benchmark (not part of the test suite): the production shape at scale. The daemon is a {@code run}
 * process of the packaged jar, the agents {@code simulate} processes (one of them runs a single spine, so
 * that killing it is a spine death). It measures start to CONVERGED (and its phases from the daemon's
 * events), the bytes of the full push, the processes' memory, then link deaths, a node's link going down and up,
 * and a spine death from the fault to convergence, with what they pushed. Run after packaging:
 * <pre>
 * mvn -B -pl fabric-manager -am verify -DskipTests -Dit.test=ProductionScaleBenchmark -Dfm.bench=true \
 *     -Dfailsafe.failIfNoSpecifiedTests=false [-Dfm.bench.spec=...] [-Dfm.bench.simulators=3] [-Dfm.bench.startOnly=true]
 *     [-Dfm.bench.detector=true -Dfm.bench.etaMs=100 -Dfm.bench.deltaMs=1000 -Dfm.bench.quietBeforeStopMs=10000]
 *     [-Dfm.bench.upDuringRefinement=true -Dfm.bench.nodeRounds=0 -Dfm.bench.rackRounds=0]
 * </pre>
 * Figures go to stdout (and the processes' logs to the work directory it prints).
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class ProductionScaleBenchmark {
    private static final String SPEC = System.getProperty("fm.bench.spec", "PGFT(3;32,32,64;1,32,32;1,1,1)");
    private static final int SIMULATORS = Integer.getInteger("fm.bench.simulators", 3);
    /** The daemon's heap as docs/operations.md sizes it: committed and touched at start ({@code fm.bench.daemonHeap}). */
    private static final String DAEMON_HEAP = System.getProperty("fm.bench.daemonHeap",
            "-Xms4g -Xmx4g -XX:+AlwaysPreTouch -XX:+UseTransparentHugePages");
    /** The simulators' heap, on 2 MiB pages too: they keep their switches' tables, 335 MB between them. */
    private static final String SIM_HEAP = System.getProperty("fm.bench.simHeap", "-Xmx3g -XX:+UseTransparentHugePages");
    private static final int LINK_ROUNDS = Integer.getInteger("fm.bench.linkRounds", 5);
    /** Rounds of a node's link going down and up again (a node's reboot as its leaf sees it). */
    private static final int NODE_ROUNDS = Integer.getInteger("fm.bench.nodeRounds", 2);
    /** Rounds of every node of one leaf going down at once and coming back (a rack's nodes powered off and on). */
    private static final int RACK_ROUNDS = Integer.getInteger("fm.bench.rackRounds", 1);
    /** Extra {@code simulate} flags, e.g. {@code --no-lft-runs} to push to agents that predate LFT_BLOCKS. */
    private static final List<String> SIM_FLAGS = List.of(System.getProperty("fm.bench.simFlags", "").trim().split("\\s+"))
            .stream().filter(f -> !f.isEmpty()).toList();
    /** The ring detector on (members in the simulators, one UDP port each); the spine then dies silently (SIGSTOP). */
    private static final boolean DETECTOR = Boolean.getBoolean("fm.bench.detector");
    private static final int ETA_MS = Integer.getInteger("fm.bench.etaMs", 100);
    private static final int DELTA_MS = Integer.getInteger("fm.bench.deltaMs", 1000);
    /** With the detector: how long the ring is left alone after the link round before the spine is stopped. */
    private static final int QUIET_BEFORE_STOP_MS = Integer.getInteger("fm.bench.quietBeforeStopMs", 10_000);
    /** Only the start: stop after the first convergence and the steady-state sample (no faults). */
    private static final boolean START_ONLY = Boolean.getBoolean("fm.bench.startOnly");
    /** Each link comes back while its repair's refinement runs ({@code fm.bench.upDuringRefinement}). */
    private static final boolean UP_DURING_REFINEMENT = Boolean.getBoolean("fm.bench.upDuringRefinement");
    /**
     * Mutual TLS (BoringSSL) instead of plaintext, with the PKI in {@code fm.bench.pkiDir} (made and filled with every
     * switch's certificate before any timing if missing; keep it between runs: issuing 5,120 certificates takes a minute).
     */
    private static final boolean TLS = Boolean.getBoolean("fm.bench.tls");

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.NEVER)
    Path work;

    @Test
    void productionShapeAtScale() throws Exception {
        PgftSpec spec = PgftSpec.parse(SPEC);
        Fabric fabric = PgftGenerator.generate(spec);
        int top = spec.h();
        long loneSpine = PgftGenerator.switchGuid(top, 0);
        System.out.printf("production shape: %s, %d switches, %d nodes, %d simulate processes; work in %s%n", SPEC,
                fabric.switches().size(), fabric.nodes().size(), SIMULATORS, work);
        System.out.printf("machine: %d cores; load before: %s%n", Runtime.getRuntime().availableProcessors(), load());

        Path pkiDir = TLS ? pki(fabric) : null;
        Path config = work.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedPgft: "%s"
                discovery:
                  settleMs: 3000
                  maxWaitMs: 120000
                state:
                  directory: "%s"
                security:
                %s
                """.formatted(SPEC, work.resolve("state"), TLS ? "  pkiDirectory: \"" + pkiDir + "\"\n  tlsProvider: openssl"
                : "  insecure: true") + (!DETECTOR ? "" : """
                faults:
                  detector:
                    enabled: true
                    etaMs: %d
                    deltaMs: %d
                    bind: "127.0.0.1"
                    port: 0
                """.formatted(ETA_MS, DELTA_MS)));

        // the links to cut, one per round (the same link five times would be quarantined as flapping):
        // between the two top levels, away from the lone spine, no two on one switch; their ends run in process 0
        List<Link> cuts = new ArrayList<>();
        java.util.Set<Long> ends = new java.util.HashSet<>();
        for (Link l : fabric.links()) {
            if (cuts.size() < LINK_ROUNDS && fabric.isSwitch(l.a()) && fabric.isSwitch(l.b()) && l.a() != loneSpine
                    && l.b() != loneSpine && (levelOf(l.a()) == top || levelOf(l.b()) == top)
                    && !ends.contains(l.a()) && !ends.contains(l.b())) {
                cuts.add(l);
                ends.add(l.a());
                ends.add(l.b());
            }
        }
        // the node links to cut, one per round, each on another leaf; the leaves run in process 0
        List<Link> nodeLinks = new ArrayList<>();
        for (Link l : fabric.links()) {
            Link o = fabric.isSwitch(l.a()) ? l : new Link(l.b(), l.bPort(), l.a(), l.aPort());
            if (nodeLinks.size() < NODE_ROUNDS && fabric.isSwitch(o.a()) && fabric.isNode(o.b())
                    && !ends.contains(o.a())) {
                nodeLinks.add(o);
                ends.add(o.a());
            }
        }
        // the leaves whose nodes all go down at once, one per round, in process 0 too
        List<List<Link>> racks = new ArrayList<>();
        for (FabricSwitch s : fabric.switches()) {
            if (racks.size() == RACK_ROUNDS) {
                break;
            }
            List<Link> nodesOf = new ArrayList<>();
            for (Link l : fabric.links()) {
                Link o = l.a() == s.guid() ? l : l.b() == s.guid() ? new Link(l.b(), l.bPort(), l.a(), l.aPort()) : null;
                if (o != null && fabric.isNode(o.b())) {
                    nodesOf.add(o);
                }
            }
            if (!nodesOf.isEmpty() && !ends.contains(s.guid())) {
                racks.add(nodesOf);
                ends.add(s.guid());
            }
        }
        // the other switches dealt round-robin to the other processes
        List<List<String>> parts = new ArrayList<>();
        for (int i = 0; i < SIMULATORS - 1; i++) {
            parts.add(new ArrayList<>());
        }
        for (long end : ends) {
            parts.get(0).add(Guids.format(end));
        }
        int next = 0;
        for (FabricSwitch s : fabric.switches()) {
            if (s.guid() != loneSpine && !ends.contains(s.guid())) {
                parts.get(next++ % parts.size()).add(Guids.format(s.guid()));
            }
        }
        try (FabricProcesses fp = new FabricProcesses(work)) {
            long t0 = System.currentTimeMillis();
            fp.startDaemon(config, DAEMON_HEAP);
            List<String> spineArgs = new ArrayList<>(List.of("--pgft", SPEC, "--only", Guids.format(loneSpine)));
            spineArgs.addAll(SIM_FLAGS);
            spineArgs.addAll(tlsArgs(pkiDir));
            FabricProcesses.Simulator spine = fp.startSimulator("sim-spine", "-Xmx256m", spineArgs);
            List<FabricProcesses.Simulator> rest = new ArrayList<>();
            for (int i = 0; i < parts.size(); i++) {
                List<String> args = new ArrayList<>(List.of("--pgft", SPEC, "--only", String.join(",", parts.get(i))));
                args.addAll(SIM_FLAGS);
                args.addAll(tlsArgs(pkiDir));
                rest.add(fp.startSimulator("sim-" + i, SIM_HEAP, args));
            }
            JsonNode st = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED")
                    && s.at("/switches/connected").asInt() == fabric.switches().size(), "first convergence", 600);
            long convergedAt = System.currentTimeMillis();
            List<JsonNode> events = fp.events(0);
            // the event log is bounded: at 5,120 switches the connections push STARTED out of it; then the
            // daemon process's start stands in for it
            long started = time(events, "STARTED") >= 0 ? time(events, "STARTED") : t0;
            System.out.printf("start to CONVERGED: %,d ms (daemon start to CONVERGED %,d ms)%n", convergedAt - t0,
                    time(events, "CONVERGED") - started);
            // on a real fabric the agents run before the daemon starts; here each simulator first starts a JVM and
            // generates the whole fabric (seconds at this size): from the last simulator's agents starting is the
            // figure of a daemon facing agents that are already there
            long agentsReady = rest.stream().mapToLong(s -> agentsStartedAt(work.resolve(s.name() + ".out"))).max().orElse(-1);
            if (agentsReady > 0) {
                System.out.printf("  agents started (last simulator) at %,d ms; from there to CONVERGED %,d ms%n",
                        agentsReady - started, time(events, "CONVERGED") - agentsReady);
            }
            System.out.printf("  discovered at %,d ms, routing computed at %,d ms (%s), push started at %,d ms%n",
                    time(events, "FABRIC_DISCOVERED") - started, time(events, "ROUTING_COMPUTED") - started,
                    message(events, "ROUTING_COMPUTED"), time(events, "PUSH_STARTED") - started);
            System.out.printf("  full push: %,d blocks, %,d bytes, %,d retries, %.0f ms%n", st.at("/push/blocks").asLong(),
                    st.at("/push/bytes").asLong(), st.at("/push/retries").asLong(), st.at("/push/durationMs").asDouble());
            System.out.printf("  RSS: daemon %.0f MiB; simulators %s MiB%n", FabricProcesses.rssMiB(fp.daemon().pid()),
                    rest.stream().map(s -> String.format("%.0f", FabricProcesses.rssMiB(s.pid()))).toList());
            System.out.printf("  CPU from start to CONVERGED: daemon %.1f s; simulators %s s%n",
                    FabricProcesses.cpuSeconds(fp.daemon().pid()),
                    rest.stream().map(s -> String.format("%.1f", FabricProcesses.cpuSeconds(s.pid()))).toList());
            System.out.printf("  daemon CPU by thread until CONVERGED: %s%n", FabricProcesses.topThreads(
                    FabricProcesses.threadCpuSeconds(fp.daemon().pid())));
            if (DETECTOR) {
                long ringFrom = System.nanoTime();
                JsonNode f = fp.get("/api/v1/faults");
                while (!(f.path("ringMembers").asInt() == fabric.switches().size() + 1 && f.path("ringStarting").asInt() == 0
                        && f.path("ringUnconfirmed").asInt() == 0)
                        && System.nanoTime() - ringFrom < 300_000_000_000L) {
                    Thread.sleep(200);
                    f = fp.get("/api/v1/faults");
                }
                System.out.printf("  ring: %d members, epoch %d, running %.1f s after convergence; %d switches faulted%n",
                        f.path("ringMembers").asInt(), f.path("ringEpoch").asLong(), (System.nanoTime() - ringFrom) / 1e9,
                        f.path("switches").size());
            }
            // the routing's quality is measured once its tables converged (a core for tens of seconds at this
            // size): steady state starts after it
            long qualityFrom = System.nanoTime();
            double cpuQ = FabricProcesses.cpuSeconds(fp.daemon().pid());
            JsonNode quality = fp.get("/api/v1/routing/quality");
            while ((quality.path("computing").asBoolean() || quality.path("quality").isNull())
                    && System.nanoTime() - qualityFrom < 300_000_000_000L) {
                Thread.sleep(200);
                quality = fp.get("/api/v1/routing/quality");
            }
            System.out.printf("  quality of v1 measured after convergence: %.1f s, %.1f daemon CPU-s (%s)%n",
                    (System.nanoTime() - qualityFrom) / 1e9, FabricProcesses.cpuSeconds(fp.daemon().pid()) - cpuQ,
                    quality.path("quality").isNull() ? "not finished in 300 s" : "done");
            double cpu0 = FabricProcesses.cpuSeconds(fp.daemon().pid());
            Thread.sleep(10_000);
            System.out.printf("  daemon CPU at steady state: %.2f CPU-s/s%n",
                    (FabricProcesses.cpuSeconds(fp.daemon().pid()) - cpu0) / 10.0);
            if (DETECTOR) {
                double[] simCpu = rest.stream().mapToDouble(x -> FabricProcesses.cpuSeconds(x.pid())).toArray();
                long steadyFrom = System.nanoTime();
                Thread.sleep(20_000);
                double secs = (System.nanoTime() - steadyFrom) / 1e9;
                java.util.List<String> perSim = new ArrayList<>();
                for (int i = 0; i < rest.size(); i++) {
                    perSim.add(String.format("%.2f", (FabricProcesses.cpuSeconds(rest.get(i).pid()) - simCpu[i]) / secs));
                }
                JsonNode f = fp.get("/api/v1/faults");
                System.out.printf("  ring steady for %.0f s: simulators %s CPU-s/s; switches faulted %d, routing v%d%n", secs,
                        perSim, f.path("switches").size(), fp.get("/api/v1/status").at("/routing/version").asLong());
            }
            if (START_ONLY) {
                System.out.printf("load after: %s%n", load());
                return;
            }

            // a link death between two switches of the same process (both ends report it), five times: the
            // first after a start is routed by cold code, the others show a daemon that has run for a while
            List<Double> downs = new ArrayList<>();
            List<Double> ups = new ArrayList<>();
            for (int round = 0; round < LINK_ROUNDS; round++) {
                Link link = cuts.get(round);
                long seq = fp.lastSeq();
                rest.get(0).command("link down " + Guids.format(link.a()) + " " + link.aPort());
                JsonNode r = fp.awaitEvent("REACTION", seq, 120);
                downs.add(r.at("/details/faultToConvergedMs").asDouble());
                System.out.printf("link death %s/%d (round %d): %s%n  %s%n", Guids.format(link.a()), link.aPort(),
                        round + 1, figures(r), message(fp.events(seq), "ROUTING_COMPUTED"));
                if (UP_DURING_REFINEMENT) {
                    // the repair converged; its refinement starts refineAfter later (a full routing, seconds here)
                    fp.awaitStatus(s -> s.path("state").asText().equals("ROUTING")
                            && s.at("/routing/refinePending").asBoolean(), "the repair's refinement under way", 60);
                }
                seq = fp.lastSeq();
                rest.get(0).command("link up " + Guids.format(link.a()) + " " + link.aPort());
                r = fp.awaitEvent("REACTION", seq, 120);
                ups.add(r.at("/details/faultToConvergedMs").asDouble());
                System.out.printf("link back up (round %d): %s%n  %s%n", round + 1, figures(r),
                        message(fp.events(seq), "ROUTING_COMPUTED"));
            }
            System.out.printf("link death: first %.1f ms, later rounds median %.1f ms (min %.1f, max %.1f); "
                            + "link back up: first %.1f ms, later rounds median %.1f ms%n", downs.get(0),
                    median(downs.subList(1, downs.size())), min(downs.subList(1, downs.size())),
                    max(downs.subList(1, downs.size())), ups.get(0), median(ups.subList(1, ups.size())));

            // a node's link (a node rebooting): only its leaf reports it, and the node's destination leaves every
            // switch's table, so every switch gets a block; then the link back
            for (int round = 0; round < NODE_ROUNDS; round++) {
                Link nodeLink = nodeLinks.get(round);
                long seq = fp.lastSeq();
                rest.get(0).command("link down " + Guids.format(nodeLink.a()) + " " + nodeLink.aPort());
                JsonNode r = fp.awaitEvent("REACTION", seq, 120);
                System.out.printf("node link down %s/%d (round %d): %s%n  %s%n", Guids.format(nodeLink.a()),
                        nodeLink.aPort(), round + 1, figures(r), message(fp.events(seq), "ROUTING_COMPUTED"));
                seq = fp.lastSeq();
                rest.get(0).command("link up " + Guids.format(nodeLink.a()) + " " + nodeLink.aPort());
                r = fp.awaitEvent("REACTION", seq, 120);
                System.out.printf("node link up (round %d): %s%n  %s%n", round + 1, figures(r),
                        message(fp.events(seq), "ROUTING_COMPUTED"));
            }

            // every node of a leaf at once (a rack powered off), then all back: the leaf reports them one PORT_STATUS
            // each within milliseconds; the settle window should gather them into few routings
            for (int round = 0; round < racks.size(); round++) {
                List<Link> rack = racks.get(round);
                for (String state : List.of("down", "up")) {
                    long seq = fp.lastSeq();
                    long sent = System.currentTimeMillis();
                    for (Link l : rack) {
                        rest.get(0).command("link " + state + " " + Guids.format(l.a()) + " " + l.aPort());
                    }
                    int triggers = 0;
                    int reactions = 0;
                    long last = -1;
                    List<String> each = new ArrayList<>();
                    while (triggers < rack.size()) {
                        JsonNode r = fp.awaitEvent("REACTION", seq, 120);
                        seq = r.path("seq").asLong();
                        reactions++;
                        triggers += r.at("/details/triggerCount").asInt();
                        last = r.path("timeMillis").asLong();
                        each.add(figures(r));
                    }
                    System.out.printf("rack %s, %d node links of %s (round %d): %d reactions, last converged %,d ms after the "
                            + "first command%n", state, rack.size(), Guids.format(rack.get(0).a()), round + 1, reactions,
                            last - sent);
                    for (String f : each) {
                        System.out.printf("  %s%n", f);
                    }
                }
            }

            // a spine death: its process dies (its session closes, its neighbours' cables stay up in their processes);
            // with the detector, it stops silently instead (TCP stays open): only the ring can tell
            if (DETECTOR && QUIET_BEFORE_STOP_MS > 0) {
                // the link round's LinkDown/LinkUp broadcasts reach every member (about n log n datagrams each): on a
                // loaded host the simulators' members read them, and the spine's last heartbeats behind them, seconds
                // late; a stop right after them measures that backlog, not the detection of a silent switch
                System.out.printf("  ring left quiet for %,d ms before the stop (fm.bench.quietBeforeStopMs); load %s%n",
                        QUIET_BEFORE_STOP_MS, load());
                Thread.sleep(QUIET_BEFORE_STOP_MS);
            }
            long seq = fp.lastSeq();
            long stoppedAt = System.currentTimeMillis();
            if (DETECTOR) {
                FabricProcesses.signal(spine.process().pid(), "STOP");
                // the reaction to whatever took the spine out first: the ring's verdict (after the second opinion), or
                // its session's idle timeout when the verdict is later; not a false verdict meanwhile (those are counted)
                awaitSpineOut(fp, seq, Guids.format(loneSpine));
                seq = spineOutSeq;
            } else {
                spine.process().destroyForcibly();
            }
            JsonNode r = fp.awaitEvent("REACTION", seq, 120);
            System.out.printf("spine death %s: %s%n  %s%n", Guids.format(loneSpine), figures(r),
                    message(fp.events(seq), "ROUTING_COMPUTED"));
            if (DETECTOR) {
                long reconvergedAt = time(fp.events(seq), "CONVERGED");
                if (spineOutByVerdict && spineEchoBeforeVerdict) {
                    // the echo went out at the observer's first suspicion and was unanswered when the verdict came:
                    // confirmed at the verdict, no wait after it
                    System.out.printf("  taken out by the ring's verdict: stop to the first suspicion's echo %,d ms, stop to "
                                    + "the daemon's verdict (confirmed at once, the echo unanswered for %d ms) %,d ms "
                                    + "(delta %d ms), verdict to converged %.1f ms; stop to converged %,d ms (delta %+,d ms); "
                                    + "other switches declared dead meanwhile: %d%n",
                            spineOutAt - spineEchoWaitMs - stoppedAt, spineEchoWaitMs, spineOutAt - stoppedAt, DELTA_MS,
                            r.at("/details/faultToConvergedMs").asDouble(), reconvergedAt - stoppedAt,
                            reconvergedAt - stoppedAt - DELTA_MS, falseVerdicts);
                } else if (spineOutByVerdict) {
                    System.out.printf("  taken out by the ring's verdict: stop to the daemon's verdict %,d ms (delta %d ms), "
                                    + "second opinion (echo wait) %d ms, verdict confirmed to converged %.1f ms; stop to "
                                    + "converged %,d ms (delta %+,d ms); other switches declared dead meanwhile: %d%n",
                            spineOutAt - spineEchoWaitMs - stoppedAt, DELTA_MS, spineEchoWaitMs,
                            r.at("/details/faultToConvergedMs").asDouble(), reconvergedAt - stoppedAt,
                            reconvergedAt - stoppedAt - DELTA_MS, falseVerdicts);
                } else {
                    JsonNode late = awaitSpineFailed(fp, seq, Guids.format(loneSpine), 120);
                    System.out.printf("  taken out by its session's idle timeout %,d ms after the stop (the ring's verdict "
                                    + "%s); stop to converged %,d ms; other switches declared dead meanwhile: %d%n",
                            spineOutAt - stoppedAt, late == null ? "not within 120 s more"
                                    : String.format("came %,d ms after the stop", late.path("timeMillis").asLong() - stoppedAt),
                            reconvergedAt - stoppedAt, falseVerdicts);
                }
                FabricProcesses.signal(spine.process().pid(), "CONT");
            }
            System.out.printf("load after: %s%n", load());
        }
    }

    private long spineOutSeq;
    private long spineOutAt;
    private boolean spineOutByVerdict;
    private int spineEchoWaitMs;
    private boolean spineEchoBeforeVerdict;
    private int falseVerdicts;

    /**
     * Waits for what takes the stopped {@code spine} out of the fabric after {@code since}: the ring's verdict acted on
     * ({@code SWITCH_FAILED} with {@code routedAround}), or the loss of its session ({@code SWITCH_LOST}: the southbound
     * idle timeout, when the verdict comes later; the verdict then opens no reaction). Counts verdicts on other switches.
     */
    private void awaitSpineOut(FabricProcesses fp, long since, String spine) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline) {
            int others = 0;
            for (JsonNode e : fp.events(since)) {
                String kind = e.path("kind").asText();
                boolean failed = kind.equals("SWITCH_FAILED");
                if (!failed && !kind.equals("SWITCH_LOST")) {
                    continue;
                }
                if (e.path("message").asText().contains(spine)) {
                    spineOutSeq = e.path("seq").asLong();
                    spineOutAt = e.path("timeMillis").asLong();
                    spineOutByVerdict = failed;
                    spineEchoWaitMs = e.at("/details/echoWaitMs").asInt(0);
                    spineEchoBeforeVerdict = e.at("/details/echoBeforeVerdict").asBoolean(false);
                    falseVerdicts = others;
                    return;
                }
                if (failed) {
                    others++;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the stopped spine " + spine + " was neither declared dead nor lost its session in 120 s");
    }

    /** The ring's verdict on {@code spine} after {@code since}, or {@code null} after {@code seconds}. */
    private static JsonNode awaitSpineFailed(FabricProcesses fp, long since, String spine, int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (JsonNode e : fp.events(since)) {
                if (e.path("kind").asText().equals("SWITCH_FAILED") && e.path("message").asText().contains(spine)) {
                    return e;
                }
            }
            Thread.sleep(200);
        }
        return null;
    }

    /** The level of a canonical switch GUID ({@code docs/formats.md}). */
    private static int levelOf(long guid) {
        return (int) ((guid - PgftGenerator.SWITCH_GUID_BASE) >>> 32);
    }

    private static String figures(JsonNode reaction) {
        JsonNode d = reaction.path("details");
        return String.format("converged %.1f ms after the fault (settled after %.1f ms, snapshots %.1f ms, %d routing "
                        + "computations %.1f ms, push %.1f ms); %d blocks, %d bytes pushed; %d switches acked",
                d.path("faultToConvergedMs").asDouble(), d.path("settledAfterMs").asDouble(), d.path("snapshotMs").asDouble(),
                d.path("computations").asInt(), d.path("engineMs").asDouble(), d.path("pushMs").asDouble(),
                d.path("blocksPushed").asLong(), d.path("bytesPushed").asLong(), d.path("switchesAcked").asLong());
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        java.util.Collections.sort(sorted);
        int n = sorted.size();
        if (n == 0) {
            return Double.NaN; // one round only (fm.bench.linkRounds=1): no later rounds
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static long time(List<JsonNode> events, String kind) {
        for (JsonNode e : events) {
            if (e.path("kind").asText().equals(kind)) {
                return e.path("timeMillis").asLong();
            }
        }
        return -1;
    }

    /** When the simulator logged "started N switch agents" (epoch ms, today in this host's zone), or -1. */
    private static long agentsStartedAt(Path out) {
        try {
            for (String line : Files.readAllLines(out)) {
                if (line.contains("simulator: started ") && line.length() > 12) {
                    java.time.LocalTime t = java.time.LocalTime.parse(line.substring(0, 12));
                    return java.time.LocalDate.now().atTime(t).atZone(java.time.ZoneId.systemDefault()).toInstant()
                            .toEpochMilli();
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    private static String message(List<JsonNode> events, String kind) {
        for (JsonNode e : events) {
            if (e.path("kind").asText().equals(kind)) {
                return e.path("message").asText();
            }
        }
        return "";
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** The simulators' TLS flags for {@code pkiDir} (none in plaintext). */
    private static List<String> tlsArgs(Path pkiDir) {
        return pkiDir == null ? List.of() : List.of("--pki", pkiDir.toString(), "--tls-provider", "openssl");
    }

    /** The benchmark's PKI, every switch's certificate issued (once: it is kept for the next runs). */
    private Path pki(Fabric fabric) {
        Path dir = Path.of(System.getProperty("fm.bench.pkiDir", work.resolve("pki").toString()));
        org.fabricmanager.pki.PkiDirectory pki = new org.fabricmanager.pki.PkiDirectory(dir);
        java.time.Clock clock = java.time.Clock.systemUTC();
        if (!Files.exists(dir.resolve(org.fabricmanager.pki.PkiDirectory.CA_KEY))) {
            pki.init("bench CA", java.time.Duration.ofDays(30), List.of(), List.of(), java.time.Duration.ofDays(30), clock);
        }
        java.util.Map<Long, String> switches = new java.util.LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            switches.put(s.guid(), s.name());
        }
        long t = System.nanoTime();
        pki.switchMaterials(switches, java.time.Duration.ofDays(30), clock);
        System.out.printf("PKI %s: %d switch certificates read or issued in %,d ms (before any timing)%n", dir,
                switches.size(), (System.nanoTime() - t) / 1_000_000);
        return dir;
    }
}
