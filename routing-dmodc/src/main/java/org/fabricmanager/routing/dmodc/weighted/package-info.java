/**
 * The {@code dmodc-weighted} engine: Dmodc's tables, then the up choices that failures thinned taken
 * again by the load already placed on each link, destination after destination ({@code LoadWeighting}),
 * as OpenSM's dfsssp weighs its paths, but only among Dmodc's own candidates. Depends on the
 * {@code dmodc} package (the engine and its routing) and the routing API.
 */
package org.fabricmanager.routing.dmodc.weighted;
