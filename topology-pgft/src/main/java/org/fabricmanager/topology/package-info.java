/**
 * The fabric model: immutable snapshots of switches, end nodes and links, the indexed view that
 * algorithms use, the PGFT notation and its canonical generator, degradation, the
 * {@code fabric-topology/1} and {@code ibnetdiscover} formats, and recognition of fat-tree shapes.
 * Knows nothing of networks or threads.
 */
package org.fabricmanager.topology;
