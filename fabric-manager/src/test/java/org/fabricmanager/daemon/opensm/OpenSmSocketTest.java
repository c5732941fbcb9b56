package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.List;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.OpenSm;
import org.fabricmanager.daemon.testing.PluginFrames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The socket file's group ({@code opensm.socketGroup}): given to the file, or refused at start with its reason; a frame
 * the socket cannot take is answered with its refusal.
 */
class OpenSmSocketTest {
    @TempDir
    Path dir;

    private static final OpenSmSocket.Handler NOTHING = new OpenSmSocket.Handler() {
        @Override
        public void subnet(OpenSmSocket.Reply reply, OpenSmWire.Subnet subnet, double readMs) {
        }

        @Override
        public void event(OpenSmWire.Event event) {
        }
    };

    @Test
    void theSocketFileGetsTheConfiguredGroup() throws Exception {
        Path probe = Files.createFile(dir.resolve("probe"));
        String own = Files.readAttributes(probe, PosixFileAttributes.class).group().getName();
        Path path = dir.resolve("own.sock");
        try (OpenSmSocket s = OpenSmSocket.listen(OpenSm.of(path.toString(), "0660", List.of(), null, own), "test", NOTHING)) {
            assertThat(Files.readAttributes(s.path(), PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).group().getName())
                    .isEqualTo(own);
        }
    }

    @Test
    void aGroupThatDoesNotExistIsRefusedAtStart() {
        Path path = dir.resolve("none.sock");
        assertThatThrownBy(() -> OpenSmSocket.listen(OpenSm.of(path.toString(), "0660", List.of(), null,
                "fm-no-such-group-4711"), "test", NOTHING)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("option opensm.socketGroup").hasMessageContaining("fm-no-such-group-4711");
    }

    @Test
    void aSubnetItCannotTakeIsRefusedWithItsCodeNotClosedUnanswered() throws Exception {
        Path path = dir.resolve("refuse.sock");
        ByteBuffer subnet = ByteBuffer.allocate(64).putInt(OpenSmWire.MAGIC).put((byte) OpenSmWire.VERSION)
                .put((byte) OpenSmWire.SUBNET).putShort((short) 0).putInt(0);
        subnet.putLong(5).putLong(0).putInt(1).putInt(0).putLong(0x20).putShort((short) 1).put((byte) 1).put((byte) 0xff)
                .put((byte) 0);
        subnet.putInt(8, subnet.position() - OpenSmWire.HEADER_BYTES).flip();
        try (OpenSmSocket s = OpenSmSocket.listen(OpenSm.of(path.toString(), null, null, null), "test", NOTHING)) {
            PluginFrames.Answer a = PluginFrames.exchange(s.path(), subnet);
            assertThat(a.why()).isEqualTo(Refusal.INVALID);
            assertThat(a.seq()).isEqualTo(5);
            assertThat(a.reason()).isEqualTo("a name that is not UTF-8");
        }
    }
}
