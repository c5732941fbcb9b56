/**
 * The routing service: runs the configured engine on its own thread pool, off the control thread,
 * and hands each result back as a future; plus the route tracing REST uses.
 */
package org.fabricmanager.daemon.routing;
