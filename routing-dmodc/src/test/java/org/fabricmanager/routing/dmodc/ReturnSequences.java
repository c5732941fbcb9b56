package org.fabricmanager.routing.dmodc;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;

/**
 * Random sequences of faults and returns on a whole fabric: switches above the leaves and cables between switches
 * fail and come back, drawn from a seed. Each step is the fabric with the elements out at that moment; a sequence
 * ends with every element back, so its last fabric is the whole one again.
 */
final class ReturnSequences {
    private ReturnSequences() {
    }

    /** One step: what happened ("-" a fault, "+" a return, and the element) and the fabric after it. */
    record Step(String what, boolean isReturn, Fabric fabric) {
    }

    /**
     * {@code faults} faults and as many returns in a random order (a return only of an element that is out), then
     * the elements still out back one by one in reverse order of their faults.
     */
    static List<Step> of(Fabric whole, int faults, Random random) {
        List<Object> elements = new ArrayList<>();
        for (FabricSwitch s : whole.switches()) {
            if (RepairFaults.levelOf(s.guid()) >= 2) {
                elements.add(s.guid());
            }
        }
        for (Link l : whole.links()) {
            if (whole.isSwitch(l.a()) && whole.isSwitch(l.b())) {
                elements.add(l);
            }
        }
        List<Object> out = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        int done = 0;
        while (done < faults || !out.isEmpty()) {
            boolean fault = done < faults && (out.isEmpty() || random.nextInt(3) != 0);
            if (fault) {
                Object e = elements.get(random.nextInt(elements.size()));
                if (out.contains(e)) {
                    continue;
                }
                out.add(e);
                done++;
                steps.add(new Step("-" + name(e), false, without(whole, out)));
            } else {
                Object e = done < faults ? out.get(random.nextInt(out.size())) : out.get(out.size() - 1);
                out.remove(e);
                steps.add(new Step("+" + name(e), true, without(whole, out)));
            }
        }
        return steps;
    }

    private static String name(Object element) {
        return element instanceof Long guid ? "switch " + Long.toHexString(guid) : "cable " + element;
    }

    /** The whole fabric without the elements {@code out}. */
    static Fabric without(Fabric whole, List<Object> out) {
        Set<Long> switches = new LinkedHashSet<>();
        List<Link> links = new ArrayList<>();
        for (Object e : out) {
            if (e instanceof Long guid) {
                switches.add(guid);
            } else {
                links.add((Link) e);
            }
        }
        return whole.withoutLinks(links).withoutSwitches(switches);
    }
}
