/**
 * The Dmodc routing engine (fault-resilient, for degraded fat-trees) and the closed-form Dmodk
 * engine (intact canonical PGFTs only), each running on its own
 * {@link org.fabricmanager.routing.RoutingPool}. Dmodc follows the conventions of
 * {@code docs/formats.md} so that its tables are reproducible entry by entry; on an intact
 * canonical PGFT both engines give the same tables.
 */
package org.fabricmanager.routing.dmodc;
