package org.fabricmanager.daemon.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.daemon.api.WhatIfException;
import org.fabricmanager.daemon.api.WhatIfRequest;
import org.fabricmanager.daemon.api.WhatIfResult;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.daemon.routing.RoutingJob;
import org.fabricmanager.daemon.routing.RoutingOutcome;
import org.fabricmanager.daemon.routing.RoutingService;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.PortRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What-if against a routing in force computed by the daemon's routing service: its counts equal those of
 * routing the degraded fabric offline and comparing entry by entry, the live routing and the service's
 * next real re-route are untouched, one runs at a time, and bad requests name what is wrong.
 */
class WhatIfServiceTest {
    static final PgftSpec SPEC = PgftSpec.parse("PGFT(3;4,4,4;1,4,2;1,1,1)");

    Fabric fabric;
    RoutingService routing;
    ExecutorService executor;
    ActiveRouting active;

    @BeforeEach
    void routeTheIntactFabric() throws Exception {
        fabric = PgftGenerator.generate(SPEC);
        routing = new RoutingService("dmodc", 2);
        executor = Executors.newSingleThreadExecutor();
        RoutingOutcome outcome = routing.route(new RoutingJob(1, fabric, null, null)).get(60, TimeUnit.SECONDS);
        active = new ActiveRouting(1, fabric, outcome.fingerprint(), outcome.tables(), "dmodc", outcome.millis(),
                true, 0, false, null);
    }

    @AfterEach
    void stop() {
        routing.close();
        executor.shutdownNow();
    }

    @Test
    void changedEntriesEqualAnOfflineRoutingOfTheDegradedFabric() throws Exception {
        long seed = 20261123L;
        Random random = new Random(seed);
        List<Long> spines = guidsAtLevel(3);
        List<Link> switchLinks = new ArrayList<>();
        for (Link l : fabric.links()) {
            if (fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())) {
                switchLinks.add(l);
            }
        }
        WhatIfService whatIfs = new WhatIfService(routing, executor, 1);
        long[] hashes = hashes(active.tables());
        for (int round = 0; round < 12; round++) {
            List<Long> switches = new ArrayList<>();
            List<PortRef> links = new ArrayList<>();
            if (round % 3 != 1) {
                switches.add(spines.get(random.nextInt(spines.size())));
            }
            if (round % 3 != 0) {
                for (int k = 1 + random.nextInt(4); k > 0; k--) {
                    Link l = switchLinks.get(random.nextInt(switchLinks.size()));
                    PortRef end = random.nextBoolean() ? new PortRef(l.a(), l.aPort()) : new PortRef(l.b(), l.bPort());
                    if (!links.contains(end) && !links.contains(otherEnd(l, end))) {
                        links.add(end);
                    }
                }
            }
            WhatIfRequest request = new WhatIfRequest(switches, links);
            WhatIfResult r = whatIfs.start(active, request).get(60, TimeUnit.SECONDS);

            Fabric degraded = Degrader.degrade(fabric, new DegradationPlan(0, 0, 0, switches, linksOf(links)));
            RoutingResult offline;
            try (DmodcEngine engine = new DmodcEngine(1)) {
                offline = engine.route(degraded.index());
            }
            long[] expected = count(active.tables().tables(), offline.tables());
            assertThat(new long[] {r.changedEntries(), r.changedBlocks(), r.switchesTouched()})
                    .as("seed %d round %d: %s", seed, round, request).containsExactly(expected);
            assertThat(r.changedEntries()).as("a spine or a link failure moves routes").isPositive();
            assertThat(r.valid()).isEqualTo(offline.validity().isValid());
            assertThat(r.unreachableLeafPairs()).isEqualTo(offline.validity().unreachablePairs());
            assertThat(r.routingVersion()).isEqualTo(1);
            assertThat(r.congestion()).containsOnlyKeys("random", "all2all");
            org.fabricmanager.routing.analysis.QualityFigures q = new org.fabricmanager.routing.analysis.TableQuality(
                    org.fabricmanager.routing.analysis.RoutedFabric.of(degraded.index(), offline.tables()), 1)
                    .measure(WhatIfService.PATTERNS);
            for (org.fabricmanager.routing.analysis.PatternCongestion c : q.patterns()) {
                assertThat(r.congestion().get(c.pattern().name()))
                        .isEqualTo(org.fabricmanager.daemon.api.PatternFigures.of(c));
            }
            assertThat(r.deadlockFree()).isEqualTo(q.deadlockFree());
            assertThat(r.maxPathLength()).isEqualTo(q.maxPathLength());
        }
        assertThat(hashes(active.tables())).as("the tables in force are untouched").containsExactly(hashes);

