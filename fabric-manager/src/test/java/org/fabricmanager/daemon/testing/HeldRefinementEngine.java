package org.fabricmanager.daemon.testing;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import org.fabricmanager.routing.AbandonedException;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingPool;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.TableChurn;
import org.fabricmanager.routing.TableRepairer;
import org.fabricmanager.routing.dmodc.home.HomeDmodcEngine;
import org.fabricmanager.testing.Await;
import org.fabricmanager.topology.FabricIndex;

/**
 * {@code dmodc-home}, whose refinements wait at their start until they are abandoned, then run (and so end at the
 * engine's first parallel loop), until {@link #release}: on a small fabric a refinement is otherwise over before a
 * test can overtake it. {@link #held} counts the first one down.
 */
public final class HeldRefinementEngine implements RoutingEngine {
    private final HomeDmodcEngine home = new HomeDmodcEngine(1);
    private final TableRepairer repairer = home.repairer().orElseThrow();
    private final CountDownLatch held = new CountDownLatch(1);
    private volatile boolean hold = true;
    private volatile boolean abandoned;

    /** Counted down when the first refinement waits. */
    public CountDownLatch held() {
        return held;
    }

    /** True once a refinement ended abandoned, in the engine's own loops. */
    public boolean abandoned() {
        return abandoned;
    }

    /** Later refinements run at once. */
    public void release() {
        hold = false;
    }

    @Override
    public String name() {
        return home.name();
    }

    @Override
    public RoutingResult route(FabricIndex fabric) {
        return home.route(fabric);
    }

    @Override
    public RoutedSnapshot routeSnapshot(FabricIndex fabric) {
        return home.routeSnapshot(fabric);
    }

    @Override
    public RoutedSnapshot reroute(FabricIndex next, RoutedSnapshot previous) {
        return home.reroute(next, previous);
    }

    @Override
    public Optional<TableRepairer> repairer() {
        return Optional.of(new TableRepairer() {
            @Override
            public RoutedSnapshot repair(RoutedSnapshot base, ForwardingTables inForce, FabricIndex next) {
                return repairer.repair(base, inForce, next);
            }

            @Override
            public RoutedSnapshot repair(ForwardingTables inForce, FabricIndex before, FabricIndex next) {
                return repairer.repair(inForce, before, next);
            }

            @Override
            public boolean refines() {
                return repairer.refines();
            }

            @Override
            public Optional<RoutedSnapshot> refine(ForwardingTables base, RoutedSnapshot repaired,
                                                   BooleanSupplier abandon) {
                if (hold) {
                    held.countDown();
                    Await.until("the refinement abandoned", Duration.ofSeconds(60), abandon);
                }
                try {
                    return repairer.refine(base, repaired, abandon);
                } catch (AbandonedException e) {
                    abandoned = true;
                    throw e;
                }
            }

            @Override
            public TableChurn churn(ForwardingTables before, RoutedSnapshot after, RoutingPool pool) {
                return repairer.churn(before, after, pool);
            }
        });
    }

    @Override
    public void close() {
        home.close();
    }
}
