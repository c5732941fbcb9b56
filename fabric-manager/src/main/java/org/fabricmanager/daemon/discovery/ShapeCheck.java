package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.HdftRecognition;
import org.fabricmanager.topology.HdftRecognizer;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The check of a discovered fabric against the expected shape, a PGFT (with the {@link FabricChecker}) or a 2-D fat
 * tree; run off the control thread. The parts drains hold out of the fabric are checked as the cabling they are (put
 * back, {@link DrainedParts#restore}) and counted apart: an operator who drained a cable reads "1 link drained", not
 * a missing link, and the verdict stays about what is cabled. A check that throws is a finding (MISWIRED, with the
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
    static FabricCheck of(Fabric fabric, PgftSpec expected, HdftSpec hdft, FabricChecker checker, DrainedParts drained) {
        String shape = expected != null ? expected.toString() : hdft.toString();
        try {
            DrainedParts.Restored r = restore(fabric, drained);
            FabricCheck c = expected != null ? checker.check(r.fabric(), expected) : hdft(r.fabric(), hdft);
            return withDrained(c, r.switches(), r.links());
        } catch (RuntimeException e) {
            LOG.error("the check of the fabric against {} failed", shape, e);
            return new FabricCheck(shape, FabricCheck.Verdict.MISWIRED, "the check against " + shape + " failed: " + e,
                    0, List.of(), 0, List.of(), 0, List.of(), 0, List.of());
        }
    }

    /** The fabric with the drained parts put back; the fabric alone (they then count as missing) if they do not fit. */
    private static DrainedParts.Restored restore(Fabric fabric, DrainedParts drained) {
        try {
            return drained.restore(fabric);
        } catch (TopologyException e) {
            LOG.warn("the drained parts do not fit the discovered fabric ({}): checking it without them", e.getMessage());
            return new DrainedParts.Restored(fabric, List.of(), List.of());
        }
    }

    /**
     * {@code c} with the drained switches and links that were checked as present, listed (at most
     * {@link FabricCheck#MAX_LISTED} of each) and counted in the summary, e.g. {@code INTACT PGFT(...) (given, by GUID):
     * 1 link drained}.
     */
    static FabricCheck withDrained(FabricCheck c, List<String> switches, List<String> links) {
        if (switches.isEmpty() && links.isEmpty()) {
            return c;
        }
        List<String> parts = new ArrayList<>();
        if (!switches.isEmpty()) {
            parts.add(switches.size() + (switches.size() == 1 ? " switch drained" : " switches drained"));
        }
        if (!links.isEmpty()) {
            parts.add(links.size() + (links.size() == 1 ? " link drained" : " links drained"));
        }
        // a recognition's summary is its head, then ": " and its findings when it has any
        String summary = c.summary() + (c.summary().contains(": ") ? ", " : ": ") + String.join(", ", parts);
        return new FabricCheck(c.expected(), c.verdict(), summary, c.missingSwitchCount(), c.missingSwitches(),
                c.extraSwitchCount(), c.extraSwitches(), c.missingLinkCount(), c.missingLinks(), c.miswiredCount(),
                c.miswired(), switches.size(), listed(switches), links.size(), listed(links));
    }

    private static List<String> listed(List<String> all) {
        return all.size() <= FabricCheck.MAX_LISTED ? all : all.subList(0, FabricCheck.MAX_LISTED);
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
