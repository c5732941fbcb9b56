package org.fabricmanager.daemon.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.fabricmanager.daemon.api.LinkLoad;
import org.fabricmanager.daemon.push.TableSet;
import org.fabricmanager.daemon.routing.ActiveRouting;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.analysis.CongestionAnalyzer;
import org.fabricmanager.routing.analysis.PatternCongestion;
import org.fabricmanager.routing.analysis.RoutedFabric;
import org.fabricmanager.routing.analysis.TrafficPattern;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

class LinkLoadServiceTest {
    private static ActiveRouting routed(long version, Fabric fabric) {
        ForwardingTables tables;
        try (RoutingEngine engine = new DmodcEngine(1)) {
            tables = engine.route(fabric.index()).tables();
        }
        return new ActiveRouting(version, fabric, "fp" + version, new TableSet(version, tables), "dmodc", 1.0, true, 0,
                false, null);
    }

    @Test
    void loadsAreTheAnalyzersPerLinkFiguresOnSwitchLinksOnly() throws Exception {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));
        ActiveRouting a = routed(7, fabric);
        try (LinkLoadService service = new LinkLoadService()) {
            for (String p : new String[] {"shift", "random:20:3", "all2all"}) {
                TrafficPattern pattern = LinkLoadService.pattern(p);
                LinkLoad load = service.load(a, pattern).get();
                PatternCongestion expected = new CongestionAnalyzer(RoutedFabric.of(fabric.index(),
                        a.tables().tables()), 1).analyze(pattern);
                assertThat(load.version()).isEqualTo(7);
                assertThat(load.pattern()).isEqualTo(pattern.toString());
                assertThat(load.max()).as(p).isEqualTo(expected.max());
                assertThat(load.permutations()).isEqualTo(expected.permutations());
                // 16 leaves x 4 up, 16 middle x 8, 16 top x 4 down: 256 directed switch links
                assertThat(load.links()).hasSize(256 * 4);
                long max = 0;
                for (int k = 0; k < load.links().length; k += 4) {
                    int from = (int) load.links()[k];
                    int port = (int) load.links()[k + 1];
                    int to = (int) load.links()[k + 2];
                    assertThat(fabric.index().peerSwitches(from)[port]).isEqualTo(to);
                    max = Math.max(max, load.links()[k + 3]);
                }
                assertThat(max).as(p).isEqualTo(load.max());
                assertThat(load.switches()).hasSize(48).startsWith(Guids.format(fabric.index().switchGuid(0)));
            }
        }
    }

    @Test
    void anAnswerIsKeptPerVersionAndShared() throws Exception {
        Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));
        ActiveRouting v1 = routed(1, fabric);
        try (LinkLoadService service = new LinkLoadService()) {
            CompletableFuture<LinkLoad> first = service.load(v1, new TrafficPattern.Shift());
            assertThat(service.load(v1, new TrafficPattern.Shift())).as("asked again: the same computation").isSameAs(first);
            first.get();
            assertThat(service.load(v1, new TrafficPattern.Shift())).isSameAs(first);
            CompletableFuture<LinkLoad> v2 = service.load(routed(2, fabric), new TrafficPattern.Shift());
            assertThat(v2).isNotSameAs(first);
            assertThat(v2.get().version()).isEqualTo(2);
        }
    }

    @Test
    void refusesWithoutTablesBeyondTheWaitingBoundAndForTooManyPermutations() throws Exception {
        try (LinkLoadService service = new LinkLoadService()) {
            assertThatThrownBy(() -> service.load(null, new TrafficPattern.Shift()).get())
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not routed");
            Fabric big = PgftGenerator.generate(PgftSpec.parse("PGFT(3;8,8,8;1,8,8;1,1,1)"));
            ActiveRouting a = routed(1, big);
            int refused = 0;
            for (int seed = 0; seed < LinkLoadService.MAX_WAITING + 3; seed++) {
                CompletableFuture<LinkLoad> f = service.load(a, new TrafficPattern.RandomPermutations(1000, seed));
                if (f.isCompletedExceptionally()) {
                    refused++;
                    assertThatThrownBy(f::get).hasMessageContaining("already running or waiting");
                }
            }
            assertThat(refused).as("a fast host may finish one before the next is asked").isGreaterThanOrEqualTo(1);
        }
        assertThatThrownBy(() -> LinkLoadService.pattern("random:1001")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 1000");
        assertThatThrownBy(() -> LinkLoadService.pattern("uniform")).isInstanceOf(IllegalArgumentException.class);
    }
}
