/**
 * Analyses that judge forwarding tables against the fabric they were computed for, shared by the
 * daemon and the CLI: path traces between two nodes, the deadlock check on the channel dependency
 * graph of all routes, and congestion risk (routes per directed link) under shift, random and
 * all-to-all traffic. Every analysis works on a {@link org.fabricmanager.routing.analysis.RoutedFabric}
 * (an indexed fabric bound to tables of the same switches) and scales to tens of thousands of nodes
 * by working per destination with primitive arrays.
 */
package org.fabricmanager.routing.analysis;
