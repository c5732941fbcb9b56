package org.fabricmanager.agent;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.DetectorConfig;
import org.fabricmanager.southbound.Message.ErrorReport;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.ProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's side of the failure detector's configuration: whether and where the switch runs a ring member
 * (its listener and UDP port), what HELLO announces about it, and the detector's messages of a session:
 * DETECTOR_CONFIG chunks assembled into a ring, a DETECTOR_WINDOW, the members' addresses asked for with
 * DETECTOR_LOOKUP and answered with DETECTOR_PEERS. A ring is handed to the listener, and acknowledged once
 * its member runs. Messages arrive on the agent's event loop; the settings may be changed from any thread.
 */
final class DetectorLink {
    // the agent's logger, as before the split: operators' log settings name SwitchAgent
    private static final Logger LOG = LoggerFactory.getLogger(SwitchAgent.class);

    private final SwitchAgent agent;
    private final AgentState state;
    private final DetectorConfigAssembler assembler = new DetectorConfigAssembler();
    private volatile RingAssignment ring;
    private volatile DetectorConfigListener listener;
    private volatile int port;
    /** Whether the agent announces {@link Protocol#FEATURE_DETECTOR_WINDOW} (with a detector). */
    private volatile boolean windowForm = true;

    DetectorLink(SwitchAgent agent, AgentState state) {
        this.agent = agent;
        this.state = state;
    }

    RingAssignment ring() {
        return ring;
    }

    void listener(DetectorConfigListener l) {
        listener = l;
    }

    void windowForm(boolean on) {
        windowForm = on;
    }

    void port(int udpPort) {
        if (udpPort < 0 || udpPort > 65535) {
            throw new IllegalArgumentException("port " + udpPort);
        }
        port = udpPort;
    }

    /** The HELLO feature bits of the detector: none without a listener and a port. */
    int helloFeatures(int maxFrameBytes) {
        return windowForm && listener != null && port != 0 ? Protocol.FEATURE_DETECTOR_WINDOW
                // slots dead at start come appended to the window: only an agent whose frames can hold them
                | (maxFrameBytes >= Protocol.MIN_MAX_FRAME_DEAD_AT_START ? Protocol.FEATURE_DETECTOR_SLOTS : 0) : 0;
    }

    /** A new session starts: a configuration cut in the middle by the last one is sent anew. */
    void sessionStarted() {
        assembler.reset();
    }

    /** After PORT_INFO: the address the session comes from and the member's UDP port, when there is a member. */
    void announceEndpoint(ChannelHandlerContext ctx) {
        int udp = port;
        if (udp != 0 && listener != null && ctx.channel().localAddress() instanceof InetSocketAddress local) {
            ctx.writeAndFlush(new Message.DetectorEndpoint(state.takeTxid(), local.getAddress(), udp));
        }
    }

    /** Sends DETECTOR_LOOKUP for {@code members} of ring {@code epoch}, in as many messages as the limit asks. */
    void lookup(Channel channel, long epoch, int[] members) {
        for (int from = 0; from < members.length; from += Protocol.MAX_LOOKUP_MEMBERS) {
            int[] part = Arrays.copyOfRange(members, from, Math.min(members.length, from + Protocol.MAX_LOOKUP_MEMBERS));
            channel.write(new Message.DetectorLookup(state.takeTxid(), epoch, part));
        }
        channel.flush();
    }

    /** One DETECTOR_CONFIG chunk: acknowledged at once unless it completes the ring, which starts the member. */
    void config(ChannelHandlerContext ctx, DetectorConfig config) {
        DetectorConfigListener l = listener;
        if (l == null) {
            refuse(ctx, config.txid(), MessageType.DETECTOR_CONFIG);
            return;
        }
        Optional<RingAssignment> complete = assembler.add(config);
        if (complete.isEmpty()) {
            ctx.writeAndFlush(new Message.Ack(config.txid(), MessageType.DETECTOR_CONFIG));
            return;
        }
        // the last chunk's ACK tells the daemon this member runs: it ends the daemon's start-up grace
        run(ctx, l, complete.get(), config.txid(), MessageType.DETECTOR_CONFIG);
    }

    /** A DETECTOR_WINDOW: the ring as this member's window, acknowledged once the member runs. */
    void window(ChannelHandlerContext ctx, Message.DetectorWindow window) {
        DetectorConfigListener l = listener;
        if (l == null) {
            refuse(ctx, window.txid(), MessageType.DETECTOR_WINDOW);
            return;
        }
        // the ACK tells the daemon this member runs: it ends the daemon's start-up grace
        run(ctx, l, RingAssignment.of(window), window.txid(), MessageType.DETECTOR_WINDOW);
    }

    /** Addresses of ring members: only those of the ring this agent runs count; others are stale. */
    void peers(Message.DetectorPeers peers) {
        RingAssignment current = ring;
        DetectorConfigListener l = listener;
        if (current == null || l == null || current.epoch() != peers.epoch()) {
            LOG.debug("{}: ignoring {} (ring epoch {})", agent, peers, current == null ? 0 : current.epoch());
            return;
        }
        for (Message.DetectorPeer p : peers.members()) {
            if (p.index() >= current.memberCount()) {
                throw new ProtocolException(ErrorCode.MALFORMED, MessageType.DETECTOR_PEERS.code(), peers.txid(),
                        "DETECTOR_PEERS: member " + p.index() + " outside the ring of " + current.memberCount());
            }
        }
        l.peers(agent, peers.epoch(), peers.members());
    }

    private static void refuse(ChannelHandlerContext ctx, int txid, MessageType type) {
        ctx.writeAndFlush(new ErrorReport(txid, ErrorCode.UNSUPPORTED_FEATURE.code(), type.code(),
                "this agent has no failure detector"));
    }

    /** Hands {@code assigned} to {@code l} and answers {@code txid} once its member runs, or failed to start. */
    private void run(ChannelHandlerContext ctx, DetectorConfigListener l, RingAssignment assigned, int txid,
                     MessageType type) {
        ring = assigned;
        CompletionStage<Void> running;
        try {
            running = l.configured(agent, assigned);
        } catch (RuntimeException e) {
            // a ring this agent cannot run (two members at one address...) costs its detector, not its session
            running = CompletableFuture.failedFuture(e);
        }
        running.whenComplete((ok, failure) -> {
            if (failure == null) {
                ctx.writeAndFlush(new Message.Ack(txid, type));
            } else {
                ctx.writeAndFlush(new ErrorReport(txid, ErrorCode.DETECTOR_UNAVAILABLE.code(), type.code(),
                        "failure detector did not start: " + failure.getMessage()));
            }
        });
    }
}
