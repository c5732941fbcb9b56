package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.dmodc.preprocess.BoundaryEvents;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;

/**
 * The sweep of a switch whose cost row and whose neighbours' rows all have {@link RowProfiles}:
 * formulas (1)-(4) from the profiles. Between two consecutive segment boundaries (of any of these
 * rows) every cost involved is constant, so the candidates are too, and the leaves in between are
 * routed as one destination range by the {@link RunWriter}. The mask is updated at each boundary for
 * the rows that change there only (all groups when the row of the switch itself changes). One per
 * thread, its event list and modes reused from switch to switch.
 */
final class ProfileSweep {
    private final RowProfiles profiles;
    private final int[] groupNeighbour;
    private final int leaves;
    private final RunWriter out;
    private final long[] mask;
    // The writer's costs of the stretch: row 0 the switch, row i + 1 the neighbour of group g0 + i.
    private final int[] current;
    private final BoundaryEvents events;
    // Each row's mode, the cost a row returns to at the end of a segment.
    private final int[] modes;

    ProfileSweep(FillInputs in, RunWriter out) {
        this.profiles = in.profiles();
        this.groupNeighbour = in.index().groupNeighbourArray();
        this.leaves = in.leaves();
        this.out = out;
        this.mask = out.mask();
        this.current = out.current();
        this.events = new BoundaryEvents(leaves);
        this.modes = new int[in.maxGroups() + 1];
    }

    /**
     * Routes switch {@code s} with {@code k} groups into {@code row}. Events carry (row, cost): row 0
     * is {@code s}, row {@code i + 1} the neighbour of group {@code g0 + i}.
     */
    void sweep(byte[] row, int s, int k) {
        int g0 = out.g0();
        events.clear();
        modes[0] = profiles.mode(s);
        addEvents(0, profiles.segments(s));
        for (int i = 0; i < k; i++) {
            int t = groupNeighbour[g0 + i];
            modes[i + 1] = profiles.mode(t);
            addEvents(i + 1, profiles.segments(t));
        }
        System.arraycopy(modes, 0, current, 0, k + 1);
        recomputeMask(k);
        // Paint the whole row with the base candidates (every row at its mode), which hold
        // for most leaves; the sweep then only writes where other candidates hold.
        if (out.anyCandidate() && modes[0] != CostTable.INFINITE && modes[0] != 0) {
            out.paintBase(row, true);
        }
        long[] positions = events.positions();
        int previous = 0;
        for (int word = 0; word < positions.length; word++) {
            long bits = positions[word];
            while (bits != 0) {
                int p = (word << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                if (previous < p) {
                    out.interval(row, previous, p);
                }
                previous = p;
                boolean own = false;
                for (int e = events.firstEnd(p); e >= 0; e = events.next(e)) {
                    own |= apply(events.a(e), events.b(e));
                }
                for (int e = events.firstStart(p); e >= 0; e = events.next(e)) {
                    own |= apply(events.a(e), events.b(e));
                }
                if (own) {
                    recomputeMask(k);
                }
            }
        }
        if (previous < leaves) {
            out.interval(row, previous, leaves);
        }
    }

    private void recomputeMask(int k) {
        Arrays.fill(mask, 0, out.w(), 0L);
        for (int i = 0; i < k; i++) {
            if (current[i + 1] < current[0]) {
                mask[i >>> 6] |= 1L << i;
            }
        }
    }

    /** Row {@code r} takes cost {@code value}; true when it is the row of s itself. */
    private boolean apply(int r, int value) {
        current[r] = value;
        if (r == 0) {
            return true;
        }
        int i = r - 1;
        if (value < current[0]) {
            mask[i >>> 6] |= 1L << i;
        } else {
            mask[i >>> 6] &= ~(1L << i);
        }
        return false;
    }

    private void addEvents(int r, int[] segments) {
        for (int g = 0; g < segments.length; g += 3) {
            events.add(segments[g], r, segments[g + 2], true);
            events.add(segments[g + 1], r, modes[r], false);
        }
    }
}
