/**
 * The UDP transport for real processes: a datagram codec with strict validation and a
 * {@link org.fabricmanager.detector.RingDetector} that runs one
 * {@link org.fabricmanager.detector.RingMember} on one Netty event loop.
 */
package org.fabricmanager.detector.netty;
