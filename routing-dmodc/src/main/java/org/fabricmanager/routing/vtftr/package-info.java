/**
 * VTFTR (Liu et al.): deadlock-free routing for 2-D fat trees (HDFT) with failed leaf switches.
 * Destination-based tables implement xy dimension order, yx around a failed turn leaf and one
 * mis-route through a fault-free column when both turn leaves failed; one extra virtual channel,
 * taken at the column-to-row turn, keeps the channel dependency graph acyclic.
 */
package org.fabricmanager.routing.vtftr;
