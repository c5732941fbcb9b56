package org.fabricmanager.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.daemon.health.LinkLevel;
import org.fabricmanager.southbound.PortCounter;
import org.fabricmanager.southbound.PortCounters;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * The judge passes the control thread only what the policy needs: nothing for a healthy fabric, every judgement of a
 * link that errs, the one that says it is healthy again, and every judgement of a link the policy watches.
 */
class LinkJudgeTest {
    private static final long S = 1_000_000_000L;
    private final Fabric fabric = PgftGenerator.generate(PgftSpec.parse("PGFT(2;4,4;1,4;1,1)"));
    private final long leaf = PgftGenerator.switchGuid(1, 0);
    private final int ports = 8;
    private final long[] values = new long[ports * PortCounters.FIELDS];
    private final List<LinkJudge.Verdicts> passed = new ArrayList<>();
    private final LinkJudge judge = new LinkJudge(LinkHealthSection.defaults(), Runnable::run, passed::add);
    private final Link uplink = fabric.links().stream().filter(l -> (l.a() == leaf || l.b() == leaf)
            && fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())).findFirst().orElseThrow().normalized();
    private final int upPort = uplink.a() == leaf ? uplink.aPort() : uplink.bPort();
    private long now = 100 * S;

    /** Ten seconds of the leaf's ports at 4,000 packets a second each way, {@code errors} more on the uplink. */
    private int report(long errors) {
        now += 10 * S;
        for (int p = 0; p < ports; p++) {
            values[p * PortCounters.FIELDS + PortCounter.RX_PACKETS.ordinal()] += 40_000;
            values[p * PortCounters.FIELDS + PortCounter.TX_PACKETS.ordinal()] += 40_000;
        }
        values[(upPort - 1) * PortCounters.FIELDS + PortCounter.RX_ERRORS.ordinal()] += errors;
        int before = passed.size();
        judge.reported(leaf, new PortCounters(1, values.clone()), now);
        return passed.size() - before;
    }

    private LinkJudge.Judged last() {
        List<LinkJudge.Judged> judged = passed.get(passed.size() - 1).judged();
        assertThat(judged).hasSize(1);
        return judged.get(0);
    }

    @Test
    void aHealthyFabricsReportsPassNothingAnErringLinksEveryOneUntilItIsHealthyAgain() {
        judge.watch(new LinkJudge.Watch(fabric, Set.of(), Set.of()));
        for (int i = 0; i < 5; i++) {
            assertThat(report(0)).as("healthy report %d", i).isZero();
        }
        assertThat(report(1_000)).isEqualTo(1);
        assertThat(last().link()).isEqualTo(uplink);
        assertThat(last().judgement().level()).isEqualTo(LinkLevel.SUSPECT);
        assertThat(last().endNodeCable()).isFalse();
        assertThat(passed.get(0).switchLinks()).isEqualTo(16);
        report(1_000);
        assertThat(last().judgement().level()).isEqualTo(LinkLevel.BAD);
        int reports = 0;
        while (last().judgement().level() != LinkLevel.HEALTHY) {
            assertThat(report(0)).as("a link not healthy yet is passed on").isEqualTo(1);
            assertThat(++reports).as("reports until healthy again").isLessThan(20);
        }
        assertThat(report(0)).as("healthy again, and said so once").isZero();
    }

    @Test
    void aWatchedLinksHealthyJudgementsArePassedOnAndAnIsolatedLinkIsJudgedOutOfTheRoutedFabric() {
        Fabric without = fabric.withoutLinks(List.of(uplink));
        judge.watch(new LinkJudge.Watch(without, Set.of(uplink), Set.of(uplink)));
        report(0);
        assertThat(report(0)).as("the isolated link's probation is judged").isEqualTo(1);
        assertThat(last().link()).isEqualTo(uplink);
        assertThat(last().judgement().level()).isEqualTo(LinkLevel.HEALTHY);
        judge.watch(new LinkJudge.Watch(fabric, Set.of(), Set.of()));
        assertThat(report(0)).as("given back and no longer watched").isZero();
    }

    @Test
    void nothingIsJudgedBeforeTheFirstRouting() {
        report(0);
        assertThat(report(1_000)).isZero();
        assertThat(report(1_000)).isZero();
    }
}
