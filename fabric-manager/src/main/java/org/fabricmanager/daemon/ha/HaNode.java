package org.fabricmanager.daemon.ha;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.fabricmanager.daemon.config.Ha;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.pki.TlsMaterial;

/**
 * This daemon's member of the Raft group: the Ratis server (log and snapshots under
 * {@code <state.directory>/ha}), the submission of state writes to it, and what the member knows of the
 * group (role, term, leader, how far the state directory is applied).
 */
final class HaNode implements AutoCloseable {
    /** Every fabric-manager group has this id: the members are named by the configuration, not by the id. */
    private static final RaftGroupId GROUP = RaftGroupId.valueOf(
            UUID.nameUUIDFromBytes("fabric-manager/ha".getBytes(StandardCharsets.UTF_8)));

    /**
     * What the member knows; {@code leaderId} is {@code null} while no leader is known; {@code leaderSilentMs}
     * is how long a follower has not heard from its leader (-1 when this member is no follower);
     * {@code leaderlessCampaigns} counts the candidacies it began without having known a leader for half an
     * election timeout (since start: each one means the one before got no majority).
     */
    record View(String role, long term, String leaderId, boolean leaderReady, long appliedIndex, long commitIndex,
                long leaderSilentMs, long leaderlessCampaigns) {
        boolean leading() {
            return "LEADER".equals(role);
        }
    }

    /** Largest log entry (a state file and its header); Ratis buffers this much per member. */
    static final int ENTRY_LIMIT = StateEntry.MAX_CONTENT + 4096;

    private final String nodeId;
    private final RaftPeerId self;
    private final RaftServer server;
    /** Identifies this member's manager as the submitter of its writes (Ratis's retry cache keys on it). */
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    /** A write not committed within this long fails (a leader without a majority steps down well before). */
    private final long writeTimeoutMs;
    private final StateDirectoryMachine machine;
    /** Set by {@link #close()}: from then on a closed server is this member's own doing, not a failure. */
    private volatile boolean closed;
    private final Map<String, String> peers;
    /** Every member's Raft address, unresolved (a standby resolves its leader's when it connects to it). */
    private final Map<String, InetSocketAddress> raftAddresses;
    private final CommitStats commits = new CommitStats();
    private final LeadershipTransfers transfers = new LeadershipTransfers();
    private final RaftRefusals refusals;
    /** The group and the Raft port's transport (its TLS): a leadership transfer is asked through a client of them. */
    private final RaftGroup group;
    private final org.apache.ratis.conf.Parameters transport;

    /**
     * @param tls     the daemon's TLS material: the Raft port then runs mutual TLS with manager certificates only;
     *                {@code null} for plaintext ({@code security.insecure: true})
     * @param changed called (on Ratis threads, must not block) when role, leader or applied state may have changed
     */
    HaNode(Ha ha, Path stateDirectory, TlsMaterial tls, Runnable changed) throws IOException {
        this(ha, stateDirectory, tls, changed, new RaftRefusals());
    }

