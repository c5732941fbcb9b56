package org.fabricmanager.daemon.ha;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.fabricmanager.daemon.store.AtomicFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated state: the daemon's state files (the index map, the admitted switches, the stored
 * routing with its version and fingerprint, in the stores' own formats) and where the active manager
 * serves ({@link LeaderEndpoints}). Applying a committed entry
 * writes the file atomically into this member's state directory, so that whichever member becomes
 * leader starts its manager from exactly the committed state, as a restarted daemon would. A snapshot
 * is every file's content in one file; it lets Ratis drop the log and bring a replaced member up to date.
 */
final class StateDirectoryMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(StateDirectoryMachine.class);
    /** Replies of an applied entry. */
    static final String APPLIED = "applied";
    /** Reply of an entry from a deposed leader (its term is not the term it was appended in). */
    static final String FENCED = "fenced";

    private final Path stateDirectory;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    /** The committed content of each state file (applier thread, and the snapshot taken on it). */
    private final Map<String, byte[]> files = new TreeMap<>();
    /** Told of every change of leader, readiness or applied index (Ratis threads; must not block). */
    private final Runnable changed;
    /** Candidacies this member began after knowing no leader for a while ({@link #notifyExtendedNoLeader}). */
    private final AtomicLong leaderlessCampaigns = new AtomicLong();
    /**
     * Completed, with the reason, when this member could not write a committed entry into its state directory
     * (a full or failing disk): from then on it applies nothing, and the member must stop ({@link HaManager}).
     */
    private final CompletableFuture<String> storageFailure = new CompletableFuture<>();

    /** @param changed called when the member's role, leader or applied state may have changed (must not block) */
    StateDirectoryMachine(Path stateDirectory, Runnable changed) {
        this.stateDirectory = stateDirectory;
        this.changed = changed;
    }

    // The role watcher (HaManager) polls; these make it act at once on what a takeover waits for (a new
    // leader, its first entry of the term committed, the last committed entry applied), not at its next poll.
    @Override
    public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeaderId) {
        changed.run();
    }

    @Override
    public void notifyLeaderReady() {
        changed.run();
    }

    /**
     * Ratis tells this as the member becomes a candidate again after knowing no leader for longer than
     * {@code raft.server.notification.no-leader.timeout} ({@link HaNode} sets half an election timeout): its last
     * candidacy got no majority. Such a candidacy fails within milliseconds when the peers are down, far less than
     * the role loop's poll, so the role loop learns of it from this count and not from the role it happens to see.
     */
    @Override
    public void notifyExtendedNoLeader(RoleInfoProto roleInfo) {
        leaderlessCampaigns.incrementAndGet();
        changed.run();
    }

    /** Candidacies begun since start after no leader was known for a while (each told by Ratis as it began). */
    long leaderlessCampaigns() {
        return leaderlessCampaigns.get();
    }

    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        super.notifyTermIndexUpdated(term, index);
        changed.run();
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        getLifeCycle().startAndTransition(() -> loadSnapshot(storage.getLatestSnapshot()), IOException.class);
    }

    /**
     * Ratis pauses the machine before it installs a snapshot the leader sent (this member was behind the log the
     * others kept) and reloads it after, which it refuses unless the machine says it is paused: its applier thread
     * then dies and the member's server closes itself.
     */
    @Override
    public void pause() {
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
    }

    @Override
    public void reinitialize() throws IOException {
        // the snapshot installed from the leader
        SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
        getLifeCycle().startAndTransition(() -> loadSnapshot(snapshot), IOException.class);
        if (snapshot != null) {
            int count;
            synchronized (this) {
                count = files.size();
            }
            LOG.info("ha: this member was behind the log the others kept and loaded the leader's snapshot (term {},"
                    + " index {}): {} state files", snapshot.getTerm(), snapshot.getIndex(), count);
        }
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public synchronized CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        TermIndex at = TermIndex.valueOf(entry);
        if (storageFailure.isDone()) {
            return CompletableFuture.failedFuture(new IOException("not applied: " + storageFailure.join()));
        }
        StateEntry e;
        try {
            e = StateEntry.decode(new DataInputStream(new ByteArrayInputStream(
                    entry.getStateMachineLogEntry().getLogData().toByteArray())));
        } catch (IOException ex) {
            // every member sees the same entry and fails the same way; the state stays as it was
            LOG.error("ha: entry {} not applied: {}", at, ex.toString());
            return applied(at, "failed: " + ex.getMessage());
        }
        if (e.term() != at.getTerm()) {
            // submitted by a leader of term e.term() but appended by the leader of a later term: the
            // submitter was deposed meanwhile and its view may be stale, so the write is dropped
            LOG.warn("ha: dropping {} written by the leader of term {} (committed in term {})", e.name(), e.term(),
                    at.getTerm());
            return applied(at, FENCED);
        }
        try {
            write(e.name(), e.content());
        } catch (IOException ex) {
            // This member's disk, not the entry: the others wrote it. Counting it applied would leave this state
            // directory behind the committed state for good, and a manager started here would run on it; so the
            // member applies nothing more and stops, and is brought up to date from the log when restarted.
            String why = "cannot write committed state file " + e.name() + " (entry " + at + ") into " + stateDirectory
                    + ": " + ex.getMessage();
            LOG.error("ha: {}; this member stops", why);
            storageFailure.complete(why);
            changed.run();
            return CompletableFuture.failedFuture(ex);
        }
        return applied(at, APPLIED);
    }

    private CompletableFuture<Message> applied(TermIndex at, String reply) {
        updateLastAppliedTermIndex(at);
        changed.run();
        return CompletableFuture.completedFuture(Message.valueOf(reply));
    }

    /** Makes this member stop for {@code why} (see {@link #storageFailure}), unless a reason was given already. */
    void failed(String why) {
        if (storageFailure.complete(why)) {
            LOG.error("ha: {}; this member stops", why);
            changed.run();
        }
    }

    /** Completes, with the reason, once a committed entry could not be written here (see the field). */
    CompletableFuture<String> storageFailure() {
        return storageFailure;
    }

    @Override
    public synchronized long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() < 0) {
            return -1;
        }
        File target = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        MD5Hash md5 = writeSnapshot(target);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(target.toPath(), md5), last));
        return last.getIndex();
    }

    /**
     * Writes every committed file into {@code target}, then its MD5 file. Any failure stops the member: a disk that
     * cannot hold the snapshot cannot hold the next committed state file either, and Ratis's applier thread dies on
     * anything but an IOException from a snapshot (the MD5 file's write throws an IllegalStateException), after which
     * this member would lead with nothing applied, silently.
     */
    synchronized MD5Hash writeSnapshot(File target) throws IOException {
        Path tmp = target.toPath().resolveSibling(target.getName() + ".tmp");
        try {
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16))) {
                out.writeInt(files.size());
                for (Map.Entry<String, byte[]> f : files.entrySet()) {
                    out.writeUTF(f.getKey());
                    out.writeInt(f.getValue().length);
                    out.write(f.getValue());
                }
            }
            Files.move(tmp, target.toPath(), StandardCopyOption.ATOMIC_MOVE);
            return MD5FileUtil.computeAndSaveMd5ForFile(target);
        } catch (IOException | RuntimeException e) {
            String why = "cannot write committed state snapshot " + target + ": " + e.getMessage();
            failed(why);
            throw e instanceof IOException io ? io : new IOException(why, e);
        }
    }

    private synchronized void loadSnapshot(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        Path file = snapshot.getFile().getPath();
        MD5FileUtil.verifySavedMD5(file.toFile(), MD5FileUtil.readStoredMd5ForFile(file.toFile()));
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            int n = in.readInt();
            if (n < 0 || n > StateEntry.FILES.size()) {
                throw new IOException(file + ": " + n + " state files");
            }
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                int length = in.readInt();
                if (!StateEntry.FILES.contains(name) || length < 0 || length > StateEntry.MAX_CONTENT) {
                    throw new IOException(file + ": damaged entry " + name);
                }
                byte[] content = new byte[length];
                in.readFully(content);
                write(name, content);
            }
        }
        setLastAppliedTermIndex(snapshot.getTermIndex());
    }

    /** The committed content of a replicated file, {@code null} before its first write. */
    synchronized byte[] committed(String name) {
        return files.get(name);
    }

    private void write(String name, byte[] content) throws IOException {
        AtomicFiles.write(stateDirectory.resolve(name), out -> out.write(content));
        files.put(name, content);
    }
}
