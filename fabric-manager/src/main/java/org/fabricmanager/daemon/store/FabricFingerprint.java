package org.fabricmanager.daemon.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;

/**
 * A SHA-256 fingerprint of everything routing depends on: the engine, every switch with its port
 * count and what each port leads to (a switch's GUID and port, or a node's GUID), and every node with
 * its destination index. Names, the order of the lists and the direction links are written in do not
 * count, nor do cables between two nodes (no route uses them). Two fabrics with the same fingerprint
 * get the same tables, which is what lets the daemon reuse stored routing after a restart (OpenSM
 * memo, section 7).
 *
 * <p>It is read off the fabric's {@link FabricIndex} (switches sorted by GUID, ports in order, nodes by
 * destination index), which routing builds anyway: at 5,120 switches and 200,000 links this costs a
 * fraction of sorting every link as an object in every re-route (docs/performance.md, "Choices in the code,
 * measured"). Version 2
 * of the fingerprint; a routing state stored with version 1 does not match it and is recomputed once.
 */
public final class FabricFingerprint {
    private static final int NONE = FabricIndex.NONE;

    private FabricFingerprint() {
    }

    /** The fingerprint as 64 lower-case hex digits. */
    public static String of(Fabric fabric, String engine) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        sha.update(("fabric-fingerprint/2 engine=" + engine + "\n").getBytes(StandardCharsets.UTF_8));
        FabricIndex index = fabric.index();
        ByteBuffer buf = ByteBuffer.allocate(1 << 16);
        int switches = index.switchCount();
        buf.put((byte) 'S').putInt(switches);
        for (int s = 0; s < switches; s++) {
            int ports = index.switchPorts(s);
            int[] peerSwitch = index.peerSwitches(s);
            int[] peerPort = index.peerPorts(s);
            int[] peerNode = index.peerNodes(s);
            buf = room(sha, buf, 12);
            buf.putLong(index.switchGuid(s)).putInt(ports);
            for (int p = 1; p <= ports; p++) {
                buf = room(sha, buf, 6);
                // peers by their position in the lists hashed here (switches by GUID, nodes by index)
                if (peerSwitch[p] != NONE) {
                    buf.put((byte) 's').putInt(peerSwitch[p]).put((byte) peerPort[p]);
                } else if (peerNode[p] != NONE) {
                    buf.put((byte) 'n').putInt(peerNode[p]);
                } else {
                    buf.put((byte) '-');
                }
            }
        }
        int nodes = index.nodeCount();
        buf = room(sha, buf, 5);
        buf.put((byte) 'N').putInt(nodes);
        for (int i = 0; i < nodes; i++) {
            buf = room(sha, buf, 12);
            buf.putLong(index.nodeGuid(i)).putInt(index.nodeIndex(i));
        }
        buf.flip();
        sha.update(buf);
        return HexFormat.of().formatHex(sha.digest());
    }

    /** {@code buf} with at least {@code bytes} free, digesting what it holds when it is full. */
    private static ByteBuffer room(MessageDigest sha, ByteBuffer buf, int bytes) {
        if (buf.remaining() < bytes) {
            buf.flip();
            sha.update(buf);
            buf.clear();
        }
        return buf;
    }
}
