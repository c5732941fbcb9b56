/**
 * The routing service: runs the configured engine on its own thread pool, off the control thread,
 * and hands each result back as a future.
 */
package org.fabricmanager.daemon.routing;
