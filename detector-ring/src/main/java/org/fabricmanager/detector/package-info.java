/**
 * Ring-heartbeat failure detector (Bosilca et al., SC'16) with reliable broadcast, independent of
 * any transport or clock. Members 0..n-1 form a ring in the order the caller gives; each member
 * heartbeats its observer, suspects a silent emitter, reconnects the ring and broadcasts what it
 * learned over a hypercube or binomial-graph overlay. {@link org.fabricmanager.detector.RingMember}
 * is the state machine; {@link org.fabricmanager.detector.RingTransport} is what it needs from the
 * outside (send, timers, clock), implemented by the simulator and by the Netty transport.
 * Events reach the embedding code through {@link org.fabricmanager.detector.DetectorListener}.
 */
package org.fabricmanager.detector;
