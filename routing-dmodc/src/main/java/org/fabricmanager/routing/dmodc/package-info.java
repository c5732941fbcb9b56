/**
 * The Dmodc routing engine (fault-resilient, for degraded fat-trees) and the closed-form Dmodk
 * engine (intact canonical PGFTs only), with the thread pool they run on. Dmodc follows the
 * conventions of {@code shared/spec/FORMATS.md} so that its tables are reproducible entry by entry;
 * on an intact canonical PGFT both engines give the same tables.
 */
package org.fabricmanager.routing.dmodc;
