package org.fabricmanager.daemon.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;

/**
 * A SHA-256 fingerprint of everything routing depends on: the engine, every switch and its port
 * count, every node and its destination index, every link (ends normalised, sorted). Names and the
 * order of the lists do not count. Two fabrics with the same fingerprint get the same tables, which is
 * what lets the daemon reuse stored routing after a restart (OpenSM memo, section 7).
 */
public final class FabricFingerprint {
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
        sha.update(("fabric-fingerprint/1 engine=" + engine + "\n").getBytes(StandardCharsets.UTF_8));
        long[] switches = new long[fabric.switches().size() * 2];
        int i = 0;
        List<FabricSwitch> sorted = new ArrayList<>(fabric.switches());
        sorted.sort((a, b) -> Long.compareUnsigned(a.guid(), b.guid()));
        for (FabricSwitch s : sorted) {
            switches[i++] = s.guid();
            switches[i++] = s.ports();
        }
        update(sha, 'S', switches);
        List<EndNode> nodes = new ArrayList<>(fabric.nodes());
        nodes.sort((a, b) -> Long.compareUnsigned(a.guid(), b.guid()));
        long[] nodeData = new long[nodes.size() * 2];
        i = 0;
        for (EndNode n : nodes) {
            nodeData[i++] = n.guid();
            nodeData[i++] = n.index();
        }
        update(sha, 'N', nodeData);
        Link[] links = new Link[fabric.links().size()];
        i = 0;
        for (Link l : fabric.links()) {
            links[i++] = l.normalized();
        }
        Arrays.sort(links, (x, y) -> {
            int c = Long.compareUnsigned(x.a(), y.a());
            if (c == 0) {
                c = Integer.compare(x.aPort(), y.aPort());
            }
            if (c == 0) {
                c = Long.compareUnsigned(x.b(), y.b());
            }
            return c != 0 ? c : Integer.compare(x.bPort(), y.bPort());
        });
        long[] linkData = new long[links.length * 4];
        i = 0;
        for (Link l : links) {
            linkData[i++] = l.a();
            linkData[i++] = l.aPort();
            linkData[i++] = l.b();
            linkData[i++] = l.bPort();
        }
        update(sha, 'L', linkData);
        return HexFormat.of().formatHex(sha.digest());
    }

    private static void update(MessageDigest sha, char tag, long[] values) {
        byte[] buf = new byte[1 + 4 + values.length * 8];
        buf[0] = (byte) tag;
        int n = values.length;
        buf[1] = (byte) (n >>> 24);
        buf[2] = (byte) (n >>> 16);
        buf[3] = (byte) (n >>> 8);
        buf[4] = (byte) n;
        int p = 5;
        for (long v : values) {
            for (int s = 56; s >= 0; s -= 8) {
                buf[p++] = (byte) (v >>> s);
            }
        }
        sha.update(buf);
    }
}
