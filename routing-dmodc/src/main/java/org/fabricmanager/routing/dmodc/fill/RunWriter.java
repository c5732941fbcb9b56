package org.fabricmanager.routing.dmodc.fill;

import java.util.Arrays;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.routing.dmodc.preprocess.LeafDestinations;
import org.fabricmanager.topology.FabricIndex;

/**
 * One thread's writer of forwarding table rows for {@link RouteFill}, reused from switch to switch:
 * it knows the switch being routed (its first group {@code g0}, mask words {@code w}, divider
 * {@code Π_s} and own leaf) and holds the candidate mask the sweeps compute, one bit per group, and
 * the own cost of the stretch they are at. Stretches of leaves become destination ranges; adjacent
 * ranges with equal candidates are gathered into one open run, whose ports {@link Selectors} writes
 * by formulas (3)-(4) when it closes. Where a row was painted with the base candidates, stretches
 * with those candidates are not written again; no route at unreachable leaves a run was carried over
 * is written after the row's last run ({@link #finish}).
 */
final class RunWriter {
    static final byte NO_ROUTE = (byte) ForwardingTables.NO_ROUTE;

    private final FabricIndex index;
    private final int[] groupStart;
    private final int[] divider;
    private final LeafDestinations destinations;
    private final int stride;
    private final int firstDestination;
    private final Selectors selectors;
    /** Whether an open run is carried over unreachable leaves ({@link DmodcShortcuts.Shortcut#UNREACHABLE_LAST}). */
    private final boolean carryOn;

    // What the sweeps compute: the candidates of the stretch (mask), the base candidates painted
    // over the row (base, when painted), and the own cost of the stretch (current[0]). Sized for
    // the switch with the most groups.
    private final long[] mask;
    private final long[] base;
    private final int[] current;
    private boolean painted;

    // The open run: destinations [runFrom, runTo) sharing the candidates runMask.
    private final long[] runMask;
    private int runFrom;
    private int runTo;
    // Destination ranges [from, to) an open run was carried over, to be set to no route after it.
    private int[] deferredNoRoute = new int[16];
    private int deferred;
    // The profile segments whose runs at infinite own cost finish() sets to no route (OwnRuns), or null.
    private int[] unreachableSegments;

    // The switch being routed.
    private int g0;
    private int w;
    private int pi;
    private int ownLeaf;

    RunWriter(FillInputs in) {
        FabricIndex index = in.index();
        this.index = index;
        this.groupStart = index.groupStartArray();
        this.divider = in.divider();
        this.destinations = in.destinations();
        this.stride = destinations.stride();
        this.firstDestination = in.leaves() > 0 ? destinations.first(0) : 0;
        this.selectors = new Selectors(index.groupPortStartArray(), index.groupPortArray(), in.maxGroups(), in.shortcuts());
        int words = Math.max(1, (in.maxGroups() + 63) >>> 6);
        this.mask = new long[words];
        this.base = new long[words];
        this.runMask = new long[words];
        this.current = new int[1];
        this.carryOn = in.shortcuts().on(DmodcShortcuts.Shortcut.UNREACHABLE_LAST);
    }

    /** Starts switch {@code s}: its own leaf and first group; returns its number of groups. */
    int begin(int s) {
        ownLeaf = index.leafNumber(s);
        g0 = groupStart[s];
        return groupStart[s + 1] - g0;
    }

    /** The mask words, divider and port selection of switch {@code s} with {@code k} groups. */
    void beginGroups(int s, int k) {
        w = (k + 63) >>> 6;
        pi = divider[s];
        selectors.begin(g0, w, k);
    }

    /** A row written afresh: no open run, nothing painted, nothing deferred. */
    void beginRow() {
        runFrom = -1;
        painted = false;
        deferred = 0;
        unreachableSegments = null;
    }

    /** The first group of the switch being routed. */
    int g0() {
        return g0;
    }

    /** The words of the switch's masks. */
    int w() {
        return w;
    }

