package org.fabricmanager.daemon.opensm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.fabricmanager.opensm.OpenSmLfts;
import org.fabricmanager.opensm.OpenSmTables;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.Link;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the plug-in holds after taking each answer (whole tables or a delta against what it holds) equals the whole
 * tables of a fresh {@link OpenSmLfts#byLid}, over random sequences of handed ports, cables lost and back, LIDs
 * reassigned and answers the plug-in did not take; an answer not taken makes the next one whole.
 */
class OpenSmAnswersTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void theTablesThePluginComposesEqualWholeTables(long seed) throws Exception {
        Random random = new Random(seed);
        Fabric whole = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)"));
        List<Link> cables = new ArrayList<>();
        for (Link l : whole.links()) {
            if (whole.isSwitch(l.a()) && whole.isSwitch(l.b())) {
                cables.add(l);
            }
        }
        List<Link> down = new ArrayList<>();
        OpenSmAnswers answers = new OpenSmAnswers();
        Plugin plugin = new Plugin();
        byte[][] handed = null;
        Map<Long, Integer> lidOf = sequentialLids(whole);
        int deltas = 0;
        int wholeAfterMiss = 0;
        for (long seq = 1; seq <= 80; seq++) {
            int kind = random.nextInt(10);
            if (kind < 3) {
                Link l = cables.get(random.nextInt(cables.size()));
                if (down.contains(l)) {
                    down.remove(l);
                } else {
                    down.add(l);
                }
            } else if (kind == 3) {
                List<Long> guids = new ArrayList<>(lidOf.keySet());
                long a = guids.get(random.nextInt(guids.size()));
                long b = guids.get(random.nextInt(guids.size()));
                int la = lidOf.get(a);
                lidOf.put(a, lidOf.get(b));
                lidOf.put(b, la);
            }
            Fabric fabric = whole.withoutLinks(down);
            FabricIndex index = fabric.index();
            handed = handed(index, handed, random);
            long[] guids = new long[index.switchCount()];
            for (int s = 0; s < guids.length; s++) {
                guids[s] = index.switchGuid(s);
            }
            LidPlan lids = new LidPlan(lidOf, Map.of());
            byte[][] rows = handed;
            boolean missed = plugin.held != 0 && random.nextInt(6) == 0;
            OpenSmAnswer answer = answers.answer(seq, plugin.held, fabric, guids, rows, lids);
            ByteBuffer frame = answer.encode();
            int type = answer instanceof OpenSmAnswer.Delta ? OpenSmWire.DELTA : OpenSmWire.TABLES;
            if (plugin.missedLast) {
                assertThat(type).as("the answer after one the plug-in did not take").isEqualTo(OpenSmWire.TABLES);
                wholeAfterMiss++;
            }
            plugin.missedLast = missed;
            if (missed) {
                continue;
            }
            deltas += type == OpenSmWire.DELTA ? 1 : 0;
            plugin.take(frame);
            byte[][] expected = OpenSmLfts.byLid(fabric, ForwardingTables.ofRows(guids, copy(handed), handed[0].length),
                    OpenSmTables.switchRoutes(fabric, lids), lids);
            for (int s = 0; s < guids.length; s++) {
                assertThat(plugin.rows.get(guids[s])).as("pass %d, switch %d", seq, s).isEqualTo(expected[s]);
            }
        }
        assertThat(deltas).as("answers that were deltas").isGreaterThan(20);
        assertThat(wholeAfterMiss).as("answers after a missed one").isPositive();
    }

    /** Each switch's ports by destination: random at first, then a few entries changed per pass. */
    private static byte[][] handed(FabricIndex index, byte[][] before, Random random) {
        int destinations = 0;
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            destinations = Math.max(destinations, index.nodeIndex(pos) + 1);
        }
        // as the sessions hand them: a row that does not change is the same array, a changed one a new array
        byte[][] rows = before == null ? new byte[index.switchCount()][destinations] : before.clone();
        boolean[] copied = new boolean[rows.length];
        int changes = before == null ? index.switchCount() * destinations : random.nextInt(12);
        for (int i = 0; i < changes; i++) {
            int s = before == null ? i / destinations : random.nextInt(rows.length);
            int d = before == null ? i % destinations : random.nextInt(destinations);
            if (before != null && !copied[s]) {
                rows[s] = rows[s].clone();
                copied[s] = true;
            }
            rows[s][d] = (byte) (random.nextInt(5) == 0 ? ForwardingTables.NO_ROUTE : 1 + random.nextInt(6));
        }
        return rows;
    }

    private static byte[][] copy(byte[][] rows) {
        byte[][] out = new byte[rows.length][];
        for (int i = 0; i < rows.length; i++) {
            out[i] = rows[i].clone();
        }
        return out;
    }

    private static Map<Long, Integer> sequentialLids(Fabric fabric) {
        Map<Long, Integer> lids = new HashMap<>();
        int lid = 1;
        for (var s : fabric.switches()) {
            lids.put(s.guid(), lid++);
        }
        for (var n : fabric.nodes()) {
            lids.put(n.guid(), lid++);
        }
        return lids;
    }

    /** The plug-in's fm_tables.c in Java: the tables it holds, whole answers taken as they are, deltas applied. */
    private static final class Plugin {
        long held;
        boolean missedLast;
        Map<Long, byte[]> rows = new HashMap<>();

        void take(ByteBuffer frame) {
            ByteBuffer b = frame.duplicate().position(OpenSmWire.HEADER_BYTES);
            int type = frame.get(5);
            b.getLong();
            long id = b.getLong();
            if (type == OpenSmWire.TABLES) {
                int count = b.getInt();
                int entries = b.getShort() & 0xffff;
                Map<Long, byte[]> next = new HashMap<>();
                for (int i = 0; i < count; i++) {
                    long guid = b.getLong();
                    byte[] row = new byte[entries];
                    b.get(row);
                    next.put(guid, row);
                }
                rows = next;
            } else {
                assertThat(type).isEqualTo(OpenSmWire.DELTA);
                assertThat(b.getLong()).as("base").isEqualTo(held);
                assertThat(b.getInt()).isEqualTo(rows.size());
                int entries = b.getShort() & 0xffff;
                Map<Long, byte[]> next = new HashMap<>();
                rows.forEach((guid, row) -> {
                    byte[] r = Arrays.copyOf(row, entries);
                    Arrays.fill(r, Math.min(row.length, entries), entries, (byte) ForwardingTables.NO_ROUTE);
                    next.put(guid, r);
                });
                int changed = b.getInt();
                for (int c = 0; c < changed; c++) {
                    byte[] row = next.get(b.getLong());
                    int n = b.getShort() & 0xffff;
                    for (int i = 0; i < n; i++) {
                        row[b.getShort() & 0xffff] = b.get();
                    }
                }
                assertThat(b.hasRemaining()).isFalse();
                rows = next;
            }
            held = id;
        }
    }
}
