/**
 * Routing engines (Dmodc, Dmodk, MinHop, Up/Down) that turn an immutable fabric snapshot into
 * forwarding tables, and the analyses that judge tables: path traces, deadlock (channel
 * dependency) checks and congestion under traffic patterns. Knows nothing of sockets.
 */
package org.fabricmanager.routing;
