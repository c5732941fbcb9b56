/**
 * The routing API: what every engine implements ({@link org.fabricmanager.routing.RoutingEngine}) and
 * produces (forwarding tables, virtual-channel rules, validity, phase timings), the worker pool the
 * engines run on, and the {@code lft-text/1} format. The engines (Dmodc and Dmodk in
 * {@code dmodc}, MinHop and Up/Down in {@code baseline}, VTFTR in {@code vtftr}), the analyses that
 * judge tables ({@code analysis}) and the registry that creates engines by name ({@code engines})
 * are sub-packages that depend on this one; this package depends on none of them (a test checks it).
 * Knows nothing of sockets.
 */
package org.fabricmanager.routing;
