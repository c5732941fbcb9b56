package org.fabricmanager.daemon.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.daemon.config.LinkHealthSection;
import org.fabricmanager.daemon.health.IsolationPolicy.Action;
import org.fabricmanager.daemon.health.IsolationPolicy.Fabric;
import org.fabricmanager.topology.Link;
import org.junit.jupiter.api.Test;

class IsolationPolicyTest {
    private static final LinkJudgement BAD = judged(LinkLevel.BAD);
    private static final LinkJudgement SUSPECT = judged(LinkLevel.SUSPECT);
    private static final LinkJudgement HEALTHY = judged(LinkLevel.HEALTHY);
    private static final Fabric SPINE = new Fabric(false, 200, true);
    private static final Link CABLE = new Link(0x20, 1, 0x10, 5);

    private final LinkHealthSection config = LinkHealthSection.defaults().withPolicy("isolate");
    private final IsolationPolicy policy = new IsolationPolicy(config);

    private static LinkJudgement judged(LinkLevel level) {
        return new LinkJudgement(level, level, LinkFigures.NONE);
    }

    private static Link cable(int i) {
        return new Link(0x100 + i, 1, 0x200 + i, 2);
    }

    @Test
    void aSpineCableGoingBadIsIsolatedAfterAnEventForItsSuspicion() {
        assertThat(policy.decide(CABLE, SUSPECT, SPINE, 0).action()).isEqualTo(Action.SUSPECT);
        assertThat(policy.decide(CABLE, SUSPECT, SPINE, 10).action()).as("once per turn").isEqualTo(Action.NONE);
        assertThat(policy.decide(CABLE, BAD, SPINE, 20).action()).isEqualTo(Action.ISOLATE);
        assertThat(policy.isolated()).containsKey(CABLE.normalized());
        assertThat(policy.decide(CABLE, BAD, SPINE, 30).action()).isEqualTo(Action.NONE);
    }

    @Test
    void anEndNodesCableGetsAdviceOnlyOnceForItsTurnToBad() {
        Fabric node = new Fabric(true, 64, true);
        IsolationPolicy.Decision d = policy.decide(CABLE, BAD, node, 0);
        assertThat(d.action()).isEqualTo(Action.ADVISE);
        assertThat(d.reason()).contains("end node");
        assertThat(policy.decide(CABLE, BAD, node, 10).action()).isEqualTo(Action.NONE);
        assertThat(policy.isolated()).isEmpty();
    }

    @Test
    void underAdviseNothingIsIsolated() {
        IsolationPolicy advise = new IsolationPolicy(LinkHealthSection.defaults());
        assertThat(advise.decide(CABLE, BAD, SPINE, 0)).isEqualTo(new IsolationPolicy.Decision(Action.ADVISE,
                "policy advise: advice only"));
        assertThat(advise.isolated()).isEmpty();
    }

    @Test
    void theCapsHoldWhateverTheNumberOfBadLinks() {
        for (int i = 0; i < 10; i++) {
            policy.decide(cable(i), BAD, SPINE, i);
        }
        assertThat(policy.isolated()).hasSize(config.maxIsolated());
        // 5% of 40 switch links is 2: the share holds before the count does
        IsolationPolicy share = new IsolationPolicy(config);
        int isolated = 0;
        for (int i = 0; i < 10; i++) {
            IsolationPolicy.Decision d = share.decide(cable(i), BAD, new Fabric(false, 40, true), i);
            isolated += d.action() == Action.ISOLATE ? 1 : 0;
            if (d.action() == Action.ADVISE) {
                assertThat(d.reason()).contains("maxIsolatedPercent");
            }
        }
        assertThat(isolated).isEqualTo(2);
        assertThat(share.allowedByShare(4)).as("a small fabric still isolates one").isEqualTo(1);
    }

    @Test
    void nothingIsIsolatedWhileTheFabricSettlesAndTheLinkIsOnceItHasSettled() {
        IsolationPolicy.Decision d = policy.decide(CABLE, BAD, new Fabric(false, 64, false), 0);
        assertThat(d.action()).isEqualTo(Action.ADVISE);
        assertThat(d.reason()).contains("settling");
        assertThat(policy.decide(CABLE, BAD, SPINE, 10).action()).isEqualTo(Action.ISOLATE);
    }

    @Test
    void aQuietProbationGivesTheLinkBackAndAnErrorRestartsIt() {
        policy.decide(CABLE, BAD, SPINE, 0);
        long p = config.probationMs();
        assertThat(policy.decide(CABLE, HEALTHY, SPINE, 1_000).action()).isEqualTo(Action.NONE);
        assertThat(policy.decide(CABLE, SUSPECT, SPINE, 1_000 + p / 2).action()).as("errors again").isEqualTo(Action.NONE);
        assertThat(policy.decide(CABLE, HEALTHY, SPINE, 2_000 + p / 2).action()).isEqualTo(Action.NONE);
        assertThat(policy.decide(CABLE, HEALTHY, SPINE, 1_999 + p + p / 2).action()).isEqualTo(Action.NONE);
        assertThat(policy.decide(CABLE, HEALTHY, SPINE, 2_000 + p + p / 2).action()).isEqualTo(Action.REINSTATE);
        assertThat(policy.isolated()).isEmpty();
    }

    @Test
    void aLinkThatRelapsesSoonAfterItsProbationStaysOutTwiceAsLong() {
        long p = config.probationMs();
        long t = 0;
        for (int round = 1; round <= 5; round++) {
            assertThat(policy.decide(CABLE, BAD, SPINE, t).action()).isEqualTo(Action.ISOLATE);
            long expected = Math.min(p << (round - 1), p * IsolationPolicy.MAX_PROBATION_FACTOR);
            assertThat(policy.isolated().get(CABLE.normalized()).probationMs()).as("round %d", round)
                    .isEqualTo(expected);
            policy.decide(CABLE, HEALTHY, SPINE, t + 1);
            assertThat(policy.decide(CABLE, HEALTHY, SPINE, t + 1 + expected).action()).isEqualTo(Action.REINSTATE);
            t += 2 + expected;
        }
        // a relapse long after the last probation starts again from probationMs
        policy.decide(CABLE, BAD, SPINE, t + 100 * p);
        assertThat(policy.isolated().get(CABLE.normalized()).probationMs()).isEqualTo(p);
    }

    @Test
    void aRefusedOrReleasedLinkIsNotProposedAgainUntilHealthyOnce() {
        policy.decide(CABLE, BAD, SPINE, 0);
        policy.released(CABLE);
        assertThat(policy.isolated()).isEmpty();
        IsolationPolicy.Decision d = policy.decide(CABLE, BAD, SPINE, 10);
        assertThat(d.action()).isEqualTo(Action.ADVISE);
        assertThat(d.reason()).contains("held back");
        policy.decide(CABLE, HEALTHY, SPINE, 20);
        assertThat(policy.decide(CABLE, BAD, SPINE, 30).action()).isEqualTo(Action.ISOLATE);
        policy.refused(CABLE);
        assertThat(policy.isolated()).isEmpty();
        assertThat(policy.decide(CABLE, BAD, SPINE, 40).action()).isEqualTo(Action.ADVISE);
    }
}
