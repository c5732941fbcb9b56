package org.fabricmanager.detector.sim;

import org.fabricmanager.detector.overlay.Overlay;

/**
 * What a {@link FailureExperiment} measured; times are virtual milliseconds after the failures.
 *
 * @param failedMembers          the members that crashed, ascending
 * @param detectionMs            until the first live member suspected a failed one
 * @param knowledgeMs            until every live member knew every failure (NaN if never)
 * @param stabilisationMs        until the last change of any live member's view, emitter or observer
 * @param deltaMs                δ, to express times in units of δ
 * @param boundMs                T(f) = f(f+1)δ + fτ + f(f+1)/2·B(n) with B(n) = 8τ·log2 n
 * @param agreed                 every live member running, with D equal to the failed set, the right
 *                               emitter and observer and identical views
 * @param falseSuspicions        suspected members later heard from
 * @param wrongFailures          failure events about members that did not fail, over all listeners
 * @param duplicateEvents        events a listener received twice (must be 0)
 * @param broadcasts             broadcasts originated
 * @param messagesPerBroadcast   broadcast copies sent per broadcast originated
 * @param messagesPerMember      messages of all kinds sent per live member until stabilisation
 * @param repairMessagesPerMember the same without heartbeats
 * @param counts                 messages sent from the failures until stabilisation, by type
 */
public record ExperimentResult(int members, int failed, Overlay overlay, boolean consecutive, long seed,
                               int[] failedMembers, double detectionMs, double knowledgeMs, double stabilisationMs,
                               double deltaMs, double boundMs, boolean agreed, long falseSuspicions,
                               long wrongFailures, long duplicateEvents, long broadcasts, double messagesPerBroadcast,
                               double messagesPerMember, double repairMessagesPerMember, MessageCounts counts) {

    /** Stabilisation time in units of δ. */
    public double stabilisationDeltas() {
        return stabilisationMs / deltaMs;
    }

    /** The paper's bound in units of δ. */
    public double boundDeltas() {
        return boundMs / deltaMs;
    }
}
