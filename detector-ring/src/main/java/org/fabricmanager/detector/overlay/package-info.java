/**
 * Broadcast overlays over the live members of a ring: the hypercube with node-disjoint spanning trees
 * (Ramanathan and Shin) and the binomial graph (Angskun, Bosilca and Dongarra). An overlay is a pure
 * function of (ring size, source, the source's dead set): every forwarder recomputes the same
 * topology from the copy it received.
 */
package org.fabricmanager.detector.overlay;
