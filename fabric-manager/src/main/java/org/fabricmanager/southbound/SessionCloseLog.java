package org.fabricmanager.southbound;

import io.netty.channel.Channel;
import java.net.SocketAddress;
import org.fabricmanager.southbound.AgentSession.State;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one session's refusals and ends are logged. A peer that never said who it is (a scan, a flood, a client
 * without a certificate) is counted once per connection by {@link SouthboundRejections}, which logs a rate-limited
 * summary, and gets a debug line: one WARN per connection would let it fill the log (issue 12). An identified
 * switch's session that ends on an error is a WARN; ends the daemon decided itself (it stops, a restarted agent
 * took over) are logged where it decided them, so here at debug only.
 */
final class SessionCloseLog {
    /** The session's lines keep the logger operators configure for sessions. */
    private static final Logger LOG = LoggerFactory.getLogger(AgentSession.class);

    private final SouthboundRejections rejections;
    /** This connection was counted as a refused peer already. */
    private boolean rejected;

    SessionCloseLog(SouthboundRejections rejections) {
        this.rejections = rejections;
    }

    /** Counts a refused peer (logged rate-limited by {@link SouthboundRejections}), once per connection. */
    void refused(Channel channel, SocketAddress peer, Rejection reason, String detail) {
        rejected = true;
        if (channel != null) {
            rejections.record(channel, reason, detail);
        } else {
            rejections.record(reason, peer, detail);
        }
    }

    /** The daemon closes {@code session} in {@code state} with an ERROR {@code code}: {@code reason}. */
    void closing(AgentSession session, Channel channel, ErrorCode code, State state, String reason) {
        if (code == ErrorCode.SHUTTING_DOWN || code == ErrorCode.SUPERSEDED) {
            // the daemon's own doing, logged where it decided it (a takeover is a milestone)
            LOG.debug("{}: closed: {}", session, reason);
        } else if (state == State.AWAIT_HELLO) {
            if (!rejected) {
                refused(channel, session.remoteAddress(),
                        code == ErrorCode.HANDSHAKE_TIMEOUT ? Rejection.TIMEOUT : Rejection.PROTOCOL, reason);
            }
            LOG.debug("{}: closed: {}", session, reason);
        } else {
            LOG.warn("{}: closed: {}", session, reason);
        }
    }

    /** The agent of {@code session} in {@code state} sent a fatal {@code error}: the session closes. */
    void agentClosed(AgentSession session, Channel channel, ErrorReport error, State state, String reason) {
        if (state == State.AWAIT_HELLO) {
            refused(channel, session.remoteAddress(), Rejection.PROTOCOL, reason); // unidentified: counted, rate-limited
            LOG.debug("{}: closed: agent sent {}", session, error);
        } else {
            LOG.warn("{}: closed: agent sent {}", session, error);
        }
    }
}
