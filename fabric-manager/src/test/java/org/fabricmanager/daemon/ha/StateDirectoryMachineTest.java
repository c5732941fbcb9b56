package org.fabricmanager.daemon.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member whose disk cannot take a snapshot of the committed state stops, as one that cannot write a committed
 * entry does: Ratis ends its applier thread on anything but an IOException from a snapshot, and the member then led
 * with nothing applied (found by PartitionIT on a full ext4).
 */
class StateDirectoryMachineTest {
    @TempDir
    Path dir;

    @Test
    void aSnapshotThatCannotBeWrittenStopsTheMemberAndSaysWhy() throws Exception {
        AtomicInteger changes = new AtomicInteger();
        StateDirectoryMachine machine = new StateDirectoryMachine(Files.createDirectories(dir.resolve("state")),
                changes::incrementAndGet);
        Path sm = Files.createDirectories(dir.resolve("sm"));
        File target = sm.resolve("snapshot.1_5").toFile();
        // where the snapshot's content is written first: a directory there makes the write fail as a bad disk would
        Files.createDirectories(sm.resolve("snapshot.1_5.tmp"));

        assertThatThrownBy(() -> machine.writeSnapshot(target)).isInstanceOf(IOException.class);
        assertThat(machine.storageFailure()).as("the member's reason to stop").isDone();
        assertThat(machine.storageFailure().join()).contains("cannot write committed state snapshot")
                .contains("snapshot.1_5");
        assertThat(changes.get()).as("the role watcher told").isPositive();
    }

    @Test
    void aSnapshotThatCanBeWrittenLeavesTheMemberRunning() throws Exception {
        StateDirectoryMachine machine = new StateDirectoryMachine(Files.createDirectories(dir.resolve("state")), () -> { });
        Path sm = Files.createDirectories(dir.resolve("sm"));
        File target = sm.resolve("snapshot.1_5").toFile();

        assertThat(machine.writeSnapshot(target)).isNotNull();
        assertThat(target).exists();
        assertThat(sm.resolve("snapshot.1_5.md5")).exists();
        assertThat(machine.storageFailure()).isNotDone();
    }
}