    /** As above; {@code refusals} counts and logs the peers the Raft port refuses. */
    HaNode(Ha ha, Path stateDirectory, TlsMaterial tls, Runnable changed, RaftRefusals refusals)
            throws IOException {
        this.refusals = refusals;
        this.nodeId = ha.nodeId();
        this.self = RaftPeerId.valueOf(nodeId);
        this.peers = Map.copyOf(ha.peerAddresses());
        Map<String, InetSocketAddress> raft = new HashMap<>();
        peers.forEach((id, hostPort) -> raft.put(id, parseRaftAddress(hostPort)));
        this.raftAddresses = Map.copyOf(raft);
        this.machine = new StateDirectoryMachine(stateDirectory, changed);
        List<RaftPeer> peers = new ArrayList<>();
        String own = null;
        for (Map.Entry<String, String> p : ha.peerAddresses().entrySet()) {
            peers.add(RaftPeer.newBuilder().setId(p.getKey()).setAddress(p.getValue()).build());
            if (p.getKey().equals(nodeId)) {
                own = p.getValue();
            }
        }
        this.group = RaftGroup.valueOf(GROUP, peers);
        RaftProperties props = new RaftProperties();
        int colon = own.lastIndexOf(':');
        this.transport = RaftTransport.configure(props, own.substring(0, colon),
                Integer.parseInt(own.substring(colon + 1)), tls, refusals);
        RaftServerConfigKeys.setStorageDir(props, List.of(stateDirectory.resolve("ha").toFile()));
        TimeDuration min = TimeDuration.valueOf(ha.electionTimeoutMs(), TimeUnit.MILLISECONDS);
        RaftServerConfigKeys.Rpc.setTimeoutMin(props, min);
        RaftServerConfigKeys.Rpc.setTimeoutMax(props, min.multiply(2));
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(props, min);
        RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(props, min.multiply(2));
        // A candidacy whose peers are down fails in milliseconds (their RPCs fail at once) and the member is a follower
        // again until its next election timeout: the role loop's poll rarely sees it. Ratis tells the state machine
        // of each candidacy begun after this long without a leader, i.e. from the second failed one on, so that a
        // member without a majority says it is campaigning whatever its poll happened to see.
        RaftServerConfigKeys.Notification.setNoLeaderTimeout(props, min.multiply(0.5));
        // One stream per follower for entries and heartbeats alike. With Ratis's separate heartbeat stream (its
        // default), a leader deposed by a partition, healed and following, received both streams at once and its log
        // wedged for good: "Already running a method" on every append, or INCONSISTENCY on every heartbeat while
        // the entries never came (PartitionIT, 3 runs in 8). An entry of a whole stored routing then delays heartbeats
        // behind it by the time it takes to send, well inside an election timeout.
        GrpcConfigKeys.Server.setHeartbeatChannel(props, false);
        // one entry is a whole state file, the stored routing the largest (StateEntry.MAX_CONTENT)
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(props, SizeInBytes.valueOf(ENTRY_LIMIT));
        RaftServerConfigKeys.Log.setWriteBufferSize(props, SizeInBytes.valueOf(ENTRY_LIMIT + 1024));
        RaftServerConfigKeys.Log.setSegmentSizeMax(props, SizeInBytes.valueOf(4L * ENTRY_LIMIT));
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(props, true);
        // state files are replaced whole, so a snapshot (every file once) bounds the log
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(props, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(props, ha.snapshotEvery());
        RaftServerConfigKeys.setCloseThreshold(props, TimeDuration.valueOf(ha.pauseLimitMs(), TimeUnit.MILLISECONDS));
        this.server = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(nodeId)).setGroup(group)
                .setProperties(props).setParameters(transport).setStateMachine(machine)
                .setOption(RaftStorage.StartupOption.RECOVER).build();
        this.writeTimeoutMs = Math.max(10_000L, 10L * ha.electionTimeoutMs());
    }

    /** The peers the Raft port refused. */
    RaftRefusals refusals() {
        return refusals;
    }

    void start() throws IOException {
        server.start();
    }

    String nodeId() {
        return nodeId;
    }

    /** What this member's managers committed since it started. */
    CommitStats commits() {
        return commits;
    }

    /** The leadership transfers this member asked for because of OpenSM. */
    LeadershipTransfers transfers() {
        return transfers;
    }

    /** Every member's id and Raft address, as configured. */
    Map<String, String> peers() {
        return peers;
    }

    /** Member {@code id}'s Raft address, unresolved ({@code null} for no member). */
    InetSocketAddress raftAddress(String id) {
        return raftAddresses.get(id);
    }

    /** {@code HOST:PORT} of {@code ha.peers} ({@code [v6]:PORT} too) as an unresolved address. */
    static InetSocketAddress parseRaftAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return InetSocketAddress.createUnresolved(host, Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** Completes, with the reason, once this member could not write committed state into its directory. */
    CompletableFuture<String> storageFailure() {
        return machine.storageFailure();
    }

    /** The endpoints the active manager of {@code term} committed, if {@code leaderId} did so in that term. */
    Optional<LeaderEndpoints> endpoints(String leaderId, long term) {
        return LeaderEndpoints.decode(machine.committed(LeaderEndpoints.FILE))
                .filter(e -> e.nodeId().equals(leaderId) && e.term() == term);
    }

    /** The member's role and term now. */
    View view() throws IOException {
        RaftServer.Division d = server.getDivision(GROUP);
        DivisionInfo info = d.getInfo();
        if (!info.isAlive() && !closed) {
            // Ratis closes the member's server when its applier thread dies on an error, and when the process stood
            // still longer than ha.pauseLimitMs; the member would then serve as if in the group while taking part
            // in nothing, so it stops, as on a failing disk
            machine.failed("the member's Raft server closed itself (" + info.getLifeCycleState()
                    + ") after a pause of the process longer than ha.pauseLimitMs or an internal error, logged above");
        }
        RaftPeerId leader = info.getLeaderId();
        long silent = -1;
        if (info.isFollower() && leader != null) {
            org.apache.ratis.proto.RaftProtos.RoleInfoProto r = info.getRoleInfoProto();
            silent = r.hasFollowerInfo() ? r.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs() : -1;
        }
        return new View(info.getCurrentRole().name(), info.getCurrentTerm(), leader == null ? null : leader.toString(),
                info.isLeaderReady(), info.getLastAppliedIndex(), d.getRaftLog().getLastCommittedIndex(), silent,
                machine.leaderlessCampaigns());
    }

    /**
     * Starts an election now, because {@code leaderId}, the leader of {@code term}, is known to be gone
     * ({@link LeaderWatch}): the request a leader sends the member it hands its leadership to (Raft's TimeoutNow,
     * Ratis's StartLeaderElection), made to this member's own server on the gone leader's behalf. It only spares
     * the wait for an election timeout of silence: the candidate still needs a majority's votes, and a member
     * whose log is ahead of it refuses, so Raft's safety is the same as for any election.
     *
     * @return whether this member became a candidate: false when it no longer follows {@code leaderId} in
     *         {@code term} (an election already ran, or it never did), or its log has no entry of that term yet
     */
    boolean campaign(String leaderId, long term) throws IOException {
        RaftServer.Division d = server.getDivision(GROUP);
        DivisionInfo info = d.getInfo();
        TermIndex last = d.getRaftLog().getLastEntryTermIndex();
        if (!info.isFollower() || info.getCurrentTerm() != term || info.getLeaderId() == null
                || !info.getLeaderId().toString().equals(leaderId) || last == null || last.getTerm() != term) {
            return false;
        }
        // the leader's last entry as this member holds it: the election is asked of a member no further behind
        RaftRpcRequestProto rpc = RaftRpcRequestProto.newBuilder()
                .setRequestorId(RaftPeerId.valueOf(leaderId).toByteString()).setReplyId(self.toByteString())
                .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(GROUP.toByteString())).build();
        return server.startLeaderElection(StartLeaderElectionRequestProto.newBuilder().setServerRequest(rpc)
                .setLeaderLastEntry(last.toProto()).build()).getServerReply().getSuccess();
    }

