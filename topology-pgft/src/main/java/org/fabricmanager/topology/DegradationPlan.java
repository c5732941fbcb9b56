package org.fabricmanager.topology;

import java.util.List;

/**
 * What to remove from a fabric: given switches and links, then {@code randomSwitches} non-leaf
 * switches drawn at random, then a {@code linkFraction} of the remaining switch-to-switch links
 * drawn at random. Random draws are deterministic for {@code seed}.
 */
public record DegradationPlan(double linkFraction, int randomSwitches, long seed, List<Long> switchGuids,
                              List<Link> links) {
    public DegradationPlan {
        if (!(linkFraction >= 0.0 && linkFraction <= 1.0)) {
            throw new TopologyException("degradation: link fraction " + linkFraction + " outside [0, 1]");
        }
        if (randomSwitches < 0) {
            throw new TopologyException("degradation: negative switch count " + randomSwitches);
        }
        switchGuids = List.copyOf(switchGuids);
        links = List.copyOf(links);
    }

    /** Random removal only. */
    public static DegradationPlan random(double linkFraction, int randomSwitches, long seed) {
        return new DegradationPlan(linkFraction, randomSwitches, seed, List.of(), List.of());
    }

    /** True when the plan removes nothing. */
    public boolean isEmpty() {
        return linkFraction == 0.0 && randomSwitches == 0 && switchGuids.isEmpty() && links.isEmpty();
    }
}
