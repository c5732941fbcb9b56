package org.fabricmanager.daemon.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.fabricmanager.daemon.discovery.SwitchPorts;
import org.fabricmanager.daemon.store.DrainStore;
import org.fabricmanager.daemon.store.StateFiles;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.topology.PortRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drains as routing sees them and as the state directory keeps them: a drained switch and every port facing it
 * are down, a drained cable is down at both ends whichever end was named, the rest is reported as is; every drain
 * and undrain is stored before it takes effect, a store that fails changes nothing, and a damaged file is refused.
 */
class DrainsTest {
    private static final long A = 0x1000000100000001L;
    private static final long B = 0x1000000200000001L;
    private static final long C = 0x1000000200000002L;

    @TempDir
    Path state;

    /** Switch {@code guid}'s report: port p up to peer {@code peers[p-1]} at its port {@code peerPorts[p-1]} (0: a node). */
    private static SwitchPorts report(long guid, long[] peers, int[] peerPorts) {
        SwitchPorts s = new SwitchPorts(guid, "s" + Long.toHexString(guid), peers.length);
        for (int p = 1; p <= peers.length; p++) {
            s.update(peerPorts[p - 1] == 0 ? PortRecord.toNode(p, peers[p - 1], "n")
                    : PortRecord.toSwitch(p, peers[p - 1], peerPorts[p - 1], ""));
        }
        return s;
    }

    private static boolean[] up(SwitchPorts s) {
        boolean[] up = new boolean[s.portCount()];
        for (int p = 1; p <= s.portCount(); p++) {
            up[p - 1] = s.port(p).isUp();
        }
        return up;
    }

    @Test
    void aDrainedSwitchAndThePortsFacingItAreDownAndUndrainingRestoresThem() {
        Drains drains = new Drains(null);
        SwitchPorts a = report(A, new long[] {B, C, 77}, new int[] {1, 1, 0});
        SwitchPorts b = report(B, new long[] {A, 78}, new int[] {1, 0});
        assertThat(drains.masked(a)).as("nothing drained: the reports themselves").isSameAs(a);
        drains.drain(new PortRef(B, 0), 5);
        assertThat(up(drains.masked(b))).as("the drained switch, its node port too").containsExactly(false, false);
        assertThat(up(drains.masked(a))).as("the port facing it").containsExactly(false, true, true);
        assertThat(up(a)).as("the reports are not changed").containsExactly(true, true, true);
        assertThat(drains.switchCount()).isEqualTo(1);
        assertThat(drains.linkCount()).isZero();
        drains.undrain(new PortRef(B, 0));
        assertThat(drains.masked(a)).isSameAs(a);
        assertThat(drains.isSwitchDrained(B)).isFalse();
    }

    @Test
    void aDrainedCableIsDownAtBothEndsWhicheverEndIsNamed() {
        Random random = new Random(39);
        for (int round = 0; round < 50; round++) {
            int ports = 2 + random.nextInt(6);
            long[] peers = new long[ports];
            int[] peerPorts = new int[ports];
            for (int p = 0; p < ports; p++) {
                peers[p] = B + p;
                peerPorts[p] = 1 + random.nextInt(8);
            }
            SwitchPorts a = report(A, peers, peerPorts);
            int cable = 1 + random.nextInt(ports);
            long[] farPeers = new long[8];
            int[] farPeerPorts = new int[8];
            for (int q = 1; q <= 8; q++) { // the cable's far end reports A; its other ports other switches
                boolean theCable = q == peerPorts[cable - 1];
                farPeers[q - 1] = theCable ? A : 0x99 + q;
                farPeerPorts[q - 1] = theCable ? cable : 1;
            }
            SwitchPorts far = report(peers[cable - 1], farPeers, farPeerPorts);
            Drains drains = new Drains(null);
            PortRef named = random.nextBoolean() ? new PortRef(A, cable) : new PortRef(far.guid(), peerPorts[cable - 1]);
            drains.drain(named, 1);
            boolean[] nearUp = up(drains.masked(a));
            boolean[] farUp = up(drains.masked(far));
            for (int p = 1; p <= ports; p++) {
                assertThat(nearUp[p - 1]).as("seed 39 round %d: near port %d (cable %d named %s)", round, p, cable, named)
                        .isEqualTo(p != cable);
            }
            for (int p = 1; p <= 8; p++) {
                assertThat(farUp[p - 1]).as("seed 39 round %d: far port %d", round, p).isEqualTo(p != peerPorts[cable - 1]);
            }
            assertThat(drains.linkCount()).isEqualTo(1);
        }
    }

    @Test
    void aRestartedOrTakingOverManagerKeepsTheDrainsStored() {
        Drains drains = new Drains(new DrainStore(state, StateFiles.LOCAL));
        drains.drain(new PortRef(A, 0), 1_000);
        drains.drain(new PortRef(B, 3), 2_000);
        drains.drain(new PortRef(C, 0), 3_000);
        drains.undrain(new PortRef(A, 0));
        Drains next = new Drains(new DrainStore(state, StateFiles.LOCAL));
        assertThat(next.view()).containsExactly(Map.entry(new PortRef(B, 3), 2_000L), Map.entry(new PortRef(C, 0), 3_000L));
        assertThat(next.isSwitchDrained(C)).isTrue();
        assertThat(next.isSwitchDrained(A)).isFalse();
        assertThat(next.isLinkDrained(B, 3)).isTrue();
    }

    @Test
    void aDrainThatCannotBeStoredChangesNothing() {
        StateFiles failing = (file, content) -> {
            throw new StoreException(file + ": not committed by the ha group");
        };
        Drains drains = new Drains(new DrainStore(state, failing));
        assertThatThrownBy(() -> drains.drain(new PortRef(A, 0), 1)).isInstanceOf(StoreException.class);
        assertThat(drains.view()).isEmpty();
        assertThat(drains.isSwitchDrained(A)).isFalse();
    }

    @Test
    void aDamagedStateFileIsRefusedNamingIt() throws IOException {
        DrainStore store = new DrainStore(state, StateFiles.LOCAL);
        store.save(List.of(new DrainStore.Entry(A, 0, 1), new DrainStore.Entry(B, 2, 2)));
        assertThat(store.load()).containsExactly(new DrainStore.Entry(A, 0, 1), new DrainStore.Entry(B, 2, 2));
        String text = Files.readString(store.file(), StandardCharsets.UTF_8);
        Files.writeString(store.file(), text.replace(" 2 2", " 3 2"), StandardCharsets.UTF_8);
        assertThatThrownBy(() -> new Drains(store)).isInstanceOf(StoreException.class)
                .hasMessageContaining(store.file().toString());
    }
}