    /** The switch's divider {@code Π_s}. */
    int pi() {
        return pi;
    }

    /** The switch's leaf number, or {@link FabricIndex#NONE}. */
    int ownLeaf() {
        return ownLeaf;
    }

    /** The candidate mask the sweeps fill; the same array for the writer's life. */
    long[] mask() {
        return mask;
    }

    /** The painted base candidates; the same array for the writer's life. */
    long[] base() {
        return base;
    }

    /** The own cost of the stretch, at 0; the same array for the writer's life. */
    int[] current() {
        return current;
    }

    /** Whether the row was painted with the base candidates. */
    boolean painted() {
        return painted;
    }

    /** Whether every group of the switch has one port ({@link Selectors#singlePorts}). */
    boolean singlePorts() {
        return selectors.singlePorts();
    }

    /** Whether {@link #mask} has any candidate. */
    boolean anyCandidate() {
        boolean any = false;
        for (int i = 0; i < w; i++) {
            any |= mask[i] != 0;
        }
        return any;
    }

    /**
     * {@link #mask} becomes the base, which holds for most leaves: the sweeps then only write where
     * other candidates hold. The whole row is painted with it unless {@code write} is false (a
     * sweep that paints it itself).
     */
    void paintBase(byte[] row, boolean write) {
        System.arraycopy(mask, 0, base, 0, w);
        if (write) {
            selectors.fill(row, 0, row.length, base, pi);
        }
        painted = true;
    }

    /** The profile {@code segments} whose runs at infinite own cost {@link #finish} sets to no route. */
    void unreachableSegments(int[] segments) {
        unreachableSegments = segments;
    }

    /** Leaves {@code [from, to)}: the cost of s and the candidates are those of the sweep's current state. */
    void interval(byte[] row, int from, int to) {
        int cost = current[0];
        if (cost == 0) {
            return; // the own leaf: its ports are written
        }
        if (painted && cost != CostTable.INFINITE) {
            // the ports depend on the candidates only: the painted ones are right here
            boolean same = true;
            for (int i = 0; i < w; i++) {
                same &= mask[i] == base[i];
            }
            if (same) {
                return;
            }
        }
        int leaf = from;
        while (leaf < to) {
            if (!destinations.contiguous(leaf)) {
                if (cost == CostTable.INFINITE) {
                    noRoute(row, leaf);
                } else {
                    fillScattered(row, leaf);
                }
                leaf++;
                continue;
            }
            int last = Math.min(destinations.chainEnd(leaf), to - 1);
            int d0 = destinations.first(leaf);
            int d1 = destinations.first(last) + destinations.count(last);
            if (cost != CostTable.INFINITE) {
                add(row, d0, d1);
            } else if (carryOn && runFrom >= 0 && d0 == runTo) {
                // Unreachable leaves inside a stretch of equal candidates (a destination leaf
                // that lost one uplink, in a pod's run): the open run goes on over them and
                // they are set to no route after it is written, so that the run is written
                // once; its ports elsewhere depend on the candidates and d only.
                runTo = d1;
                deferNoRoute(d0, d1);
            } else {
                Arrays.fill(row, d0, d1, NO_ROUTE);
            }
            leaf = last + 1;
        }
    }

    /**
     * Destinations {@code [d0, d1)} take the candidates in {@link #mask}: they extend the open
     * run when adjacent with the same candidates, or start a new one.
     */
    void add(byte[] row, int d0, int d1) {
        if (runFrom >= 0 && d0 == runTo) {
            boolean same = true;
            for (int i = 0; i < w; i++) {
                same &= mask[i] == runMask[i];
            }
            if (same) {
                runTo = d1;
                return;
            }
        }
        flush(row);
        System.arraycopy(mask, 0, runMask, 0, w);
        runFrom = d0;
        runTo = d1;
    }

