/**
 * Fault reaction: the daemon's own failure-detector member and the ring it configures in the agents,
 * link fault bookkeeping with flap quarantine, and the figures of each reaction.
 */
package org.fabricmanager.daemon.faults;
