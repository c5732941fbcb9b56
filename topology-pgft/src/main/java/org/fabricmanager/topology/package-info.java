/**
 * The fabric model: immutable snapshots of switches, end nodes and links, the indexed view that
 * algorithms use, the PGFT and 2-D fat-tree (HDFT) notations and their canonical generators, the
 * row and column layout of 2-D fat trees, degradation and leaf failures, the
 * {@code fabric-topology/1} and {@code ibnetdiscover} formats, and recognition of both shapes.
 * Knows nothing of networks or threads.
 */
package org.fabricmanager.topology;
