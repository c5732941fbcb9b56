package org.fabricmanager.daemon.ha;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.config.Ha;
import org.fabricmanager.pki.TlsMaterial;

/** A Raft group of this JVM for the ha tests: members n1, n2, ... on free loopback ports, state under {@code dir/nI}. */
final class HaMembers {
    private HaMembers() {
    }

    /**
     * Starts one member per entry of {@code materials} (its TLS material, {@code null} for plaintext), each added to
     * {@code into} as soon as it exists, so that the caller closes whatever started.
     */
    static void start(Path dir, int electionMs, List<HaNode> into, TlsMaterial... materials) throws Exception {
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < materials.length; i++) {
            try (ServerSocket s = new ServerSocket(0)) {
                peers.add("n" + (i + 1) + "=127.0.0.1:" + s.getLocalPort());
            }
        }
        for (int i = 0; i < materials.length; i++) {
            Ha ha = new Ha(true, "n" + (i + 1), peers, electionMs, 1_000);
            HaNode n = new HaNode(ha, Files.createDirectories(dir.resolve("n" + (i + 1))), materials[i], () -> { });
            into.add(n);
            n.start();
        }
    }
}
