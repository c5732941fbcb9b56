package org.fabricmanager.daemon.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

/**
 * The fingerprint decides whether stored routing is reused: on random degraded fabrics it must not
 * depend on how the fabric was written down (order of lists, direction of links, names), and it must
 * change with every routing input (a link, a node's index, a switch's port count, the engine).
 */
class FabricFingerprintTest {
    private static final String[] SPECS = {"PGFT(2;4,4;1,2;1,1)", "PGFT(3;4,4,4;1,4,4;1,1,1)",
            "PGFT(3;4,4,8;1,4,2;1,2,1)", "PGFT(2;8,16;1,8;1,2)"};

    @Test
    void ignoresHowTheFabricIsWrittenDown() {
        for (long seed = 1; seed <= 30; seed++) {
            Random random = new Random(seed);
            Fabric f = fabric(random, seed);
            assertThat(FabricFingerprint.of(rewritten(f, random), "dmodc")).as("seed %d", seed)
                    .isEqualTo(FabricFingerprint.of(f, "dmodc"));
        }
    }

    @Test
    void changesWithEveryRoutingInput() {
        for (long seed = 1; seed <= 30; seed++) {
            Random random = new Random(seed);
            Fabric f = fabric(random, seed);
            String fp = FabricFingerprint.of(f, "dmodc");
            Link cut = f.links().get(random.nextInt(f.links().size()));
            assertThat(FabricFingerprint.of(f.withoutLinks(List.of(cut)), "dmodc")).as("seed %d, without %s", seed, cut)
                    .isNotEqualTo(fp);
            List<EndNode> nodes = new ArrayList<>(f.nodes());
            int i = random.nextInt(nodes.size());
            EndNode n = nodes.get(i);
            int unused = nodes.stream().mapToInt(EndNode::index).max().orElseThrow() + 1;
            nodes.set(i, new EndNode(n.guid(), n.name(), unused));
            assertThat(FabricFingerprint.of(new Fabric(null, f.switches(), nodes, f.links()), "dmodc"))
                    .as("seed %d, node %d renumbered", seed, i).isNotEqualTo(fp);
            List<FabricSwitch> switches = new ArrayList<>(f.switches());
            int j = random.nextInt(switches.size());
            FabricSwitch s = switches.get(j);
            switches.set(j, new FabricSwitch(s.guid(), s.name(), s.ports() + 1));
            assertThat(FabricFingerprint.of(new Fabric(null, switches, f.nodes(), f.links()), "dmodc"))
                    .as("seed %d, switch %d with one more port", seed, j).isNotEqualTo(fp);
            assertThat(FabricFingerprint.of(f, "minhop")).isNotEqualTo(fp);
        }
    }

    private static Fabric fabric(Random random, long seed) {
        Fabric f = PgftGenerator.generate(PgftSpec.parse(SPECS[random.nextInt(SPECS.length)]));
        return Degrader.degrade(f, DegradationPlan.random(random.nextDouble() * 0.2, random.nextInt(2), seed));
    }

    /** The same fabric: lists shuffled, links written either way round, switches renamed. */
    private static Fabric rewritten(Fabric f, Random random) {
        List<FabricSwitch> switches = new ArrayList<>();
        for (FabricSwitch s : f.switches()) {
            switches.add(new FabricSwitch(s.guid(), s.name() + "-renamed", s.ports()));
        }
        List<EndNode> nodes = new ArrayList<>(f.nodes());
        List<Link> links = new ArrayList<>();
        for (Link l : f.links()) {
            links.add(random.nextBoolean() ? l : new Link(l.b(), l.bPort(), l.a(), l.aPort()));
        }
        Collections.shuffle(switches, random);
        Collections.shuffle(nodes, random);
        Collections.shuffle(links, random);
        return new Fabric(null, switches, nodes, links);
    }
}
