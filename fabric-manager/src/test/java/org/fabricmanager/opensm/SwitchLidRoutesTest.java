package org.fabricmanager.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SwitchLidRoutesTest {

    @ParameterizedTest(name = "{0} with {1} of the links removed")
    @CsvSource(delimiter = '|', value = {"PGFT(3;4,4,4;1,4,4;1,1,1)|0", "PGFT(3;4,4,4;1,4,4;1,1,1)|0.1",
        "PGFT(3;4,4,8;1,4,2;1,2,2)|0.05"})
    void everySwitchReachesEverySwitchOnAShortestPath(String spec, double removed) {
        Fabric fabric = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)), DegradationPlan.random(removed, 0, 7L));
        FabricIndex index = fabric.index();
        byte[][] routes = OpenSmTables.switchRoutes(fabric, LidPlan.sequential(fabric));
        int n = index.switchCount();
        for (int t = 0; t < n; t++) {
            int[] distance = distances(index, t);
            for (int s = 0; s < n; s++) {
                if (distance[s] < 0) {
                    assertThat(routes[t][s] & 0xff).isEqualTo(255);
                    continue;
                }
                int at = s;
                int hops = 0;
                while (at != t) {
                    int port = routes[t][at] & 0xff;
                    at = index.peerSwitches(at)[port];
                    hops++;
                    assertThat(hops).as("from %d to %d", s, t).isLessThanOrEqualTo(distance[s]);
                }
                assertThat(hops).isEqualTo(distance[s]);
                assertThat(routes[t][t]).isZero();
            }
        }
    }

    private static int[] distances(FabricIndex index, int t) {
        int[] d = new int[index.switchCount()];
        java.util.Arrays.fill(d, -1);
        d[t] = 0;
        java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>(java.util.List.of(t));
        while (!queue.isEmpty()) {
            int u = queue.poll();
            for (int v : index.peerSwitches(u)) {
                if (v != FabricIndex.NONE && d[v] < 0) {
                    d[v] = d[u] + 1;
                    queue.add(v);
                }
            }
        }
        return d;
    }
}
