/**
 * Routing engines (Dmodc, Dmodk, MinHop, Up/Down, VTFTR) that turn an immutable fabric snapshot into
 * forwarding tables, with virtual-channel rules for engines that need them, and the analyses that
 * judge tables: path traces, deadlock (channel dependency) checks and congestion under traffic
 * patterns. Knows nothing of sockets.
 */
package org.fabricmanager.routing;