        // the service's next real re-route continues from the routing in force, not from a what-if
        Fabric lastDegraded = fabric.withoutSwitches(List.of(spines.get(0)));
        RoutingOutcome real = routing.route(new RoutingJob(2, lastDegraded, active.tables(), active.fingerprint()))
                .get(60, TimeUnit.SECONDS);
        try (DmodcEngine engine = new DmodcEngine(1)) {
            assertThat(real.result().tables().sameAs(engine.route(lastDegraded.index()).tables())).isTrue();
        }
        assertThat(real.tables().previousVersion()).isEqualTo(1);
    }

    @Test
    void worksForVtftrOnATwoDimensionalFatTree() throws Exception {
        org.fabricmanager.topology.HdftSpec spec = org.fabricmanager.topology.HdftSpec.parse("HDFT(4x4;2;1;1)");
        Fabric hdft = org.fabricmanager.topology.HdftGenerator.generate(spec);
        try (RoutingService vtftr = new RoutingService("vtftr", 1)) {
            RoutingOutcome outcome = vtftr.route(new RoutingJob(1, hdft, null, null)).get(60, TimeUnit.SECONDS);
            ActiveRouting live = new ActiveRouting(1, hdft, outcome.fingerprint(), outcome.tables(), "vtftr",
                    outcome.millis(), true, 0, false, null);
            WhatIfService whatIfs = new WhatIfService(vtftr, executor, 1);
            long leaf = org.fabricmanager.topology.HdftGenerator.leafGuid(spec, 1, 2);
            long row = org.fabricmanager.topology.HdftGenerator.rowSwitchGuid(spec, 0, 0);
            for (List<Long> failed : List.of(List.of(leaf), List.of(row))) {
                Fabric degraded = hdft.withoutSwitches(failed);
                RoutingResult offline;
                try (org.fabricmanager.routing.RoutingEngine engine
                             = org.fabricmanager.routing.engines.RoutingEngines.create("vtftr", 1)) {
                    offline = engine.route(degraded.index());
                }
                WhatIfResult r = whatIfs.start(live, new WhatIfRequest(failed, List.of())).get(60, TimeUnit.SECONDS);
                assertThat(new long[] {r.changedEntries(), r.changedBlocks(), r.switchesTouched()}).as("fail %s", failed)
                        .containsExactly(count(live.tables().tables(), offline.tables()));
                assertThat(r.engine()).isEqualTo("vtftr");
                assertThat(r.valid()).isEqualTo(offline.validity().isValid());
                assertThat(r.deadlockFree()).as("vtftr's (link, VC) graph").isTrue();
            }
        }
    }

    @Test
    void aSecondWhatIfWhileOneRunsIsRefused() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Executor held = task -> executor.execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            task.run();
        });
        WhatIfService whatIfs = new WhatIfService(routing, held, 1);
        WhatIfRequest spine = new WhatIfRequest(List.of(guidsAtLevel(3).get(0)), List.of());
        CompletableFuture<WhatIfResult> first = whatIfs.start(active, spine);
        assertThatThrownBy(() -> whatIfs.start(active, spine)).isInstanceOfSatisfying(WhatIfException.class,
                e -> assertThat(e.kind()).isEqualTo(WhatIfException.Kind.BUSY));
        assertThat(first).isNotDone();
        release.countDown();
        WhatIfResult r = first.get(60, TimeUnit.SECONDS);
        assertThat(r.changedEntries()).isPositive();
        // once answered, the next runs
        assertThat(whatIfs.start(active, spine).get(60, TimeUnit.SECONDS).changedEntries()).isEqualTo(r.changedEntries());
    }

    @Test
    void unknownSwitchesPortsAndCablesAreBadRequestsAndFreeTheSlot() throws Exception {
        WhatIfService whatIfs = new WhatIfService(routing, executor, 1);
        long leaf = PgftGenerator.switchGuid(1, 0);
        FabricSwitch leafSwitch = fabric.switchByGuid(leaf).orElseThrow();
        assertBad(whatIfs, new WhatIfRequest(List.of(0x1234L), List.of()), "switch 0x0000000000001234 is not in the fabric");
        assertBad(whatIfs, new WhatIfRequest(List.of(), List.of(new PortRef(leaf, leafSwitch.ports() + 1))),
                "has ports 1.." + leafSwitch.ports());
        assertBad(whatIfs, new WhatIfRequest(List.of(), List.of(new PortRef(PgftGenerator.nodeGuid(0), 1))),
                "switch " + Guids.format(PgftGenerator.nodeGuid(0)) + " is not in the fabric");
        Fabric unplugged = fabric.withoutLinks(List.of(linkAt(leaf, leafSwitch.ports())));
        ActiveRouting withUnplugged = new ActiveRouting(1, unplugged, "x", active.tables(), "dmodc", 1.0, true, 0, false, null);
        assertThatThrownBy(() -> whatIfs.start(withUnplugged, new WhatIfRequest(List.of(),
                List.of(new PortRef(leaf, leafSwitch.ports())))).get(60, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(WhatIfException.class).rootCause().hasMessageContaining("no cable is plugged into port");
        assertThatThrownBy(() -> whatIfs.start(null, new WhatIfRequest(List.of(leaf), List.of())))
                .isInstanceOfSatisfying(WhatIfException.class, e -> assertThat(e.kind()).isEqualTo(WhatIfException.Kind.NOT_ROUTED));
        // a refused request does not hold the one-at-a-time slot
        assertThat(whatIfs.start(active, new WhatIfRequest(List.of(guidsAtLevel(3).get(1)), List.of()))
                .get(60, TimeUnit.SECONDS).valid()).isTrue();
    }

    @Test
    void requestsAreParsedWithinBoundsWithClearErrors() {
        WhatIfRequest r = WhatIfRequest.parse("""
                {"switches":["0x1000000300000000"],"links":[{"guid":"0x1000000100000000","port":5}]}""".getBytes());
        assertThat(r.switches()).containsExactly(0x1000000300000000L);
        assertThat(r.links()).containsExactly(new PortRef(0x1000000100000000L, 5));
        assertParseError("{}", "name at least one switch or link");
        assertParseError("[1]", "must be a JSON object");
        assertParseError("{\"switches\":[1]}", "a GUID must be a string");
        assertParseError("{\"switches\":[\"0xZZ\"]}", "bad GUID");
        assertParseError("{\"switches\":[\"0x1\",\"0x01\"]}", "named twice");
        assertParseError("{\"links\":[{\"guid\":\"0x1\",\"port\":0}]}", "port must be in [1, 254]");
        assertParseError("{\"links\":[{\"guid\":\"0x1\"}]}", "each link must be");
        assertParseError("{\"spines\":[]}", "unknown field 'spines'");
        assertParseError("{not json", "not JSON");
        StringBuilder many = new StringBuilder("{\"switches\":[");
        for (int i = 0; i <= WhatIfRequest.MAX_SWITCHES; i++) {
            many.append(i == 0 ? "" : ",").append("\"0x").append(Integer.toHexString(i + 1)).append('"');
        }
        assertParseError(many.append("]}").toString(), "at most " + WhatIfRequest.MAX_SWITCHES);
    }

    private static void assertParseError(String body, String message) {
        assertThatThrownBy(() -> WhatIfRequest.parse(body.getBytes())).as(body)
                .isInstanceOfSatisfying(WhatIfException.class, e -> assertThat(e.kind()).isEqualTo(WhatIfException.Kind.BAD_REQUEST))
                .hasMessageContaining(message);
    }

    private void assertBad(WhatIfService whatIfs, WhatIfRequest request, String message) {
        assertThatThrownBy(() -> whatIfs.start(active, request).get(60, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).rootCause().isInstanceOfSatisfying(WhatIfException.class,
                        e -> assertThat(e.kind()).isEqualTo(WhatIfException.Kind.BAD_REQUEST)).hasMessageContaining(message);
    }

    private List<Long> guidsAtLevel(int level) {
        List<Long> out = new ArrayList<>();
        for (FabricSwitch s : fabric.switches()) {
            if ((s.guid() >>> 32 & 0xff) == level) {
                out.add(s.guid());
            }
        }
        assertThat(out).as("switches at level %d", level).isNotEmpty();
        return out;
    }

    private Link linkAt(long guid, int port) {
        for (Link l : fabric.links()) {
            if (l.touches(guid, port)) {
                return l;
            }
        }
        throw new AssertionError("no link at " + Guids.format(guid) + ":" + port);
    }

    private List<Link> linksOf(List<PortRef> ends) {
        List<Link> out = new ArrayList<>();
        for (PortRef p : ends) {
            out.add(linkAt(p.guid(), p.port()));
        }
        return out;
    }

    private static PortRef otherEnd(Link l, PortRef end) {
        return end.guid() == l.a() && end.port() == l.aPort() ? new PortRef(l.b(), l.bPort()) : new PortRef(l.a(), l.aPort());
    }

    /** Entries, 64-entry blocks and switches that differ, counted independently of {@link TableChanges}. */
    private static long[] count(ForwardingTables live, ForwardingTables after) {
        long entries = 0;
        long blocks = 0;
        long switches = 0;
        for (int s = 0; s < after.switchCount(); s++) {
            int p = -1;
            for (int q = 0; q < live.switchCount(); q++) {
                if (live.switchGuid(q) == after.switchGuid(s)) {
                    p = q;
                }
            }
            assertThat(p).isNotNegative();
            long rowEntries = 0;
            java.util.Set<Integer> rowBlocks = new java.util.HashSet<>();
            for (int d = 0; d < after.destinationCount(); d++) {
                if (after.port(s, d) != live.port(p, d)) {
                    rowEntries++;
                    rowBlocks.add(d / LftBlock.SIZE);
                }
            }
            entries += rowEntries;
            blocks += rowBlocks.size();
            switches += rowEntries > 0 ? 1 : 0;
        }
        return new long[] {entries, blocks, switches};
    }

    private static long[] hashes(TableSet tables) {
        long[] out = new long[tables.rowCount()];
        for (int s = 0; s < out.length; s++) {
            byte[] row = tables.row(s, 0, tables.length());
            out[s] = java.util.Arrays.hashCode(row);
        }
        return out;
    }
}
