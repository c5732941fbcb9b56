package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Removes switches and links from a fabric to model failures, deterministically for a seed. The
 * random choices are made over entries sorted canonically (by GUID and port) with
 * {@link Random}, whose algorithm is fixed by the Java specification, so that a seed
 * gives the same degraded fabric on every JVM.
 */
public final class Degrader {
    private static final Comparator<Link> CANONICAL = Comparator
            .comparing((Link l) -> l.a(), Long::compareUnsigned)
            .thenComparingInt(Link::aPort)
            .thenComparing(Link::b, Long::compareUnsigned)
            .thenComparingInt(Link::bPort);

    private Degrader() {
    }

    /**
     * Applies {@code plan} to {@code fabric}.
     *
     * @throws TopologyException when a given GUID or link is not in the fabric, or more non-leaf
     *                           switches are asked for than exist
     */
    public static Fabric degrade(Fabric fabric, DegradationPlan plan) {
        if (plan.isEmpty()) {
            return fabric;
        }
        Random random = new Random(plan.seed());
        Set<Long> removedSwitches = new HashSet<>();
        for (long guid : plan.switchGuids()) {
            if (!fabric.isSwitch(guid)) {
                throw new TopologyException("degradation: no switch with GUID " + Guids.format(guid));
            }
            removedSwitches.add(guid);
        }
        if (plan.randomSwitches() > 0) {
            Set<Long> leaves = new HashSet<>();
            for (Link l : fabric.links()) {
                if (fabric.isNode(l.a()) && fabric.isSwitch(l.b())) {
                    leaves.add(l.b());
                } else if (fabric.isNode(l.b()) && fabric.isSwitch(l.a())) {
                    leaves.add(l.a());
                }
            }
            List<Long> candidates = new ArrayList<>();
            for (FabricSwitch s : fabric.switches()) {
                if (!leaves.contains(s.guid()) && !removedSwitches.contains(s.guid())) {
                    candidates.add(s.guid());
                }
            }
            if (plan.randomSwitches() > candidates.size()) {
                throw new TopologyException("degradation: asked to remove " + plan.randomSwitches()
                        + " non-leaf switches but the fabric has only " + candidates.size());
            }
            candidates.sort(Long::compareUnsigned);
            shuffle(candidates, random);
            removedSwitches.addAll(candidates.subList(0, plan.randomSwitches()));
        }
        Fabric result = fabric.withoutSwitches(removedSwitches);

        Set<Link> existing = new HashSet<>();
        for (Link l : result.links()) {
            existing.add(l.normalized());
        }
        List<Link> removedLinks = new ArrayList<>();
        for (Link l : plan.links()) {
            if (!existing.contains(l.normalized())) {
                boolean wasThere = false;
                for (Link f : fabric.links()) {
                    if (f.normalized().equals(l.normalized())) {
                        wasThere = true;
                        break;
                    }
                }
                if (!wasThere) {
                    throw new TopologyException("degradation: no link " + l + " in the fabric");
                }
                continue; // already gone with a removed switch
            }
            removedLinks.add(l);
        }
        result = result.withoutLinks(removedLinks);

        if (plan.linkFraction() > 0) {
            List<Link> switchLinks = new ArrayList<>();
            for (Link l : result.links()) {
                if (result.isSwitch(l.a()) && result.isSwitch(l.b())) {
                    switchLinks.add(l.normalized());
                }
            }
            switchLinks.sort(CANONICAL);
            shuffle(switchLinks, random);
            int count = (int) Math.round(plan.linkFraction() * switchLinks.size());
            result = result.withoutLinks(switchLinks.subList(0, count));
        }
        return result;
    }

    /** Fisher-Yates with {@link Random#nextInt(int)}, spelled out so the order never depends on library internals. */
    private static <T> void shuffle(List<T> list, Random random) {
        for (int i = list.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            T tmp = list.get(i);
            list.set(i, list.get(j));
            list.set(j, tmp);
        }
    }
}
