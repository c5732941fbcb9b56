package org.fabricmanager.routing.dmodc;

import org.fabricmanager.routing.RoutingPool;

/**
 * A pass over Dmodc's tables that an engine built on Dmodc applies to each of its full routings ({@code dmodc-home}'s
 * home planes). A {@link DmodcEngine} built with one repairs as Dmodc does, but takes the refined tables as the full
 * routing that elements coming back, and a whole fabric, get back ({@link DmodcEngine#repair}).
 */
@FunctionalInterface
public interface DmodcRefinement {

    /**
     * The rows to put in place of Dmodc's in {@code dmodc}'s tables ({@code null}: Dmodc's row stays), computed on
     * {@code pool}; every entry one of Dmodc's candidates, so the routing stays valid and deadlock-free.
     */
    byte[][] rows(DmodcRouting dmodc, RoutingPool pool);
}
