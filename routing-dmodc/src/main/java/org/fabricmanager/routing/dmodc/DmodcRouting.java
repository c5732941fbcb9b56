package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutedSnapshot;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.preprocess.CostTable;
import org.fabricmanager.routing.dmodc.preprocess.Preprocessed;
import org.fabricmanager.routing.dmodc.preprocess.RowProfiles;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Ranking;

/**
 * Everything one Dmodc computation produced: the {@link RoutingResult} (tables, validity, phase
 * timings) and the preprocessing behind it (ranks, costs, dividers), which answers questions the
 * tables cannot: the alternative output ports {@code P_{s,d}} of formula (2) for adaptive routing,
 * the candidate groups {@code C_{s,λ}} of formula (1), and the memory the tables and costs take.
 * Alternatives are computed on request from the costs (a few comparisons per port group) rather
 * than stored per entry.
 *
 * <p>It is also the {@link RoutedSnapshot} that {@link DmodcEngine#reroute} takes to route a later
 * snapshot incrementally; after such a re-route, {@link #rowCounts()} says how many rows were reused.
 */
public final class DmodcRouting implements RoutedSnapshot {
    private final FabricIndex index;
    private final RoutingResult result;
    private final int[] rank;
    private final CostTable costs;
    private final int[] divider;
    private final RowProfiles profiles;
    private final RowCounts rowCounts;
    private final boolean repair;
    /** True when the tables are a refinement's of Dmodc's ({@link #refinedRouting}). */
    private final boolean refined;
    private final long fromFull;

    DmodcRouting(FabricIndex index, RoutingResult result, int[] rank, CostTable costs, int[] divider,
                 RowProfiles profiles, RowCounts rowCounts) {
        this(new Preprocessed(index, rank, costs, divider, profiles), result, rowCounts, false, false, 0);
    }

    private DmodcRouting(Preprocessed pre, RoutingResult result, RowCounts rowCounts, boolean repair, boolean refined,
                         long fromFull) {
        this.repair = repair;
        this.refined = refined;
        this.fromFull = fromFull;
        this.index = pre.index();
        this.result = result;
        this.rank = pre.ranks();
        this.costs = pre.costs();
        this.divider = pre.dividers();
        this.profiles = pre.profiles();
        this.rowCounts = rowCounts;
    }

    /** Tables, validity and timings. */
    @Override
    public RoutingResult result() {
        return result;
    }

    /** The fabric that was routed. */
    public FabricIndex index() {
        return index;
    }

    @Override
    public FabricIndex fabric() {
        return index;
    }

    /**
     * For a routing made by {@link DmodcEngine#reroute}: how many rows were the previous ones
     * unchanged, the previous ones with some entries recomputed, and computed whole. Empty for a
     * routing from scratch.
     */
    public Optional<RowCounts> rowCounts() {
        return Optional.ofNullable(rowCounts);
    }

    /**
     * The same routing marked as a {@link DmodcEngine#repair}: its tables are not Dmodc's own for its fabric;
     * {@code fromFull} entries took Dmodc's port because elements came back.
     */
    DmodcRouting repaired(long fromFull) {
        return new DmodcRouting(preprocessed(), result, rowCounts, true, refined, fromFull);
    }

    /**
     * For a repair: the entries that took Dmodc's port (where the repair's differed) because their route in Dmodc's
     * routing crosses an element that came back, or because the fabric is whole again
     * ({@link org.fabricmanager.routing.dmodc.repair.ReturnOverlay}); 0 when nothing came back.
     */
    public long fromFull() {
        return fromFull;
    }

    /**
     * True for the result of {@link DmodcEngine#repair}: its tables are the repaired tables in force, not
     * Dmodc's for this fabric (the costs, dividers and alternatives are this fabric's all the same).
     */
    public boolean isRepair() {
        return repair;
    }

    /**
     * True when the tables are Dmodc's own for its fabric: not a repair's ({@link #isRepair}) nor a refinement's
     * ({@link #refinedRouting}), so that a re-route may reuse them.
     */
    public boolean dmodcTables() {
        return !repair && !refined;
    }

    /** Rows of a re-route by what was done with them. */
    public record RowCounts(int reused, int patched, int recomputed) {
    }

    /** Rank of switch {@code s} (0 for leaves), or {@link Ranking#UNREACHED}. */
    public int rank(int s) {
        return rank[s];
    }

    /** Every switch's rank, by id; for {@link DmodcEngine#reroute}. */
    int[] ranks() {
        return rank;
    }

    /** The cost rows' profiles; for {@link DmodcEngine#reroute}. */
    RowProfiles profiles() {
        return profiles;
    }

