/**
 * The re-route's comparison: which rows of a previous routing a new snapshot leaves unchanged,
 * which it changes at some leaves and destinations, and which it changes whole
 * ({@code RouteChanges}). The rest of the re-route path is in the other stages: the costs are
 * updated by {@code preprocess.CostDividerUpdate} and the rows patched by {@code fill}. Depends
 * only on {@code preprocess}.
 */
package org.fabricmanager.routing.dmodc.incremental;
