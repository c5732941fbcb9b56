package org.fabricmanager.daemon.push;

/**
 * One switch's push state as REST shows it.
 *
 * @param heldVersion the version the switch holds as far as the daemon knows (0: none)
 * @param inSync      its held table is the current version's, confirmed by an ACK (or by its HELLO)
 * @param inFlight    a batch is waiting for its ACK
 * @param retries     retries since the switch connected
 * @param lastError   the last push failure, or {@code null}
 * @param confirmedAt when the switch last acknowledged a batch (for OpenSM's switches: OpenSM reported it set), or
 *                    {@code null} in this session not yet
 */
public record SwitchPushState(long heldVersion, long heldHash, boolean known, boolean inSync, boolean inFlight,
                              long retries, String lastError, Long confirmedAt) {
}
