package org.fabricmanager.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** An ibsim already on a socket name is found in {@code /proc/net/unix} by its control socket, and only that name. */
class IbsimSocketTest {
    private static Stream<String> lines() {
        return Stream.of("Num       RefCount Protocol Flags    Type St Inode Path",
                "000000008e71b3c0: 00000002 00000000 00000000 0002 01 19863385 @fm-demo-42:ctl@",
                "000000009b776a8c: 00000002 00000000 00000000 0002 01 19863387 @fm-demo-42:out1@",
                "0000000051652708: 00000002 00000000 00000000 0002 01 19863391 /run/fabric-manager/opensm.sock");
    }

    @Test
    void findsTheControlSocketOfThatNameOnly() {
        assertThat(IbsimFabric.socketTaken(lines(), "fm-demo-42")).isTrue();
        assertThat(IbsimFabric.socketTaken(lines(), "fm-demo-4")).as("a prefix of a taken name").isFalse();
        assertThat(IbsimFabric.socketTaken(lines(), "demo-42")).as("a suffix of a taken name").isFalse();
        assertThat(IbsimFabric.socketTaken(lines(), "fm-demo-43")).isFalse();
    }
}
