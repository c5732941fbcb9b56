package org.fabricmanager.agent;

import java.util.Arrays;
import org.fabricmanager.southbound.ErrorCode;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Message.LftBlock;
import org.fabricmanager.southbound.Message.LftCommit;
import org.fabricmanager.southbound.MessageType;
import org.fabricmanager.southbound.ProtocolException;

/**
 * The agent's staging area for LFT blocks and the commit rules of {@code docs/protocol.md}
 * (section 3.5): blocks are kept per base for one version, a commit checks the batch's size, that no
 * block was refused, the table length and the announced hash, and only then yields the new table.
 * Any failed commit leaves the held table alone and clears the batch. Pure logic, no I/O.
 */
final class TableStager {
    private final int portCount;
    private long version;
    /** Staged blocks by block number (base / 64), grown as bases arrive; {@code staged} counts the non-null ones. */
    private byte[][] blocks = new byte[0][];
    private int staged;
    private String poison;
    /** VC rules staged for {@code version}, or {@code null}. */
    private Message.VcRuleSet rules;

    TableStager(int portCount) {
        this.portCount = portCount;
    }

    /**
     * Stages one block.
     *
     * @throws ProtocolException BAD_BLOCK (non-fatal) for an entry that is not a port of this switch
     */
    void stage(LftBlock block) {
        startBatch(block.version());
        check(block.entries(), block.base(), MessageType.LFT_BLOCK, block.txid());
        put(block.base() / LftBlock.SIZE, block.entries());
    }

    /**
     * Stages a run of blocks (LFT_BLOCKS) exactly as its blocks one by one: each counts once in the batch.
     *
     * @throws ProtocolException BAD_BLOCK (non-fatal) for an entry that is not a port of this switch; then no
     *                           block of the run is staged
     */
    void stage(Message.LftBlocks run) {
        startBatch(run.version());
        byte[] entries = run.entries();
        check(entries, run.base(), MessageType.LFT_BLOCKS, run.txid());
        int first = run.base() / LftBlock.SIZE;
        for (int i = 0; i < run.blockCount(); i++) {
            int from = i * LftBlock.SIZE;
            put(first + i, Arrays.copyOfRange(entries, from, Math.min(entries.length, from + LftBlock.SIZE)));
        }
    }

    private void startBatch(long v) {
        if (v != version) {
            clear();
            version = v;
        }
    }

    private void check(byte[] entries, int base, MessageType type, int txid) {
        for (int i = 0; i < entries.length; i++) {
            int port = entries[i] & 0xff;
            if (port != 255 && (port < 1 || port > portCount)) {
                poison = "entry for index " + (base + i) + " is port " + port + ", not in [1, " + portCount + "] or 255";
                throw new ProtocolException(ErrorCode.BAD_BLOCK, type.code(), txid, poison);
            }
        }
    }

    private void put(int b, byte[] entries) {
        if (b >= blocks.length) {
            blocks = Arrays.copyOf(blocks, Math.max(b + 1, blocks.length * 2));
        }
        if (blocks[b] == null) {
            staged++;
        }
        blocks[b] = entries;
    }

    /**
     * Stages the VC rules of a batch, like a block: a new version starts a new batch.
     *
     * @throws ProtocolException BAD_BLOCK (non-fatal) when the rules name another number of ports than the switch has
     */
    void stage(Message.VcRuleSet set) {
        if (set.version() != version) {
            clear();
            version = set.version();
        }
        if (set.portClasses().length != portCount) {
            poison = "VC rules for " + set.portClasses().length + " ports, the switch has " + portCount;
            throw new ProtocolException(ErrorCode.BAD_BLOCK, MessageType.VC_RULES.code(), set.txid(), poison);
        }
        rules = set;
    }

    /**
     * Applies the staged batch on top of {@code held}.
     *
     * @return the new table
     * @throws ProtocolException BATCH_INCOMPLETE, BAD_BLOCK or HASH_MISMATCH (non-fatal); the batch is cleared either way
     */
    AppliedTable commit(AppliedTable held, LftCommit commit) {
        try {
            int t = MessageType.LFT_COMMIT.code();
            if (commit.blocks() > 0 && commit.version() != version) {
                throw new ProtocolException(ErrorCode.BATCH_INCOMPLETE, t, commit.txid(), "commit of v" + commit.version()
                        + " but the staged blocks are for v" + version);
            }
            int staged = commit.version() == version ? this.staged : 0;
            if (staged != commit.blocks()) {
                throw new ProtocolException(ErrorCode.BATCH_INCOMPLETE, t, commit.txid(), "commit of v" + commit.version()
                        + " announces " + commit.blocks() + " blocks, " + staged + " staged");
            }
            if (poison != null && staged > 0) {
                throw new ProtocolException(ErrorCode.BAD_BLOCK, t, commit.txid(), "batch v" + version + " has a refused block: " + poison);
            }
            int length = commit.length();
            byte[][] next = held.chunksResized(length);
            if (staged > 0) {
                for (int b = 0; b < blocks.length; b++) {
                    byte[] entries = blocks[b];
                    if (entries == null) {
                        continue;
                    }
                    int base = b * LftBlock.SIZE;
                    if (base + entries.length > length) {
                        throw new ProtocolException(ErrorCode.BAD_BLOCK, t, commit.txid(), "block at " + base + " ("
                                + entries.length + " entries) reaches beyond the table length " + length);
                    }
                    if (entries.length == next[b].length) {
                        next[b] = entries; // a whole chunk: the staged block becomes it (nothing writes either)
                    } else {
                        byte[] chunk = next[b].clone();
                        System.arraycopy(entries, 0, chunk, 0, entries.length);
                        next[b] = chunk;
                    }
                }
            }
            Message.VcRuleSet nextRules = held.rules().orElse(null);
            if (commit.rulesHash() != 0) {
                if (poison != null && rules == null && commit.version() == version) {
                    throw new ProtocolException(ErrorCode.BAD_BLOCK, t, commit.txid(), "batch v" + version
                            + " has refused VC rules: " + poison);
                }
                if (rules != null && commit.version() == version) {
                    nextRules = rules;
                }
                long got = nextRules == null ? 0 : nextRules.rulesHash();
                if (got != commit.rulesHash()) {
                    throw new ProtocolException(ErrorCode.HASH_MISMATCH, t, commit.txid(), "VC rules of v"
                            + commit.version() + " hash to " + Long.toHexString(got) + ", commit announced "
                            + Long.toHexString(commit.rulesHash()));
                }
            }
            AppliedTable table = new AppliedTable(commit.version(), next, length, nextRules);
            if (table.hash() != commit.hash()) {
                throw new ProtocolException(ErrorCode.HASH_MISMATCH, t, commit.txid(), "table v" + commit.version()
                        + " hashes to " + Long.toHexString(table.hash()) + ", commit announced "
                        + Long.toHexString(commit.hash()));
            }
            return table;
        } finally {
            clear();
        }
    }

    /** Drops the staged batch (new version, failed commit, lost connection). */
    void clear() {
        if (staged > 0) {
            Arrays.fill(blocks, null);
        }
        staged = 0;
        poison = null;
        rules = null;
        version = 0;
    }

    int stagedBlocks() {
        return staged;
    }
}
