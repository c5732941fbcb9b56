/**
 * The messages members exchange: heartbeats, NewObserver, Join, state synchronisation and broadcast
 * copies. They are plain immutable values; the simulator passes them as objects and the Netty
 * transport encodes them into datagrams.
 */
package org.fabricmanager.detector.message;
