package org.fabricmanager.routing.dmodc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.dmodc.plain.PlainDmodc;
import org.fabricmanager.routing.dmodc.preprocess.DmodcShortcuts;
import org.fabricmanager.testing.TestFabrics;
import org.fabricmanager.topology.DegradationPlan;
import org.fabricmanager.topology.Degrader;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every combination of {@link DmodcShortcuts} ({@code 2^k} engines) routes exactly the tables of
 * {@link PlainDmodc}, entry by entry, and re-routes after a fault exactly the tables {@link PlainDmodc}
 * gives for the new fabric. Combination {@code c} runs on case {@code c mod 7} (an odd count, so that
 * every case sees every shortcut on and off in about half its combinations); all shortcuts on and each
 * one off alone run on every case. The cases are small fabrics chosen so that each shortcut is taken
 * somewhere: degraded three-level PGFTs (busy shared sets, spliced pod sets, unreachable leaves merged
 * over, rotations, relatives with {@code relativesForAnyLeaf}), leaves of 32 nodes under dividers
 * of 32, an intact fabric, a two- and a four-level one and an irregular one (switches routed on their own);
 * the counts of {@link DmodcShortcuts#counting()} show that each shortcut was taken at least once.
 */
class DmodcShortcutsTest {
    private static final int CASES = 7;
    private static final List<Case> cases = new ArrayList<>();

    /** A fabric routed with the options, and a fault of it re-routed from that routing (null: none). */
    private record Case(String description, Fabric fabric, Expected expected, String fault, Fabric next,
                        Expected expectedNext, boolean relativesForAnyLeaf) {
        @Override
        public String toString() {
            return description;
        }
    }

    /** The plain engine's tables of a fabric, as rows, and its switch GUIDs. */
    private record Expected(ForwardingTables tables) {
        static Expected of(Fabric fabric) {
            PlainDmodc plain = new PlainDmodc(fabric);
            int[][] t = plain.tables();
            long[] guids = new long[t.length];
            byte[][] rows = new byte[t.length][];
            for (int s = 0; s < t.length; s++) {
                guids[s] = plain.switchGuid(s);
                rows[s] = new byte[t[s].length];
                for (int d = 0; d < t[s].length; d++) {
                    rows[s][d] = (byte) t[s][d];
                }
            }
            return new Expected(ForwardingTables.ofRows(guids, rows, plain.destinationCount()));
        }
    }

    @BeforeAll
    static void fabrics() {
        add("PGFT(3;4,4,12;1,4,4;1,1,1) minus 10% of links, seed 3", degraded("PGFT(3;4,4,12;1,4,4;1,1,1)", 0.10, 0, 3),
                Fault.LINK, 31, true);
        add("PGFT(3;32,2,3;1,32,1;1,1,1) minus 5% of links and a switch, seed 2",
                degraded("PGFT(3;32,2,3;1,32,1;1,1,1)", 0.05, 1, 2), Fault.SWITCH, 32, false);
        add("PGFT(3;4,4,16;1,4,4;1,1,2) minus 5% of links and a switch, seed 5",
                degraded("PGFT(3;4,4,16;1,4,4;1,1,2)", 0.05, 1, 5), Fault.SWITCH, 33, false);
        add("PGFT(3;4,4,8;1,4,4;1,1,1) intact", TestFabrics.canonical("PGFT(3;4,4,8;1,4,4;1,1,1)"), Fault.LINK, 34, false);
        add("PGFT(2;4,64;1,8;1,1) minus 8% of links, seed 4", degraded("PGFT(2;4,64;1,8;1,1)", 0.08, 0, 4), Fault.LINK,
                35, true);
        add("PGFT(4;2,4,4,4;1,2,2,2;1,1,2,1) minus 6% of links and a switch, seed 6",
                degraded("PGFT(4;2,4,4,4;1,2,2,2;1,1,2,1)", 0.06, 1, 6), Fault.LINK, 36, true);
        TestFabrics.Degraded irregular = TestFabrics.irregular(TestFabrics.MEDIUM_SPECS, 3).get(2);
        add(irregular.description(), irregular.fabric(), Fault.LINK, 37, false);
        assertThat(cases).hasSize(CASES);
    }

    private enum Fault { LINK, SWITCH }

    private static Fabric degraded(String spec, double links, int switches, long seed) {
        return Degrader.degrade(PgftGenerator.generate(PgftSpec.parse(spec)), DegradationPlan.random(links, switches, seed));
    }

    private static void add(String description, Fabric fabric, Fault fault, long seed, boolean relativesForAnyLeaf) {
        Random random = new Random(seed);
        Fabric next;
        String what;
        if (fault == Fault.LINK) {
            List<Link> between = new ArrayList<>();
            for (Link l : fabric.links()) {
                if (fabric.isSwitch(l.a()) && fabric.isSwitch(l.b())) {
                    between.add(l);
                }
            }
            Link lost = between.get(random.nextInt(between.size()));
            next = fabric.withoutLinks(List.of(lost));
            what = "link " + Guids.format(lost.a()) + "/" + lost.aPort() + " - " + Guids.format(lost.b()) + "/" + lost.bPort();
        } else {
            // a switch with no node: not a leaf
            List<Long> inner = new ArrayList<>();
            List<Long> withNodes = new ArrayList<>();
            for (Link l : fabric.links()) {
                if (fabric.isNode(l.a())) {
                    withNodes.add(l.b());
                } else if (fabric.isNode(l.b())) {
                    withNodes.add(l.a());
                }
            }
            fabric.switches().forEach(sw -> {
                if (!withNodes.contains(sw.guid())) {
                    inner.add(sw.guid());
                }
            });
            long lost = inner.get(random.nextInt(inner.size()));
            next = fabric.withoutSwitches(List.of(lost));
            what = "switch " + Guids.format(lost);
        }
        cases.add(new Case(description, fabric, Expected.of(fabric), what, next, Expected.of(next), relativesForAnyLeaf));
    }

    @Test
    void everyCombinationOfShortcutsRoutesAndReroutesExactlyThePlainTables() {
        int k = DmodcShortcuts.count();
        long[] taken = new long[k];
        long[][] takenByCase = new long[CASES][k];
        long[] nanos = new long[CASES];
        int combinations = 1 << k;
        int all = combinations - 1;
        for (int c = 0; c < combinations; c++) {
            long t0 = System.nanoTime();
            run(c, cases.get(c % CASES), taken, takenByCase[c % CASES]);
            nanos[c % CASES] += System.nanoTime() - t0;
        }
        // All on, and each one off alone, on every case.
        for (int i = -1; i < k; i++) {
            int c = i < 0 ? all : all & ~(1 << i);
            for (int f = 0; f < CASES; f++) {
                if (c % CASES != f) {
                    run(c, cases.get(f), taken, takenByCase[f]);
                }
            }
        }
        StringBuilder report = new StringBuilder("shortcut | taken in total | per case\n");
        for (DmodcShortcuts.Shortcut s : DmodcShortcuts.Shortcut.values()) {
            report.append(s.option()).append(" | ").append(taken[s.ordinal()]).append(" |");
            for (int f = 0; f < CASES; f++) {
                report.append(' ').append(takenByCase[f][s.ordinal()]);
            }
            report.append('\n');
        }
        report.append("milliseconds per case:");
        for (int f = 0; f < CASES; f++) {
            report.append(' ').append(nanos[f] / 1_000_000);
        }
        System.out.println(report);
        for (DmodcShortcuts.Shortcut s : DmodcShortcuts.Shortcut.values()) {
            assertThat(taken[s.ordinal()]).as("times %s was taken\n%s", s.option(), report).isPositive();
        }
    }

    /** Combination {@code c} on {@code fabric}: routed, then re-routed after its fault; counts what was taken. */
    private static void run(int c, Case fabric, long[] taken, long[] takenHere) {
        DmodcShortcuts shortcuts = DmodcShortcuts.of(c).counting();
        String what = fabric + " with " + shortcuts + " (combination " + c + ")";
        try (DmodcEngine engine = new DmodcEngine(1, fabric.relativesForAnyLeaf(), shortcuts)) {
            DmodcRouting routing = engine.compute(fabric.fabric().index());
            assertSame(what, fabric.expected().tables(), routing.result().tables());
            DmodcRouting rerouted = engine.reroute(fabric.next().index(), routing);
            assertSame(what + ", re-routed after losing " + fabric.fault(), fabric.expectedNext().tables(),
                    rerouted.result().tables());
        }
        for (DmodcShortcuts.Shortcut s : DmodcShortcuts.Shortcut.values()) {
            long n = shortcuts.taken(s);
            taken[s.ordinal()] += n;
            takenHere[s.ordinal()] += n;
        }
    }

    private static void assertSame(String what, ForwardingTables expected, ForwardingTables actual) {
        assertThat(actual.switchCount()).as(what).isEqualTo(expected.switchCount());
        assertThat(actual.destinationCount()).as(what).isEqualTo(expected.destinationCount());
        for (int s = 0; s < expected.switchCount(); s++) {
            if (actual.switchGuid(s) != expected.switchGuid(s)) {
                throw new AssertionError(what + ": switch " + s + " is " + Guids.format(actual.switchGuid(s))
                        + ", plain engine has " + Guids.format(expected.switchGuid(s)));
            }
            if (!actual.rowEquals(s, expected, s)) {
                int d = actual.mismatch(s, expected, s, 0);
                throw new AssertionError(what + ": switch " + Guids.format(expected.switchGuid(s)) + " destination " + d
                        + ": engine port " + actual.port(s, d) + ", plain engine " + expected.port(s, d));
            }
        }
    }
}
