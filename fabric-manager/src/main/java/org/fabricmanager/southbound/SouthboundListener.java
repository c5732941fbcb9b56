package org.fabricmanager.southbound;

import org.fabricmanager.southbound.Message.Hello;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;

/**
 * What the daemon learns from its agent sessions. Called on Netty I/O threads, in order per session;
 * implementations hand the call to the daemon's control thread and return at once.
 */
public interface SouthboundListener {

    /**
     * Whether switch {@code guid} is managed by an agent of its own (connected now, or earlier in this daemon's run,
     * and not released to OpenSM by an operator): a subnet that OpenSM's plug-in reports must not speak for it. Any
     * thread.
     */
    default boolean heldByAgent(long guid) {
        return false;
    }

    /**
     * A session sent a valid HELLO with a common protocol version. The listener must answer with
     * {@link SwitchSession#acceptHello(long)} or {@link SwitchSession#reject(ErrorCode, Message, String)}.
     */
    void helloReceived(SwitchSession session, Hello hello);

    /**
     * A session sent a full port snapshot (first one: end of its handshake). The listener must answer
     * with {@link SwitchSession#acknowledge(int, MessageType)} or reject the session.
     */
    void portInfoReceived(SwitchSession session, PortInfo info);

    /** A session reported port changes (already acknowledged). */
    void portStatusReceived(SwitchSession session, PortStatus status);

    /**
     * What the session's switch holds must be confirmed again ({@code why}: its manager, OpenSM, was lost meanwhile):
     * the daemon pushes its table whole and counts it pending until acknowledged. Any thread.
     */
    default void tablesUnconfirmed(SwitchSession session, String why) {
    }

    /**
     * OpenSM's subnet gives every end port 2^{@code lmc} LIDs (its {@code lmc}; before the switches' reports of that
     * subnet): each is routed as a destination of its own. Agents have no LMC. Any thread.
     */
    default void lmcReported(int lmc) {
    }

    /** A session closed, for any reason; {@code reason} says why. Called exactly once per session. */
    void sessionClosed(SwitchSession session, String reason);

    /** The agent said where its failure-detector member listens (after its PORT_INFO; an I/O thread). */
    default void detectorEndpointReceived(SwitchSession session, Message.DetectorEndpoint endpoint) {
    }

    /** The agent asks for ring members' addresses (DETECTOR_LOOKUP); answered with {@link SwitchSession#sendDetectorPeers}. */
    default void detectorLookupReceived(SwitchSession session, Message.DetectorLookup lookup) {
    }
}
