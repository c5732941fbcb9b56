/**
 * The fill, the last stage before the tables: every switch's forwarding row by formulas (1)-(4).
 * {@code RouteFill} runs the switches over the pool and chooses how each row is made: afresh by a
 * {@code RowFiller} (which picks a sweep over the leaves: shared blocks, rotations, or whole
 * rows), as a relative's row patched ({@code RowPatcher}), or, in a re-route,
 * reused or patched as the route changes say. Runs of leaves with the same candidates are written
 * by {@code RunWriter} and {@code Selectors} (formulas (3)-(4)). Depends on {@code shared},
 * {@code reuse}, {@code incremental} and {@code preprocess}.
 */
package org.fabricmanager.routing.dmodc.fill;
