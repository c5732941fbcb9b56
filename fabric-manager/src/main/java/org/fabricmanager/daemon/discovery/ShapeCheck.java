package org.fabricmanager.daemon.discovery;

import java.util.List;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.HdftRecognition;
import org.fabricmanager.topology.HdftRecognizer;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The check of a discovered fabric against the expected shape, a PGFT (with the {@link FabricChecker}) or a 2-D fat
 * tree; run off the control thread. It checks the fabric as cabled: the drained parts that are present and up are put
 * back first ({@link DrainedParts}), and the result counts them. A check that throws is a finding (MISWIRED, with the
 * error), never a check that does not end: the status waits for the routed fabric's check before it says CONVERGED.
 */
final class ShapeCheck {
    private static final Logger LOG = LoggerFactory.getLogger(ShapeCheck.class);

    private ShapeCheck() {
    }

    /**
     * {@code fabric} with {@code drained} put back against {@code expected}, or against {@code hdft} when no PGFT is
     * expected (one of them is set).
     */
    static FabricCheck of(Fabric fabric, DrainedParts drained, PgftSpec expected, HdftSpec hdft, FabricChecker checker) {
        String shape = expected != null ? expected.toString() : hdft.toString();
        try {
            DrainedParts.Restored cabled = drained.restore(fabric);
            FabricCheck c = expected != null ? checker.check(cabled.fabric(), expected) : hdft(cabled.fabric(), hdft);
            return c.withDrained(cabled.switches(), cabled.cables());
        } catch (RuntimeException e) {
            LOG.error("the check of the fabric against {} failed", shape, e);
            return new FabricCheck(shape, FabricCheck.Verdict.MISWIRED, "the check against " + shape + " failed: " + e,
                    0, List.of(), 0, List.of(), 0, List.of(), 0, List.of());
        }
    }

    /** The recognition of a discovered fabric against the expected 2-D fat tree, as a check the views show. */
    static FabricCheck hdft(Fabric fabric, HdftSpec spec) {
        HdftRecognition h = HdftRecognizer.recognize(fabric, spec);
        FabricCheck.Verdict v = switch (h.verdict()) {
            case INTACT -> FabricCheck.Verdict.INTACT;
            case DEGRADED -> FabricCheck.Verdict.DEGRADED;
            case MISWIRED, UNRECOGNISED -> FabricCheck.Verdict.MISWIRED;
        };
        return new FabricCheck(spec.toString(), v, h.summary(), 0, List.of(), 0, List.of(), 0, List.of(), 0, List.of());
    }
}
