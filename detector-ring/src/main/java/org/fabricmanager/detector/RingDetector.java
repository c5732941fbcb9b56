package org.fabricmanager.detector;

import java.net.InetSocketAddress;

/**
 * A running ring member as the daemon and the switch agents use it: report this member's own link
 * faults and recoveries, read its view, and stop it. Events arrive through the
 * {@link DetectorListener} given when it was started. Implemented by
 * {@code NettyRingDetector} in the {@code netty} package.
 */
public interface RingDetector extends AutoCloseable {

    /** This member's ring index. */
    int self();

    /** Broadcasts that this member's port {@code port} went down (sent once the member is running). */
    void reportLinkDown(int port);

    /** Broadcasts that this member's port {@code port} came back up. */
    void reportLinkUp(int port);

    /**
     * Ends the member's start-up grace ({@link RingParameters#startupGrace()}) because every other member
     * is known to run; see {@link RingMember#endStartupGrace()}.
     */
    void endStartupGrace();

    /**
     * The address of member {@code member} (from an {@link AddressResolver}'s answer or an update of the
     * ring): datagrams waiting for it are sent. Ignored for this member itself.
     */
    void learn(int member, InetSocketAddress address);

    /** A consistent copy of the member's current state. */
    MembershipSnapshot snapshot();

    /** Stops the member and releases its socket and threads; idempotent. */
    @Override
    void close();
}
