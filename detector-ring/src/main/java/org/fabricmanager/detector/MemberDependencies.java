package org.fabricmanager.detector;

/**
 * What a {@link RingMember} is given from outside, grouped so that its constructor stays short: the transport
 * (clock, timers, datagrams), the listener that receives its events, the meters it updates and, for a member that
 * shares its process with other members, the lateness of that process. The member checks the first three are there;
 * {@code process} may be null (the member is alone in its process, or does not share its lateness).
 *
 * @param transport clock, timers and messages
 * @param listener  receives every event exactly once, on the member's thread
 * @param metrics   meters to update (may be shared between members)
 * @param process   the late timers of all members of this process (used with Lifeguard on), or null
 */
public record MemberDependencies(RingTransport transport, DetectorListener listener, DetectorMetrics metrics,
                                 ProcessHealth process) {
}
