package org.fabricmanager.routing.dmodc;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Benchmark (not part of the test suite): what the index of the fabric after one fault costs, as the daemon derives
 * it ({@link Fabric#withChanges}, then {@link Fabric#index()}), at LMC 0, 1 and 2: one thread's CPU ms and the bytes
 * it allocates, medians over {@code fm.bench.faults} random faults of each kind (a cable between switches, a
 * switch of the top level), after a warm-up round.
 *
 * <p>Run with {@code mvn -B -o -q -Pbench -pl routing-dmodc -am test -Dsurefire.failIfNoSpecifiedTests=false
 * -Dtest=FaultIndexBenchmark -Dfm.bench=true [-Dfm.bench.pgft=SPEC] -Dfm.test.jvm=-Xmx6g}.
 */
@EnabledIfSystemProperty(named = "fm.bench", matches = "true")
class FaultIndexBenchmark {
    @Test
    void indexAfterOneFault() {
        Fabric intact = PgftGenerator.generate(PgftSpec.parse(System.getProperty("fm.bench.pgft",
                "PGFT(3;32,32,64;1,32,32;1,1,1)")));
        int faults = Integer.getInteger("fm.bench.faults", 9);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        List<Link> cables = new ArrayList<>();
        for (Link l : intact.links()) {
            if (intact.isSwitch(l.a()) && intact.isSwitch(l.b())) {
                cables.add(l);
            }
        }
        List<FabricSwitch> tops = new ArrayList<>();
        for (FabricSwitch s : intact.switches()) {
            if (RepairFaults.levelOf(s.guid()) == intact.pgft().orElseThrow().h()) {
                tops.add(s);
            }
        }
        System.out.println("fabric " + intact + ", " + faults + " faults of each kind");
        for (int round = 0; round < 2; round++) {
            for (int lmc = 0; lmc <= 2; lmc++) {
                Fabric fabric = intact.withLmc(lmc);
                fabric.index();
                Random random = new Random(lmc);
                double[][] ms = new double[2][faults];
                double[][] mb = new double[2][faults];
                for (int i = 0; i < faults; i++) {
                    Link cable = cables.get(random.nextInt(cables.size()));
                    long top = tops.get(random.nextInt(tops.size())).guid();
                    Fabric[] after = {fabric.withChanges(Set.of(), Set.of(), List.of(cable), List.of()),
                            fabric.withChanges(Set.of(top), Set.of(), List.of(), List.of())};
                    for (int k = 0; k < 2; k++) {
                        System.gc();
                        long bytes = mx.getCurrentThreadAllocatedBytes();
                        long cpu = mx.getCurrentThreadCpuTime();
                        after[k].index();
                        ms[k][i] = (mx.getCurrentThreadCpuTime() - cpu) / 1e6;
                        mb[k][i] = (mx.getCurrentThreadAllocatedBytes() - bytes) / 1e6;
                    }
                }
                if (round == 1) {
                    System.out.printf(Locale.ROOT, "LMC %d: cable %s ms, %s MB; top switch %s ms, %s MB%n", lmc,
                            spread(ms[0]), spread(mb[0]), spread(ms[1]), spread(mb[1]));
                }
            }
        }
    }

    /** Median (min-max). */
    private static String spread(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "%.1f (%.1f-%.1f)", s[s.length / 2], s[0], s[s.length - 1]);
    }
}
