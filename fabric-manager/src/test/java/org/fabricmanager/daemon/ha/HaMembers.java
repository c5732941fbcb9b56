package org.fabricmanager.daemon.ha;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fabricmanager.daemon.config.Ha;
import org.fabricmanager.pki.TlsMaterial;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** A Raft group of this JVM for the ha tests: members n1, n2, ... on free loopback ports, state under {@code dir/nI}. */
final class HaMembers {
    private HaMembers() {
    }

    /**
     * Starts one member per entry of {@code materials} (its TLS material, {@code null} for plaintext), each added to
     * {@code into} as soon as it exists, so that the caller closes whatever started.
     */
    static void start(Path dir, int electionMs, List<HaNode> into, TlsMaterial... materials) throws Exception {
        List<String> peers = peers(materials.length);
        for (int i = 0; i < materials.length; i++) {
            HaNode n = member(dir, electionMs, peers, i + 1, materials[i]);
            into.add(n);
            n.start();
        }
    }

    /** {@code ha.peers} of {@code count} members n1, n2, ... on free loopback ports. */
    static List<String> peers(int count) throws Exception {
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try (ServerSocket s = new ServerSocket(0)) {
                peers.add("n" + (i + 1) + "=127.0.0.1:" + s.getLocalPort());
            }
        }
        return peers;
    }

    /**
     * Closes every member (or manager) at once, as a test's cleanup: each close waits for its Raft server's threads
     * and gRPC channels to end, which one after another took most of a short test. The first failure is thrown.
     */
    static void closeAll(List<? extends AutoCloseable> members) throws Exception {
        List<Thread> closing = new ArrayList<>();
        List<Exception> failed = new CopyOnWriteArrayList<>();
        for (AutoCloseable m : members) {
            Thread t = new Thread(() -> {
                try {
                    m.close();
                } catch (Exception e) {
                    failed.add(e);
                }
            }, "close-" + m);
            t.start();
            closing.add(t);
        }
        for (Thread t : closing) {
            t.join();
        }
        if (!failed.isEmpty()) {
            throw failed.get(0);
        }
    }

    /**
     * A test's members, closed together after each test ({@link #closeAll}) when registered as its extension
     * ({@code @RegisterExtension}), before its {@code @TempDir} goes.
     */
    static final class Nodes extends ArrayList<HaNode> implements AfterEachCallback {
        @Override
        public void afterEach(ExtensionContext context) throws Exception {
            closeAll(this);
        }
    }

    /** Member n{@code i} of {@code peers}, not started ({@code material} {@code null}: plaintext). */
    static HaNode member(Path dir, int electionMs, List<String> peers, int i, TlsMaterial material) throws Exception {
        return member(dir, electionMs, peers, i, material, 1_000);
    }

    /** As above, with a snapshot every {@code snapshotEvery} committed writes ({@code ha.snapshotEvery}). */
    static HaNode member(Path dir, int electionMs, List<String> peers, int i, TlsMaterial material, int snapshotEvery)
            throws Exception {
        Ha ha = new Ha(true, "n" + i, peers, electionMs, snapshotEvery, 60_000);
        return new HaNode(ha, Files.createDirectories(dir.resolve("n" + i)), material, () -> { });
    }
}