    /**
     * The destinations of leaves {@code [from, to)} at the own row's mode with the one-word candidates
     * {@code bits}, written at once rather than gathered into runs: a level-2 switch's stretch is a
     * destination pod whose top switches lost a link, each with its own candidates, so there is no run
     * to extend. The entries are the same: they depend on the candidates and on {@code d} only.
     */
    void write(byte[] row, int from, int to, long bits) {
        mask[0] = bits;
        int leaf = from;
        while (leaf < to) {
            if (!destinations.contiguous(leaf)) {
                fillScattered(row, leaf);
                leaf++;
                continue;
            }
            int last = Math.min(destinations.chainEnd(leaf), to - 1);
            selectors.fill(row, destinations.first(leaf), destinations.first(last) + destinations.count(last), mask, pi);
            leaf = last + 1;
        }
    }

    /** Destinations {@code [from, to)} with the candidates in {@link #mask}, written at once. */
    void fill(byte[] row, int from, int to) {
        selectors.fill(row, from, to, mask, pi);
    }

    /** The port of destination {@code d} with the candidates in {@link #mask}. */
    byte port(int d) {
        return selectors.port(mask, d, pi);
    }

    private void flush(byte[] row) {
        if (runFrom >= 0) {
            selectors.fill(row, runFrom, runTo, runMask, pi);
            runFrom = -1;
        }
    }

    /** Destinations {@code [from, to)} are set to no route by {@link #finish}. */
    void deferNoRoute(int from, int to) {
        if (deferred + 2 > deferredNoRoute.length) {
            deferredNoRoute = Arrays.copyOf(deferredNoRoute, 2 * deferredNoRoute.length);
        }
        deferredNoRoute[deferred++] = from;
        deferredNoRoute[deferred++] = to;
    }

    /**
     * The last run written; then no route where runs were carried over unreachable leaves and at the
     * leaves {@link OwnRuns} left out.
     */
    void finish(byte[] row) {
        flush(row);
        // Mostly one destination leaf each (32 entries): eight-byte stores beat Arrays.fill's loop.
        for (int i = 0; i < deferred; i += 2) {
            RowPatterns.fill(row, deferredNoRoute[i], deferredNoRoute[i + 1], NO_ROUTE);
        }
        deferred = 0;
        if (unreachableSegments != null) {
            int[] segments = unreachableSegments;
            unreachableSegments = null;
            for (int g = 0; g < segments.length; g += 3) {
                if (segments[g + 2] == CostTable.INFINITE) {
                    noRoute(row, segments[g], segments[g + 1]);
                }
            }
        }
    }

    /** The own leaf's destinations, each with the port of its node. */
    void ownLeafPorts(byte[] row) {
        for (int i = destinations.start(ownLeaf); i < destinations.start(ownLeaf + 1); i++) {
            row[destinations.destination(i)] = (byte) destinations.port(i);
        }
    }

    /** A leaf whose destinations are not one range, entry by entry, with the candidates in {@link #mask}. */
    void fillScattered(byte[] row, int leaf) {
        for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
            int d = destinations.destination(i);
            row[d] = selectors.port(mask, d, pi);
        }
    }

    /** No route to the destinations of leaves {@code [from, to)}. */
    void noRoute(byte[] row, int from, int to) {
        if (stride > 0) {
            RowPatterns.fill(row, firstDestination + stride * from, firstDestination + stride * to, NO_ROUTE);
            return;
        }
        for (int leaf = from; leaf < to; leaf++) {
            noRoute(row, leaf);
        }
    }

    /** No route to the destinations of {@code leaf}. */
    void noRoute(byte[] row, int leaf) {
        if (destinations.contiguous(leaf)) {
            int d0 = destinations.first(leaf);
            Arrays.fill(row, d0, d0 + destinations.count(leaf), NO_ROUTE);
        } else {
            for (int i = destinations.start(leaf); i < destinations.start(leaf + 1); i++) {
                row[destinations.destination(i)] = NO_ROUTE;
            }
        }
    }
}
