/**
 * The Dmodc routing engine (fault-resilient, for degraded fat-trees) and the closed-form Dmodk
 * engine (intact canonical PGFTs only), each running on its own
 * {@link org.fabricmanager.routing.RoutingPool}. Dmodc follows the conventions of
 * {@code docs/formats.md} so that its tables are reproducible entry by entry; on an intact
 * canonical PGFT both engines give the same tables.
 *
 * <p>This package holds the engines, their result ({@code DmodcRouting}), the formulas, the
 * canonical-PGFT check and the last stage (leaf validity). The pipeline's stages are its
 * sub-packages, each depending only on those after it in this list: {@code fill} (the rows by
 * formulas (1)-(4)), {@code incremental} (what a re-route must recompute), {@code reuse} (rows
 * copied from a relative), {@code shared} (neighbour rows merged once for many switches)
 * and {@code preprocess} (ranks, groups, costs and dividers, row profiles). {@code plain} is the
 * paper written plainly, sharing no code with the others. {@code docs/routing.md} draws the map.
 */
package org.fabricmanager.routing.dmodc;