    /** Its fabric, ranks, costs, dividers and profiles, for {@link DmodcEngine#reroute}. */
    Preprocessed preprocessed() {
        return new Preprocessed(index, rank, costs, divider, profiles);
    }

    /** Divider {@code Π_s} of switch {@code s}. */
    public int divider(int s) {
        return divider[s];
    }

    /** Costs of every switch to every leaf. */
    public CostTable costs() {
        return costs;
    }

    /** Bytes taken by the forwarding tables' entries. */
    public long tableBytes() {
        return result.tables().entryBytes();
    }

    /** Bytes taken by the cost table. */
    public long costTableBytes() {
        return costs.byteSize();
    }

    /**
     * This routing's result as refined by engine {@code engine}: its tables with {@code rows} in place of
     * Dmodc's ({@code null} rows: Dmodc's, shared), its validity (every refined entry is one of Dmodc's
     * candidates, so the leaf pairs routed are the same), and the refinement's phase {@code phase} of
     * {@code nanos} listed after {@code routes} (it runs after the validity, which it does not change).
     */
    public RoutingResult refined(String engine, byte[][] rows, String phase, long nanos) {
        ForwardingTables base = result.tables();
        int[] reuse = new int[index.switchCount()];
        for (int s = 0; s < reuse.length; s++) {
            reuse[s] = rows[s] == null ? s : -1;
        }
        ForwardingTables tables = ForwardingTables.ofRows(guids(index), rows, index.destinationCount(), base, reuse);
        List<PhaseTimings.Phase> phases = new ArrayList<>(result.timings().phases());
        int at = phases.size();
        for (int i = 0; i < phases.size(); i++) {
            if (phases.get(i).name().equals("routes")) {
                at = i + 1;
            }
        }
        phases.add(at, new PhaseTimings.Phase(phase, nanos));
        return new RoutingResult(engine, tables, result.validity(), new PhaseTimings(phases));
    }

    /**
     * {@link #refined} kept with this routing's preprocessing: a snapshot that {@link DmodcEngine#repair} repairs
     * from as it does from Dmodc's own (only the entries whose costs changed are checked), and that a re-route
     * does not reuse ({@link #dmodcTables}).
     */
    public DmodcRouting refinedRouting(String engine, byte[][] rows, String phase, long nanos) {
        return new DmodcRouting(preprocessed(), refined(engine, rows, phase, nanos), rowCounts, false, true, 0);
    }

    /** The GUIDs of {@code fabric}'s switches, by id: the rows of its tables. */
    static long[] guids(FabricIndex fabric) {
        long[] guids = new long[fabric.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = fabric.switchGuid(s);
        }
        return guids;
    }

    /**
     * Formula (1): the candidate port groups of switch {@code s} towards leaf number {@code leaf}
     * (global group numbers of the {@link FabricIndex}, in group order), those whose neighbour is
     * strictly closer to the leaf. Empty when {@code s} is the leaf itself or cannot reach it.
     */
    public int[] candidateGroups(int s, int leaf) {
        int own = costs.cost(s, leaf);
        if (own == CostTable.INFINITE) {
            return new int[0];
        }
        int from = index.groupStart(s);
        int to = from + index.groupCount(s);
        int[] out = new int[to - from];
        int n = 0;
        for (int g = from; g < to; g++) {
            if (costs.cost(index.groupNeighbour(g), leaf) < own) {
                out[n++] = g;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /**
     * Formula (2): every output port of switch {@code s} that leads strictly closer to destination
     * index {@code d} (ports of the candidate groups, in group then port order). For a node on
     * {@code s} itself, its attached port; empty when {@code d} is unused, has no link or is
     * unreachable from {@code s}. The table's port {@code p_{s,d}} is always one of them.
     */
    public int[] candidatePorts(int s, int d) {
        if (d < 0 || d >= index.destinationCount()) {
            throw new IllegalArgumentException("destination " + d + " outside [0, " + index.destinationCount() + ")");
        }
        int pos = index.nodeByDestination(d);
        if (pos == FabricIndex.NONE || index.nodeLeaf(pos) == FabricIndex.NONE) {
            return new int[0];
        }
        int leafSwitch = index.nodeLeaf(pos);
        if (leafSwitch == s) {
            return new int[] {index.nodeLeafPort(pos)};
        }
        int[] groups = candidateGroups(s, index.leafNumber(leafSwitch));
        int total = 0;
        for (int g : groups) {
            total += index.groupSize(g);
        }
        int[] ports = new int[total];
        int n = 0;
        for (int g : groups) {
            for (int i = 0; i < index.groupSize(g); i++) {
                ports[n++] = index.groupPort(g, i);
            }
        }
        return ports;
    }
}
