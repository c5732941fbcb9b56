/**
 * Routing in the daemon: {@link org.fabricmanager.daemon.routing.RoutingManager} decides whether a fabric
 * snapshot needs nothing, the stored routing, or a computation, numbers the versions and persists them;
 * {@link org.fabricmanager.daemon.routing.RoutingService} runs the configured engine on its own threads, off the
 * control thread, and hands each result back as a future.
 */
package org.fabricmanager.daemon.routing;
