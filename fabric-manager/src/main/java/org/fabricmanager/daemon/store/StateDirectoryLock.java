package org.fabricmanager.daemon.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a state directory (file {@code lock} inside it), held while a daemon runs: two
 * daemons sharing one directory would overwrite each other's index map and stored routing, so the
 * second one refuses to start. The operating system releases the lock when the process dies, also on
 * kill -9, so a crash never leaves a stale lock behind.
 */
public final class StateDirectoryLock implements AutoCloseable {
    /** File name inside the state directory. */
    public static final String FILE = "lock";

    private final FileChannel channel;
    private final FileLock lock;

    private StateDirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code stateDirectory}.
     *
     * @throws StoreException when another process (or another daemon in this JVM) holds it, or the
     *                        lock file cannot be opened
     */
    public static StateDirectoryLock acquire(Path stateDirectory) {
        Path file = stateDirectory.resolve(FILE);
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new StoreException("state directory " + stateDirectory + ": cannot open " + file + ": " + e);
        }
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by another daemon in this JVM (tests, demo)
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StoreException("state directory " + stateDirectory + ": cannot lock " + file + ": " + e);
        }
        if (lock == null) {
            closeQuietly(channel);
            throw new StoreException("state directory " + stateDirectory + " is in use by another fabric-manager"
                    + " daemon (it holds " + file + "); give each daemon its own state.directory");
        }
        return new StateDirectoryLock(channel, lock);
    }

    /** Releases the lock (the file stays; it is empty and harmless). */
    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // the channel's close below releases it as well
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing held any more
        }
    }
}
