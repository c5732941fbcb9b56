package org.fabricmanager.daemon.discovery;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.api.FabricCheck;
import org.fabricmanager.daemon.api.Milestone;
import org.fabricmanager.daemon.control.MilestoneLog;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator reads of each snapshot's check: the milestone {@code fabric discovered} or {@code fabric changed}
 * with the fabric's counts and the check's summary (once per different summary), the first claims not taken, and a
 * WARN with the first problems when the fabric turns MISWIRED (an INFO when it matches again). Control thread.
 */
final class CheckAnnouncements {
    // the lines keep the logger they always had: operators filter on it
    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryManager.class);

    private final MilestoneLog milestones;
    private final boolean shapeExpected;
    private String announced;

    /** @param shapeExpected a shape is configured (the summary then carries the check's) */
    CheckAnnouncements(MilestoneLog milestones, boolean shapeExpected) {
        this.milestones = milestones;
        this.shapeExpected = shapeExpected;
    }

    /** The check of snapshot {@code r} ended with {@code c}; {@code before} is the check it follows. */
    void checked(TopologyBuilder.Result r, FabricCheck before, FabricCheck c) {
        if (c.verdict() == FabricCheck.Verdict.MISWIRED && !c.summary().equals(before.summary())) {
            // the operator must not have to find this in an INFO line: the fabric is routed, but it is not the
            // fabric that was ordered
            List<String> first = firstProblems(c, 5);
            LOG.warn("the fabric is not the expected {}: {}{}", c.expected(), c.summary(),
                    first.isEmpty() ? "" : "; first problems: " + String.join("; ", first));
        } else if (before.verdict() == FabricCheck.Verdict.MISWIRED && c.verdict() != FabricCheck.Verdict.MISWIRED) {
            LOG.info("the fabric matches the expected {} again ({})", c.expected(), c.verdict());
        }
        String summary = describe(r.fabric()) + (shapeExpected ? "; " + c.summary() : "")
                + (r.issues().isEmpty() ? "" : "; " + r.issues().size() + " port claims not taken");
        if (!summary.equals(announced)) {
            boolean first = announced == null;
            milestones.record(first ? Milestone.Kind.FABRIC_DISCOVERED : Milestone.Kind.FABRIC_CHANGED,
                    (first ? "fabric discovered: " : "fabric changed: ") + summary);
            announced = summary;
            for (int i = 0; i < Math.min(5, r.issues().size()); i++) {
                LOG.info("  not a link: {}", r.issues().get(i));
            }
        }
    }

    /** Up to {@code max} findings, miswirings first (they are what makes the verdict). */
    static List<String> firstProblems(FabricCheck c, int max) {
        List<String> out = new ArrayList<>(max);
        for (List<String> l : List.of(c.miswired(), c.extraSwitches(), c.missingSwitches(), c.missingLinks())) {
            for (String p : l) {
                if (out.size() == max) {
                    return out;
                }
                out.add(p);
            }
        }
        return out;
    }

    private static String describe(Fabric f) {
        int switchLinks = 0;
        for (Link l : f.links()) {
            if (f.isSwitch(l.a()) && f.isSwitch(l.b())) {
                switchLinks++;
            }
        }
        return f.switches().size() + " switches, " + f.nodes().size() + " nodes, " + switchLinks
                + " switch-to-switch links";
    }
}
