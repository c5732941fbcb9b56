package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.nio.charset.StandardCharsets;
import org.fabricmanager.daemon.store.DrainStore;
import org.fabricmanager.daemon.store.PendingSwitchStore;
import org.fabricmanager.daemon.store.QuarantineStore;
import org.junit.jupiter.api.Test;

class StateEntryTest {
    @Test
    void theHeldSwitchesTheFlapQuarantineAndTheDrainsAreReplicatedStateFiles() throws Exception {
        for (String name : new String[] {PendingSwitchStore.FILE, QuarantineStore.FILE, DrainStore.FILE}) {
            byte[] content = ("content of " + name).getBytes(StandardCharsets.UTF_8);
            StateEntry decoded = StateEntry.decode(new DataInputStream(new ByteArrayInputStream(
                    new StateEntry(7, name, content).encode())));
            assertThat(decoded.term()).isEqualTo(7);
            assertThat(decoded.name()).isEqualTo(name);
            assertThat(decoded.content()).isEqualTo(content);
        }
    }

    @Test
    void noOtherFileCanBeNamed() {
        assertThatThrownBy(() -> new StateEntry(1, "../etc/passwd", new byte[0]))
                .hasMessageContaining("not a replicated state file");
        assertThatThrownBy(() -> new StateEntry(1, "lock", new byte[0])).hasMessageContaining("lock");
    }
}
