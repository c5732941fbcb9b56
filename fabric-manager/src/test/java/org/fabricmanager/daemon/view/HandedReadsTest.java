package org.fabricmanager.daemon.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.fabricmanager.daemon.testing.ManualControlLoop;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;
import org.junit.jupiter.api.Test;

/** A read of the handed tables is done once the routing in force is installed: at once, or at the change that does it. */
class HandedReadsTest {
    private static final Fabric FABRIC = PgftGenerator.generate(PgftSpec.parse("PGFT(2;2,2;1,2;1,1)"));
    /** The fabric of the installed routing, {@code null} while none is. */
    private Fabric installed;
    private Runnable changed;
    private final ManualControlLoop loop = new ManualControlLoop();
    private final HandedReads reads = new HandedReads(new HandedReads.Source() {
        @Override
        public <T> T handed(Function<Fabric, T> read) {
            return installed == null ? null : read.apply(installed);
        }
    }, loop, r -> changed = r);

    /** A change of state, and the events after it. */
    private void stateChanged() {
        changed.run();
        loop.runPending();
    }

    @Test
    void aReadWaitsForTheInstallationAndIsDoneAtTheChangeThatMakesIt() {
        CompletableFuture<Integer> switches = reads.read(f -> f.switches().size());
        stateChanged();
        assertThat(switches).as("a change that installs nothing").isNotDone();
        installed = FABRIC;
        stateChanged();
        assertThat(switches).isCompletedWithValue(FABRIC.switches().size());
        assertThat(reads.read(f -> f.nodes().size())).as("installed already: at once")
                .isCompletedWithValue(FABRIC.nodes().size());
    }

    @Test
    void aReadThatFailsOrIsCancelledIsLetGo() {
        CompletableFuture<Integer> cancelled = reads.read(f -> 1);
        CompletableFuture<Integer> failing = reads.read(f -> {
            throw new TopologyException("switch 0x20 is not in OpenSM's subnet");
        });
        cancelled.cancel(false);
        installed = FABRIC;
        stateChanged();
        assertThatThrownBy(failing::join).hasMessageContaining("not in OpenSM's subnet");
        assertThat(cancelled).isCancelled();
    }
}
