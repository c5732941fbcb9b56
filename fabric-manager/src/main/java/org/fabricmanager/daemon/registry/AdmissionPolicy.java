package org.fabricmanager.daemon.registry;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.fabricmanager.daemon.store.AdmittedSwitchStore;
import org.fabricmanager.daemon.store.PendingSwitchStore;
import org.fabricmanager.daemon.store.StoreException;
import org.fabricmanager.topology.Guids;
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
 * A switch held pending is remembered too (with the pending-switches store): it waits for an admin at every
 * later connection, whichever manager judges it, until an admin admits it.
 * Used on the control thread.
 */
public final class AdmissionPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionPolicy.class);
    /** How {@link #judge} begins the answer for a switch held before, followed by the first reason. */
    public static final String HELD = "waits for an admin since it was first held: ";

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
    /** Switches held pending (by this manager or an earlier one) and why, until an admin admits them. */
    private final Map<Long, String> held = new TreeMap<>(Long::compareUnsigned);
    private final PendingSwitchStore pendingStore;
    private boolean heldChanged;
    private boolean canonicalSeen;
    /** Switches admitted since the list was last written. */
    private int unsaved;

    /**
     * @param listed {@code fabric.admitList}
     * @throws StoreException when the admitted-switches file is damaged
     */
    public AdmissionPolicy(Mode mode, Set<Long> listed, PgftSpec expected, AdmittedSwitchStore store) {
        this(mode, listed, expected, store, null);
    }

    /**
     * As above, with the switches held pending kept in {@code pending}: a switch once held waits for an admin
     * whichever manager judges it next (a standby taking over, a restart), never trusted on its first discovery.
     *
     * @throws StoreException when the admitted-switches or pending-switches file is damaged
     */
    public AdmissionPolicy(Mode mode, Set<Long> listed, PgftSpec expected, AdmittedSwitchStore store,
                           PendingSwitchStore pending) {
        if (mode == Mode.EXPECTED && expected == null) {
            throw new IllegalArgumentException("fabric.admit: expected needs fabric.expectedPgft");
        }
        this.mode = mode;
        this.expected = expected;
        this.store = store;
        this.pendingStore = pending;
        admitted.addAll(store.load());
        admitted.addAll(listed);
        if (pending != null) {
            held.putAll(pending.load());
            held.keySet().removeAll(admitted);
        }
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
        String before = held.get(guid);
        if (before != null) {
            return HELD + before;
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
        if (held.remove(guid) != null) {
            heldChanged = true;
        }
    }

    /**
     * Switch {@code guid} is held pending for {@code reason} (the answer of {@link #judge}): remembered at once
     * (a held switch is rare, unlike admissions), so that the next manager holds it too. At most
     * {@link PendingSwitchStore#MAX_ENTRIES} are remembered: a flood of new GUIDs must not grow the state
     * without bound; beyond it a switch is held by this manager only.
     */
    public void held(long guid, String reason) {
        if (pendingStore == null || held.containsKey(guid)) {
            return;
        }
        if (held.size() >= PendingSwitchStore.MAX_ENTRIES) {
            LOG.warn("switch {} held pending but not remembered: {} held switches are remembered already",
                    Guids.format(guid), held.size());
            return;
        }
        held.put(guid, reason);
        heldChanged = true;
        rememberHeld();
    }

    private void rememberHeld() {
        if (!heldChanged || pendingStore == null) {
            return;
        }
        try {
            pendingStore.save(held);
            heldChanged = false;
        } catch (StoreException e) {
            LOG.error("held switches not remembered ({}): the next manager judges them again", e.getMessage());
        }
    }

    /**
     * Writes the switches admitted since the last call to the state directory. The coordinator calls it before
     * each routing and after an admin's admission; a switch admitted by the policy and lost in a crash before
     * that is judged again by the same policy at its next connection, so only an admin's admission must be
     * written at once.
     */
    public void remember() {
        rememberHeld();
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
