package org.fabricmanager.daemon.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.fabricmanager.daemon.store.StateFiles;

/**
 * The state directories of a hot-standby pair in a {@link ChaosSimulation}: the active manager's stores write every
 * state file through {@link #files()}, which puts it in both members' directories before it returns, as a write
 * committed by the group is applied by every member ({@code ha.HaNode#files}) before the store goes on. A takeover
 * ({@link #takeOver()}) makes the standby's directory the active one: its manager starts from the copy it holds, as
 * {@code ha.HaManager} starts one once its member leads with every committed entry applied. Raft itself (elections,
 * terms, a deposed leader's writes fenced, a write not committed for want of a majority) is not simulated: every
 * write is committed, and the crashed manager writes nothing more.
 */
final class StandbyPair {
    private final Path[] members;
    private int active;

    /** Two members' directories under {@code base}, created empty; the first is active. */
    StandbyPair(Path base) {
        members = new Path[] {base.resolve("member-a"), base.resolve("member-b")};
        try {
            for (Path m : members) {
                Files.createDirectories(m);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The active member's state directory. */
    Path active() {
        return members[active];
    }

    /**
     * The stores' writes, in force whichever member is active: each file replaced in both directories, the active
     * one's as the daemon writes it ({@link StateFiles#LOCAL}), the standby's by an atomic rename without its fsyncs:
     * a simulated crash is a process's, which loses nothing written, and the fsyncs would double the time writes take.
     */
    StateFiles files() {
        return (file, content) -> {
            String name = file.getFileName().toString();
            StateFiles.LOCAL.write(members[active].resolve(name), content);
            Path standby = members[1 - active].resolve(name);
            Path tmp = standby.resolveSibling(name + ".tmp");
            Files.write(tmp, content);
            Files.move(tmp, standby, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        };
    }

    /** The active manager crashed: the standby's directory is the active one now. */
    void takeOver() {
        active = 1 - active;
    }
}
