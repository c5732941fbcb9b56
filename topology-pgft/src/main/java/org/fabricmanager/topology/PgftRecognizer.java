package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.fabricmanager.topology.PgftRecognition.LevelCount;
import org.fabricmanager.topology.PgftRecognition.Matching;
import org.fabricmanager.topology.PgftRecognition.SpecSource;
import org.fabricmanager.topology.PgftRecognition.Verdict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says whether a fabric is a given PGFT, intact or degraded, or not (extra items, miswiring), and
 * infers the PGFT of an intact fabric. The daemon uses it to check a discovered fabric against the
 * expected shape; the CLI's {@code topology --check} prints its result.
 *
 * <p>Fabrics whose GUIDs all follow the canonical numbering of {@code docs/formats.md} are compared by
 * GUID and port, exactly. Other fabrics (real ones, read from {@code ibnetdiscover}) are matched by
 * structure: levels from the leaves, pods and columns from connectivity, cable counts per pair of
 * switches; port numbers are then not checked. See {@code docs/topology.md} for what each supports.
 */
public final class PgftRecognizer {
    /** Largest PGFT checked: missing items are listed one by one, so the expected fabric must be sane. */
    static final int MAX_SWITCHES = 1 << 20;
    static final int MAX_NODES = 1 << 22;

    private static final Logger LOG = LoggerFactory.getLogger(PgftRecognizer.class);

    private PgftRecognizer() {
    }

    /**
     * Checks {@code fabric} against its own {@code pgft} if it has one, else against the PGFT
     * inferred from it ({@link Verdict#UNRECOGNISED} when it is not an intact PGFT).
     */
    public static PgftRecognition recognize(Fabric fabric) {
        if (fabric.pgft().isPresent()) {
            return check(fabric, fabric.pgft().get(), SpecSource.FABRIC);
        }
        PgftInference.Result inferred = PgftInference.infer(fabric);
        if (inferred.spec() == null) {
            Verdict verdict = inferred.miswired() ? Verdict.MISWIRED : Verdict.UNRECOGNISED;
            PgftRecognition r = new PgftRecognition(verdict, null, SpecSource.NONE, Matching.BY_STRUCTURE,
                    presentLevels(fabric), -1, attachedNodes(fabric), List.of(), List.of(), List.of(), List.of(),
                    inferred.reasons());
            LOG.debug("recognition: {}", r.summary());
            return r;
        }
        PgftRecognition r = check(fabric, inferred.spec(), SpecSource.INFERRED);
        if (r.verdict() != Verdict.INTACT && r.matching() == Matching.BY_STRUCTURE) {
            // Uniform counts but no consistent placement: not a PGFT after all.
            r = new PgftRecognition(Verdict.UNRECOGNISED, null, SpecSource.NONE, Matching.BY_STRUCTURE,
                    presentLevels(fabric), -1, r.attachedNodes(), List.of(), List.of(), List.of(), List.of(),
                    r.problems());
        }
        LOG.debug("recognition: {}", r.summary());
        return r;
    }

    /** Checks {@code fabric} against {@code expected}. */
    public static PgftRecognition recognize(Fabric fabric, PgftSpec expected) {
        return check(fabric, expected, SpecSource.GIVEN);
    }

    /** The PGFT of {@code fabric} when it is an intact one (by structure), else empty. */
    public static Optional<PgftSpec> infer(Fabric fabric) {
        PgftInference.Result inferred = PgftInference.infer(fabric);
        if (inferred.spec() == null) {
            return Optional.empty();
        }
        PgftRecognition r = StructuralMatch.run(fabric, inferred.spec(), SpecSource.INFERRED);
        return r.verdict() == Verdict.INTACT ? Optional.of(inferred.spec()) : Optional.empty();
    }

    private static PgftRecognition check(Fabric fabric, PgftSpec spec, SpecSource source) {
        long switches = spec.totalSwitchCount();
        if (switches > MAX_SWITCHES || spec.nodeCount() > MAX_NODES) {
            throw new TopologyException(spec + " is too large to check (" + switches + " switches, " + spec.nodeCount()
                    + " nodes; at most " + MAX_SWITCHES + " and " + MAX_NODES + ")");
        }
        PgftRecognition r = CanonicalMatch.applies(fabric) ? CanonicalMatch.run(fabric, spec, source)
                : StructuralMatch.run(fabric, spec, source);
        LOG.debug("recognition: {}", r.summary());
        return r;
    }

    private static List<LevelCount> presentLevels(Fabric fabric) {
        List<LevelCount> out = new ArrayList<>();
        for (FabricSummary.Level l : FabricSummary.of(fabric).levels()) {
            out.add(new LevelCount(l.level(), -1, l.switches()));
        }
        return out;
    }

    private static int attachedNodes(Fabric fabric) {
        return FabricSummary.of(fabric).attachedNodes();
    }
}