    /**
     * Asks {@code leaderId}, the leader as this member knows it, to hand its leadership over to this member: Raft's
     * leadership transfer (the leader stops taking writes, waits until this member's log has caught up, then tells it
     * to start an election at once, which the others grant as for any up-to-date candidate). Blocks until the leader
     * answers: {@code timeoutMs} at most once the leader has the request; asked once, not retried.
     *
     * @return {@code null} once the leader reports the transfer done, else why it was not
     * @throws IOException when the leader cannot be reached or refuses (not the leader any more, another transfer)
     */
    String transferLeadershipHere(String leaderId, long timeoutMs) throws IOException {
        RaftProperties props = new RaftProperties();
        RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
        // the leader's wait is timeoutMs; the client's first connection comes before it, and takes most of a transfer
        // on a loaded host (docs/performance.md, "Choices in the code, measured")
        RaftClientConfigKeys.Rpc.setRequestTimeout(props, TimeDuration.valueOf(timeoutMs + 10_000, TimeUnit.MILLISECONDS));
        RaftPeerId leader = RaftPeerId.valueOf(leaderId);
        try (RaftClient client = RaftClient.newBuilder().setProperties(props).setRaftGroup(group).setParameters(transport)
                .setLeaderId(leader).setRetryPolicy(RetryPolicies.noRetry()).build()) {
            RaftClientReply r = client.admin().transferLeadership(self, leader, timeoutMs);
            return r.isSuccess() ? null : String.valueOf(r.getException());
        }
    }

    /**
     * The stores' writes while this member leads in {@code term}: each is committed by a majority (and
     * applied here, which writes the file) before {@code write} returns; a write after this member lost
     * the lead fails, and one that reaches a later leader is dropped by every member (fenced by term).
     */
    StateFiles files(long term) {
        return (file, content) -> {
            CompletableFuture<Void> written = write(term, file.getFileName().toString(), content);
            try {
                written.get(writeTimeoutMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof StoreException se ? se
                        : new StoreException(file + ": not committed by the ha group: " + e.getCause());
            } catch (TimeoutException e) {
                throw new StoreException(file + ": not committed by the ha group within " + writeTimeoutMs
                        + " ms (no majority of " + peers.size() + " members?)");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(file + ": interrupted while the ha group committed it");
            }
        };
    }

    /**
     * Submits one state file's new content, written while this member leads {@code term}; completes once a
     * majority committed it and this member applied it, or exceptionally with a {@link StoreException}.
     */
    CompletableFuture<Void> write(long term, String name, byte[] content) {
        StateEntry entry = new StateEntry(term, name, content);
        long begin = System.nanoTime();
        // submitted to this member's own server: the manager writes only while it leads, so there is
        // no leader to find and no client connection to open (a first write used to take seconds)
        RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(clientId).setServerId(self)
                .setGroupId(GROUP).setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(entry.encode())))
                .setType(RaftClientRequest.writeRequestType()).build();
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = server.submitClientRequestAsync(request);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new StoreException(name + ": not committed by the ha group: " + e));
        }
        return reply.thenApply(r -> {
            if (!r.isSuccess()) {
                throw new StoreException(name + ": not committed by the ha group: " + r.getException());
            }
            String outcome = r.getMessage().getContent().toStringUtf8();
            if (!StateDirectoryMachine.APPLIED.equals(outcome)) {
                throw new StoreException(name + ": not written by the ha group (" + outcome + "): this manager led term "
                        + term + " and was deposed");
            }
            commits.record(entry.name(), content.length, System.nanoTime() - begin);
            return null;
        });
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
    }
}
