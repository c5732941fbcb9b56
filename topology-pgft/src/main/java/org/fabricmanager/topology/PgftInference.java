package org.fabricmanager.topology;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.topology.PgftRecognition.Kind;
import org.fabricmanager.topology.PgftRecognition.Problem;

/**
 * Infers the PGFT of an intact fat tree from its structure: {@code h} from the levels, {@code m_l}
 * from the distinct children of level-l switches (nodes per leaf for {@code m1}), {@code w_l} from
 * the distinct parents of level-(l-1) switches and {@code p_l} from the cables per child-parent pair.
 * Each of these must be the same everywhere; the first place where it is not is reported.
 */
final class PgftInference {
    /** The inferred spec, or the reasons why there is none. */
    record Result(PgftSpec spec, List<Problem> reasons, boolean miswired) {
    }

    private PgftInference() {
    }

    static Result infer(Fabric fabric) {
        FabricIndex index = fabric.index();
        int n = index.switchCount();
        List<Problem> miswired = new ArrayList<>();
        if (index.leafCount() == 0) {
            return irregular("no switch has end nodes attached, so there are no leaves");
        }
        int[] level = SwitchLevels.of(index, null).level;
        int h = 0;
        for (int s = 0; s < n; s++) {
            if (level[s] == 0) {
                return irregular("switch " + Describe.device(fabric, index.switchGuid(s)) + " is not connected to any leaf");
            }
            h = Math.max(h, level[s]);
        }
        for (Link link : fabric.links()) {
            int a = index.switchId(link.a());
            int b = index.switchId(link.b());
            if (a == FabricIndex.NONE && b == FabricIndex.NONE) {
                miswired.add(problem(Kind.NODE_TO_NODE, Describe.link(fabric, link) + " joins two end nodes", link));
            } else if (a != FabricIndex.NONE && b != FabricIndex.NONE && level[a] == level[b]) {
                miswired.add(problem(level[a] == 1 ? Kind.LEAF_TO_LEAF : Kind.SAME_LEVEL, Describe.link(fabric, link)
                        + " joins two level-" + level[a] + " switches", link));
            }
        }
        if (!miswired.isEmpty()) {
            return new Result(null, miswired, true);
        }
        int[] m = new int[h];
        int[] w = new int[h];
        int[] p = new int[h];
        w[0] = 1;
        p[0] = 1;
        Uniform nodes = new Uniform("end nodes per leaf");
        Uniform[] children = new Uniform[h + 1];
        Uniform[] parents = new Uniform[h + 1];
        Uniform[] parallel = new Uniform[h + 1];
        for (int l = 2; l <= h; l++) {
            children[l] = new Uniform("children of a level-" + l + " switch");
            parents[l] = new Uniform("parents of a level-" + (l - 1) + " switch");
            parallel[l] = new Uniform("links between a level-" + (l - 1) + " switch and each parent");
        }
        for (int s = 0; s < n; s++) {
            int l = level[s];
            String who = Describe.device(fabric, index.switchGuid(s));
            if (l == 1) {
                int count = 0;
                for (int node : index.peerNodes(s)) {
                    if (node != FabricIndex.NONE) {
                        count++;
                    }
                }
                if (!nodes.see(count, who)) {
                    return irregular(nodes.reason);
                }
            }
            int down = 0;
            int up = 0;
            for (int g = index.groupStart(s); g < index.groupStart(s + 1); g++) {
                int t = index.groupNeighbour(g);
                if (level[t] < l) {
                    down++;
                } else {
                    up++;
                    if (!parallel[l + 1].see(index.groupSize(g), who)) {
                        return irregular(parallel[l + 1].reason);
                    }
                }
            }
            if (l >= 2 && !children[l].see(down, who)) {
                return irregular(children[l].reason);
            }
            if (l < h && !parents[l + 1].see(up, who)) {
                return irregular(parents[l + 1].reason);
            }
        }
        m[0] = nodes.value;
        for (int l = 2; l <= h; l++) {
            m[l - 1] = children[l].value;
            w[l - 1] = parents[l].value;
            p[l - 1] = parallel[l].value;
        }
        try {
            return new Result(PgftSpec.of(m, w, p), List.of(), false);
        } catch (TopologyException e) {
            return irregular(e.getMessage());
        }
    }

    /** A count that must be the same for every switch of a kind. */
    private static final class Uniform {
        private final String what;
        int value = -1;
        String reason;

        Uniform(String what) {
            this.what = what;
        }

        boolean see(int v, String who) {
            if (value == -1) {
                value = v;
                return true;
            }
            if (value != v) {
                reason = what + " differ: " + who + " has " + v + ", others " + value;
                return false;
            }
            return true;
        }
    }

    private static Result irregular(String why) {
        return new Result(null, List.of(new Problem(Kind.IRREGULAR, why, List.of(), List.of())), false);
    }

    private static Problem problem(Kind kind, String detail, Link link) {
        return Problems.ofLink(kind, detail, link);
    }
}
