package org.fabricmanager.daemon.push;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.function.LongPredicate;
import org.fabricmanager.daemon.testing.FakeSession;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.southbound.AgentErrorException;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * A switch the tables route no traffic through (no link left in their fabric) is pushed, retried and counted pending
 * like any other, but the pusher does not await it: a dead switch whose agent refuses every table must not keep the
 * daemon from converging on the tables that route around it.
 */
class RoutedAroundTest {
    private static final PgftSpec SPEC = PgftSpec.parse("PGFT(2;4,4;1,4;1,1)");
    private static final int DESTINATIONS = 16;

    private final ManualControlLoop loop = new ManualControlLoop();

    @Test
    void aSwitchWithoutAnyLinkInTheRoutedFabricOrNotInItIsRoutedAround() {
        Fabric fabric = PgftGenerator.generate(SPEC);
        long top = PgftGenerator.switchGuid(2, 0);
        long leaf = PgftGenerator.switchGuid(1, 0);
        List<Link> topLinks = fabric.links().stream().filter(l -> l.a() == top || l.b() == top).toList();
        assertThat(topLinks).hasSize(4);

        assertThat(RoutedAround.in(fabric).test(top)).as("intact").isFalse();
        Fabric oneLeft = fabric.withoutLinks(topLinks.subList(0, 3));
        assertThat(RoutedAround.in(oneLeft).test(top)).as("one link left").isFalse();
        Fabric none = fabric.withoutLinks(topLinks);
        LongPredicate around = RoutedAround.in(none);
        assertThat(around.test(top)).as("every link gone").isTrue();
        assertThat(around.test(leaf)).as("a leaf with its nodes and other uplinks").isFalse();
        assertThat(around.test(0x1234L)).as("a switch the fabric does not have (its session lost)").isTrue();
    }

    @Test
    void aRoutedAroundSwitchThatRefusesEveryTableIsPendingButNotAwaited() {
        LftPusher p = new LftPusher(100, 2, 8, loop, new SimpleMeterRegistry(), () -> { });
        FakeSession live = attach(p, 1);
        FakeSession dead = attach(p, 2);
        p.install(tables(1, 0), guid -> guid == 2);
        live.last().ack();
        for (int refusal = 0; refusal < 5; refusal++) {
            dead.last().future().completeExceptionally(new AgentErrorException(new Message.ErrorReport(0,
                    ErrorCode.APPLY_FAILED.code(), 0, "table v1 not applied: bridge br0 gone")));
            loop.advance(PushRetries.BACKOFF_MAX_MS);
        }
        assertThat(dead.batches).as("still pushed and retried").hasSize(6);
        assertThat(p.inSyncCount()).isEqualTo(1);
        assertThat(p.pendingCount()).as("shown pending").isEqualTo(1);
        assertThat(p.failingCount()).as("and failing").isEqualTo(1);
        assertThat(p.state(2).lastError()).contains("APPLY_FAILED");
        assertThat(p.awaitedCount()).as("but convergence does not wait for it").isZero();
        assertThat(p.routedAroundCount()).isEqualTo(1);

        // tables that route traffic through it again await it
        p.install(tables(2, 1), guid -> false);
        assertThat(p.awaitedCount()).isEqualTo(2);
        assertThat(p.routedAroundCount()).isZero();
        live.last().ack();
        loop.runPending();
        assertThat(p.awaitedCount()).as("the switch carrying traffic that has not acknowledged").isEqualTo(1);
    }

    @Test
    void withoutAPredicateEveryCoveredSwitchIsAwaited() {
        LftPusher p = new LftPusher(100, 2, 8, loop, new SimpleMeterRegistry(), () -> { });
        attach(p, 1);
        attach(p, 2);
        p.install(tables(1, 0));
        assertThat(p.awaitedCount()).isEqualTo(2);
        assertThat(p.pendingCount()).isEqualTo(2);
    }

    private static FakeSession attach(LftPusher p, long guid) {
        FakeSession s = FakeSession.of(guid, "s" + guid, 4, 1);
        p.attach(guid, "s" + guid, s, s.hello());
        return s;
    }

    /** Tables for switches 1 and 2: destination d leaves by port 1 + (d + s + shift) % 4. */
    private static TableSet tables(long version, int shift) {
        ForwardingTables.Builder b = ForwardingTables.builder(new long[]{1, 2}, DESTINATIONS);
        for (int s = 0; s < 2; s++) {
            for (int d = 0; d < DESTINATIONS; d++) {
                b.set(s, d, 1 + (d + s + shift) % 4);
            }
        }
        return new TableSet(version, b.build());
    }
}
