package org.fabricmanager.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fabricmanager.routing.vtftr.VtftrEngine;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.HdftGenerator;
import org.fabricmanager.topology.HdftSpec;
import org.fabricmanager.topology.LeafFailures;
import org.fabricmanager.topology.TopologyException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VcTextTest {
    @TempDir
    Path dir;

    private static ForwardingTables vtftrTables() {
        Fabric fabric = LeafFailures.fail(HdftGenerator.generate(HdftSpec.parse("HDFT(4x4;2;1;1)")), 2, 3);
        try (VtftrEngine engine = new VtftrEngine(1)) {
            return engine.route(fabric.index()).tables();
        }
    }

    @Test
    void rulesWrittenBesideTheTablesReadBackEqual() {
        ForwardingTables tables = vtftrTables();
        Path lft = dir.resolve("f.lft");
        Path vc = VcText.writeWithTables(tables, "vtftr", lft);
        assertThat(vc).isEqualTo(dir.resolve("f.lft.vc")).exists();
        ForwardingTables read = VcText.readWithTables(lft);
        assertThat(read.vcRules()).isPresent().isEqualTo(tables.vcRules());
        assertThat(read.sameAs(tables)).isTrue();
    }

    @Test
    void writesOneLetterPerPortAndTheTransitions() throws Exception {
        ForwardingTables tables = vtftrTables();
        StringWriter w = new StringWriter();
        VcText.write(tables, tables.vcRules().orElseThrow(), "vtftr", w);
        String text = w.toString();
        assertThat(text).startsWith("# vc-text/1 engine=vtftr switches=" + tables.switchCount() + " vcs=2\n");
        assertThat(text).contains(" column>row=1\n");
        assertThat(text.lines().skip(1).map(l -> l.split(" ")[1]).allMatch(c -> c.matches("[onlrc]+|-"))).isTrue();
    }

    @Test
    void tablesWithoutRulesLeaveNoRulesFile() throws Exception {
        ForwardingTables tables = vtftrTables();
        Path lft = dir.resolve("g.lft");
        Files.writeString(VcText.besides(lft), "stale");
        ForwardingTables plain = ForwardingTables.ofRows(guids(tables), rows(tables), tables.destinationCount());
        assertThat(VcText.writeWithTables(plain, "minhop", lft)).isNull();
        assertThat(VcText.besides(lft)).doesNotExist();
        assertThat(VcText.readWithTables(lft).vcRules()).isEmpty();
    }

    @Test
    void badLinesAreRefusedWithFileAndLine() {
        ForwardingTables tables = vtftrTables();
        String guid = org.fabricmanager.topology.Guids.format(tables.switchGuid(0));
        assertThatThrownBy(() -> VcText.read(new StringReader(guid + " nnx\n"), "r.vc", tables))
                .isInstanceOf(TopologyException.class).hasMessageContaining("r.vc:1: no '# vc-text/1");
        assertThatThrownBy(() -> VcText.read(new StringReader("# vc-text/1 vcs=2\n" + guid + " nnx\n"), "r.vc", tables))
                .hasMessageContaining("r.vc:2: port 3 of switch " + guid + " has class 'x'");
        assertThatThrownBy(() -> VcText.read(new StringReader("# vc-text/1 vcs=2\n" + guid + " nn column>row=2\n"), "r.vc",
                tables)).hasMessageContaining("r.vc:2: transition 'column>row=2' uses channel 2, the header gives 2");
        assertThatThrownBy(() -> VcText.read(new StringReader("# vc-text/1 vcs=2\n" + guid + " nn up>row=1\n"), "r.vc",
                tables)).hasMessageContaining("r.vc:2: 'up>row=1' is not a transition");
        assertThatThrownBy(() -> VcText.read(new StringReader("# vc-text/1 vcs=2\n" + guid + " nn\n"), "r.vc", tables))
                .hasMessageContaining("r.vc: switch ").hasMessageContaining(" of the tables has no line");
        assertThatThrownBy(() -> VcText.read(new StringReader("# vc-text/1 vcs=2\n0x00000000000000ff nn\n"), "r.vc",
                tables)).hasMessageContaining("r.vc:2: switch 0x00000000000000ff is not in the tables");
    }

    private static long[] guids(ForwardingTables t) {
        long[] g = new long[t.switchCount()];
        for (int s = 0; s < g.length; s++) {
            g[s] = t.switchGuid(s);
        }
        return g;
    }

    private static byte[][] rows(ForwardingTables t) {
        byte[][] r = new byte[t.switchCount()][t.destinationCount()];
        for (int s = 0; s < r.length; s++) {
            for (int d = 0; d < t.destinationCount(); d++) {
                r[s][d] = (byte) t.port(s, d);
            }
        }
        return r;
    }
}
