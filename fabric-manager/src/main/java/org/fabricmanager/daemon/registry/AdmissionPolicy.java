package org.fabricmanager.daemon.registry;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import org.fabricmanager.daemon.store.AdmittedSwitchStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which switches enter the fabric when their agent first reports ({@code fabric.admit}, docs/security.md).
 * A switch outside the policy is held pending, not routed and given no destination index, until an admin
 * admits it; every switch admitted is remembered in the state directory, so it is let in again later.
 * <ul>
 * <li>{@code any}: every switch (the daemon trusts its network);</li>
 * <li>{@code list}: the GUIDs of {@code fabric.admitList}, and those admitted since;</li>
 * <li>{@code expected} (the default with an expected PGFT): switches already admitted once, the GUIDs of the
 * expected PGFT's canonical numbering, and, while the first discovery runs and no canonical GUID was seen
 * (a real fabric with its own GUIDs), switches up to the expected count, trusted on first discovery. After
 * that, a new GUID waits for an admin.</li>
 * </ul>
 * Used on the control thread.
 */
public final class AdmissionPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionPolicy.class);

    /** How switches are admitted. */
    public enum Mode {
        ANY, LIST, EXPECTED;

        /** The mode of {@code fabric.admit}, or the default for the expected shape. */
        public static Mode of(String text, PgftSpec expected) {
            if (text == null) {
                return expected == null ? ANY : EXPECTED;
            }
            return switch (text) {
                case "any" -> ANY;
                case "list" -> LIST;
                case "expected" -> EXPECTED;
                default -> throw new IllegalArgumentException("fabric.admit must be expected, list or any, got '"
                        + text + "'");
            };
        }
    }

    private final Mode mode;
    private final PgftSpec expected;
    private final AdmittedSwitchStore store;
    private final Set<Long> admitted = new LinkedHashSet<>();
    private boolean canonicalSeen;
    /** Switches admitted since the list was last written. */
    private int unsaved;

    /**
     * @param listed {@code fabric.admitList}
     * @throws StoreException when the admitted-switches file is damaged
     */
    public AdmissionPolicy(Mode mode, Set<Long> listed, PgftSpec expected, AdmittedSwitchStore store) {
        if (mode == Mode.EXPECTED && expected == null) {
            throw new IllegalArgumentException("fabric.admit: expected needs fabric.expectedPgft");
        }
        this.mode = mode;
        this.expected = expected;
        this.store = store;
        admitted.addAll(store.load());
        admitted.addAll(listed);
    }

    public Mode mode() {
        return mode;
    }

    /**
     * Whether switch {@code guid} may enter the fabric now: {@code null} when it may, else why it waits.
     *
     * @param admittedCount switches in the fabric now
     * @param discovering   true while the first discovery runs
     */
    public String judge(long guid, int admittedCount, boolean discovering) {
        if (mode == Mode.ANY || admitted.contains(guid)) {
            return null;
        }
        if (mode == Mode.LIST) {
            return "not in fabric.admitList";
        }
        if (canonical(guid)) {
            canonicalSeen = true;
            return null;
        }
        if (discovering && !canonicalSeen && admittedCount < expected.totalSwitchCount()) {
            return null; // trusted on first discovery
        }
        return discovering && !canonicalSeen ? "the expected " + expected + " has " + expected.totalSwitchCount()
                + " switches and all are there" : "a new switch outside the expected " + expected;
    }

    /** True when {@code guid} is a switch of the expected PGFT's canonical numbering. */
    private boolean canonical(long guid) {
        long rel = guid - PgftGenerator.SWITCH_GUID_BASE;
        int level = (int) (rel >>> 32);
        long index = rel & 0xffffffffL;
        return rel >= 0 && level >= 1 && level <= expected.h() && index < expected.switchCount(level);
    }

    /**
     * Switch {@code guid} entered the fabric: remembered for its next connections, in the state directory at
     * the next {@link #remember()}. Writing the whole list at every admission made a 5,120-switch discovery
     * write 5,120 files of up to 5,120 lines (a fifth of the control thread's time).
     */
    public void admitted(long guid) {
        if (mode != Mode.ANY && admitted.add(guid)) {
            unsaved++;
        }
    }

    /**
     * Writes the switches admitted since the last call to the state directory. The coordinator calls it before
     * each routing and after an admin's admission; a switch admitted by the policy and lost in a crash before
     * that is judged again by the same policy at its next connection, so only an admin's admission must be
     * written at once.
     */
    public void remember() {
        if (unsaved == 0) {
            return;
        }
        try {
            store.save(admitted);
            unsaved = 0;
        } catch (StoreException e) {
            LOG.error("{} admitted switch(es) not remembered ({}): they will wait for an admin after a restart",
                    unsaved, e.getMessage());
        }
    }

    /** The GUIDs known to the policy. */
    public Set<Long> known() {
        return Collections.unmodifiableSet(admitted);
    }
}
