package org.fabricmanager.daemon.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** The state directory before a daemon takes its lock: created readable by the daemon's group only, and writable. */
public final class StateDirectory {
    private StateDirectory() {
    }

    /**
     * Creates {@code dir} when missing (mode 0750 whatever the umask) and checks that this user may write it.
     *
     * @throws StoreException when it cannot be created or written
     */
    public static void prepare(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                try {
                    // what the daemon creates only its group may read, whatever the umask (docs/security.md)
                    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
                } catch (UnsupportedOperationException e) {
                    // no POSIX permissions on this file system
                }
            }
        } catch (IOException e) {
            throw new StoreException("state directory " + dir + ": cannot create it: " + e);
        }
        if (!Files.isWritable(dir)) {
            throw new StoreException("state directory " + dir + " is not writable by this user");
        }
    }
}
