package org.fabricmanager.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.IbnetdiscoverReader;
import org.fabricmanager.topology.LeafFailures;
import org.fabricmanager.topology.LidFabric;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;

/**
 * The fabric options shared by {@code route}, {@code quality} and {@code bench}:
 * {@code --topology FILE}, {@code --pgft SPEC [--degrade-links F] [--degrade-switches K] [--seed S]}
 * or {@code --hdft SPEC [--fail-leaves K | --fail GUID,...] [--seed S]}.
 */
final class FabricSource {
    /** Value options a command must accept to use {@link #load(Arguments)}. */
    static final Set<String> OPTIONS = Set.of("topology", "topology-format", "pgft", "degrade-links", "degrade-switches", "seed", "hdft",
            "fail-leaves", "fail");

    /** Usage lines for the options. */
    static final String USAGE = """
              --topology FILE          a fabric-topology/1 file or an ibnetdiscover dump (detected)
              --topology-format F      fabric-topology or ibnetdiscover, instead of detecting it
              --pgft SPEC              the canonical fabric of PGFT(h; m1,...,mh; w1,...,wh; p1,...,ph)
              --degrade-links F        with --pgft: remove this fraction (0..1) of switch-to-switch links
              --degrade-switches K     with --pgft: remove K random non-leaf switches
              --hdft SPEC              the canonical 2-D fat tree HDFT(XxY;k;r;c)
              --fail-leaves K          with --hdft: fail K random leaf switches
              --fail GUID,...          with --hdft: fail these switches (leaves, row or column switches)
              --seed S                 seed of the random removals (default 1)""";

    private FabricSource() {
    }

    /** Loads the fabric the options name; every problem becomes a one-line {@link UsageException}. */
    static Fabric load(Arguments args) {
        return loadWithLids(args).fabric();
    }

    /**
     * Loads the fabric with its LIDs: those an ibnetdiscover dump lists, or for any other fabric
     * the documented {@link LidPlan#sequential(Fabric)} plan (refused above 49,151 LIDs only when
     * the plan is used, by {@link LidFabric#lids()} callers).
     */
    static LidFabric loadWithLids(Arguments args) {
        if (args.has("topology-format") && !args.has("topology")) {
            throw new UsageException(args.command() + ": --topology-format goes with --topology");
        }
        String which = args.exactlyOneOf("topology", "pgft", "hdft");
        if (!which.equals("pgft") && (args.has("degrade-links") || args.has("degrade-switches"))) {
            throw new UsageException(args.command() + ": --degrade-links and --degrade-switches go with --pgft");
        }
        if (!which.equals("hdft") && (args.has("fail-leaves") || args.has("fail"))) {
            throw new UsageException(args.command() + ": --fail-leaves and --fail go with --hdft");
        }
        if (which.equals("topology")) {
            Path file = Path.of(args.require("topology"));
            try {
                if (TopologyFormat.of(args, file) == TopologyFormat.IBNETDISCOVER) {
                    return IbnetdiscoverReader.readWithLids(file);
                }
                return new LidFabric(FabricJson.read(file), null);
            } catch (TopologyException e) {
                throw new UsageException(args.command() + ": " + e.getMessage(), e);
            }
        }
        try {
            if (which.equals("hdft")) {
                return new LidFabric(hdft(args), null);
            }
            return new LidFabric(pgft(args, args.doubleValue("degrade-links", 0.0, 0.0, 1.0)), null);
        } catch (TopologyException e) {
            throw new UsageException(args.command() + ": " + e.getMessage(), e);
        }
    }

    /**
     * The LIDs of a loaded fabric: the dump's, or the sequential plan for a fabric without any.
     * A dump that leaves some switch or node without a LID is refused, naming the first.
     */
    static LidPlan lidsOf(LidFabric loaded, String command) {
        try {
            if (loaded.lidProblem() != null) {
                throw new UsageException(command + ": " + loaded.lidProblem());
            }
            if (loaded.lids() == null) {
                return LidPlan.sequential(loaded.fabric());
            }
            List<Long> missing = loaded.lids().missing(loaded.fabric());
            if (!missing.isEmpty()) {
                throw new UsageException(command + ": " + missing.size() + " switches or nodes have no LID in the"
                        + " ibnetdiscover dump (first " + Guids.format(missing.get(0)) + "): run ibnetdiscover after"
                        + " the subnet manager has assigned LIDs");
            }
            return loaded.lids();
        } catch (TopologyException e) {
            throw new UsageException(command + ": " + e.getMessage(), e);
        }
    }

    /**
     * The {@code --pgft} fabric with {@code linkFraction} of its switch links removed (instead of
     * {@code --degrade-links}), the other options as {@link #load} reads them; {@code bench} uses it
     * to build one fabric per degradation level.
     */
    static Fabric pgft(Arguments args, double linkFraction) {
        try {
            PgftSpec spec = PgftSpec.parse(args.require("pgft"));
            Fabric fabric = PgftGenerator.generate(spec);
            int switches = args.intValue("degrade-switches", 0, 0, Integer.MAX_VALUE);
            long seed = args.longValue("seed", 1L);
            return Degrader.degrade(fabric, DegradationPlan.random(linkFraction, switches, seed));
        } catch (TopologyException e) {
            throw new UsageException(args.command() + ": " + e.getMessage(), e);
        }
    }

    private static Fabric hdft(Arguments args) {
        args.atMostOneOf("fail-leaves", "fail");
        Fabric fabric = HdftGenerator.generate(HdftSpec.parse(args.require("hdft")));
        long seed = args.longValue("seed", 1L);
        if (args.has("fail-leaves")) {
            return LeafFailures.fail(fabric, args.intValue("fail-leaves", 0, 0, Integer.MAX_VALUE), seed);
        }
        List<Long> guids = new ArrayList<>();
        for (String text : args.listValue("fail", List.of())) {
            try {
                guids.add(Guids.parseLenient(text));
            } catch (TopologyException e) {
                throw new UsageException(args.command() + ": --fail: " + e.getMessage(), e);
            }
        }
        return Degrader.degrade(fabric, new DegradationPlan(0.0, 0, seed, guids, List.of()));
    }
}
