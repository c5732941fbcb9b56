package org.fabricmanager.daemon.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * How a store makes a new version of its file durable. One daemon writes it atomically to its state
 * directory ({@link #LOCAL}); hot-standby managers replicate it through Raft, and every member (the
 * leader too) writes it when the entry is committed, so that a store's {@code save} returns only once the
 * content is durable on a majority: an index assignment is used only after that, as with the fsync alone.
 */
@FunctionalInterface
public interface StateFiles {
    /** Atomic replacement in the local state directory ({@link AtomicFiles}). */
    StateFiles LOCAL = (file, content) -> AtomicFiles.write(file, out -> out.write(content));

    /**
     * Replaces {@code file} (inside the state directory) with {@code content}; returns once it is durable.
     *
     * @throws IOException    when the local write fails
     * @throws StoreException when a replicated write is not committed (no quorum, not the leader)
     */
    void write(Path file, byte[] content) throws IOException;
}
