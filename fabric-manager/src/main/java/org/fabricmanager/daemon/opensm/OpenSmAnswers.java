package org.fabricmanager.daemon.opensm;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.fabricmanager.daemon.opensm.OpenSmWire.SwitchChanges;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.LidPlan;

/**
 * The tables by LID that answer OpenSM's passes, whole or as their change to the last answer: each answer gets a
 * random id, the plug-in keeps the tables of the last answer it took and names its id in the next SUBNET, and when
 * that is the daemon's last answer for the same switches, the answer is a DELTA of the entries that differ (a cable's
 * loss at 4,096 nodes changes a small share of the 3.7 million: docs/opensm.md). Anything else (a first pass, a
 * plug-in or daemon restarted, a pass the plug-in did not take, a switch more or less) gets the whole tables. The
 * tables themselves are kept and updated where they changed ({@link LidTables}). One caller at a time (the
 * provider's lock).
 */
final class OpenSmAnswers {
    private final LidTables lidTables = new LidTables();
    private final SplittableRandom ids = new SplittableRandom(new SecureRandom().nextLong());
    /** The last answer: its id, its switches and their tables by LID. */
    private long lastId;
    private long[] lastGuids = new long[0];
    private byte[][] lastByLid = new byte[0][];
    /** What the last answer was: whole tables or a delta, and how many entries it carried. */
    private boolean lastWasDelta;
    private long lastChanged;

    /**
     * The answer to pass {@code seq} of a plug-in holding answer {@code held}: the tables by LID of {@code fabric},
     * {@code rows[i]} being switch {@code guids[i]}'s ports by destination index as handed.
     */
    OpenSmAnswer answer(long seq, long held, Fabric fabric, long[] guids, byte[][] rows, LidPlan lids) {
        byte[][] byLid = lidTables.tables(fabric, guids, rows, lids);
        int entries = lids.maxLid() + 1;
        long id = newId();
        OpenSmAnswer out = null;
        if (held != 0 && held == lastId && Arrays.equals(guids, lastGuids)) {
            out = delta(seq, id, guids, byLid, entries);
        }
        lastWasDelta = out != null;
        if (out == null) {
            out = new OpenSmAnswer.Tables(seq, id, guids, byLid, entries);
            lastChanged = (long) guids.length * entries;
        }
        lastId = id;
        lastGuids = guids.clone();
        lastByLid = byLid;
        return out;
    }

    /** The DELTA against the last answer, or {@code null} when the whole tables are no larger. */
    private OpenSmAnswer.Delta delta(long seq, long id, long[] guids, byte[][] byLid, int entries) {
        List<SwitchChanges> changes = new ArrayList<>();
        long changed = 0;
        int[] lidBuf = new int[entries];
        byte[] portBuf = new byte[entries];
        for (int s = 0; s < guids.length; s++) {
            byte[] before = lastByLid[s];
            byte[] after = byLid[s];
            if (before == after) {
                continue; // a row the tables kept
            }
            int n = 0;
            int common = Math.min(before.length, entries);
            for (int lid = LidTables.mismatch(before, after, 0, common); lid < common;
                 lid = LidTables.mismatch(before, after, lid + 1, common)) {
                lidBuf[n] = lid;
                portBuf[n++] = after[lid];
            }
            for (int lid = common; lid < entries; lid++) {
                if (after[lid] != (byte) ForwardingTables.NO_ROUTE) { // beyond the base: 255 unless changed
                    lidBuf[n] = lid;
                    portBuf[n++] = after[lid];
                }
            }
            if (n > 0) {
                changes.add(new SwitchChanges(guids[s], Arrays.copyOf(lidBuf, n), Arrays.copyOf(portBuf, n)));
                changed += n;
            }
        }
        if (OpenSmWire.deltaBytes(changes.size(), changed) >= 22L + guids.length * (8L + entries)) {
            return null;
        }
        lastChanged = changed;
        return new OpenSmAnswer.Delta(seq, id, lastId, guids.length, entries, changes);
    }

    private long newId() {
        long id;
        do {
            id = ids.nextLong();
        } while (id == 0 || id == lastId);
        return id;
    }

    /** The last answer in words, for the provider's log line. */
    String lastKind() {
        return (lastWasDelta ? "delta of " + lastChanged + " entries" : "whole tables")
                + (lidTables.lastUpdated() ? ", updated" : ", built whole");
    }

    /** How many switches' routes to switches the last answer searched afresh (the rest were kept). */
    int switchesSearched() {
        return lidTables.switchesSearched();
    }
}
