package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.util.List;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.LftText;
import org.fabricmanager.routing.PhaseTimings;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.Validity;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.junit.jupiter.api.Test;

class RouteVerifyTest {
    @Test
    void dmodcAndThePlainEngineAgreeOnGeneratedAndDegradedFabrics() {
        for (String spec : List.of("PGFT(3;2,2,3;1,2,2;1,2,1)", "PGFT(3;4,4,4;1,4,4;1,1,1)", "PGFT(2;8,8;1,4;1,2)")) {
            for (String degrade : List.of("0", "0.05", "0.2")) {
                for (String seed : List.of("1", "2", "3")) {
                    CliRun run = CliRun.of("route", "--pgft", spec, "--degrade-links", degrade, "--seed", seed,
                            "--verify", "--threads", "2");
                    assertThat(run.exitCode()).as(spec + " " + degrade + " " + seed + ": " + run.out() + run.err()).isZero();
                    assertThat(run.out()).as(spec).startsWith("route: verify: 0 differences: dmodc and dmodc-plain agree on all ");
                }
            }
        }
    }

    @Test
    void theEngineDmodcPlainWritesDmodcsTables() throws Exception {
        String spec = "PGFT(3;4,4,4;1,4,4;1,1,1)";
        CliRun plain = CliRun.of("route", "--pgft", spec, "--degrade-links", "0.1", "--seed", "7", "--engine", "dmodc-plain");
        CliRun dmodc = CliRun.of("route", "--pgft", spec, "--degrade-links", "0.1", "--seed", "7", "--engine", "dmodc");

        assertThat(plain.exitCode()).as(plain.err()).isIn(ExitCodes.OK, ExitCodes.BAD_INPUT);
        assertThat(plain.exitCode()).isEqualTo(dmodc.exitCode());
        assertThat(plain.out()).startsWith("# lft-text/1 engine=dmodc-plain ");
        ForwardingTables a = LftText.read(new StringReader(plain.out()), "plain");
        ForwardingTables b = LftText.read(new StringReader(dmodc.out()), "dmodc");
        assertThat(a.sameAs(b)).isTrue();
        assertThat(plain.err()).contains("route: dmodc-plain: ").contains("cost+divider", "routes", "validity");
    }

    @Test
    void differencesAreCountedAndTheFirstNamed() {
        FabricIndex index = PgftGenerator.generate(PgftSpec.parse("PGFT(3;4,4,4;1,4,4;1,1,1)")).index();
        ForwardingTables tables;
        try (DmodcEngine engine = new DmodcEngine(1)) {
            tables = engine.route(index).tables();
        }
        long[] guids = new long[tables.switchCount()];
        ForwardingTables.Builder damaged = ForwardingTables.builder(guids, tables.destinationCount());
        int changed = 0;
        for (int s = 0; s < tables.switchCount(); s++) {
            guids[s] = tables.switchGuid(s);
            for (int d = 0; d < tables.destinationCount(); d++) {
                boolean damage = s % 5 == 1 && d % 7 == 3;
                // p % 4 + 1 differs from p for every port p, 255 (no route) included
                damaged.set(s, d, damage ? tables.port(s, d) % 4 + 1 : tables.port(s, d));
                changed += damage ? 1 : 0;
            }
        }
        PhaseTimings none = new PhaseTimings(List.of());
        RouteVerify.Report report = RouteVerify.compare(new RoutingResult("dmodc", tables, Validity.valid(), none),
                new RoutingResult("dmodc-plain", damaged.build(), Validity.valid(), none));

        assertThat(report.differing()).isEqualTo(changed).isPositive();
        assertThat(report.examples()).hasSize(RouteVerify.EXAMPLES);
        assertThat(report.examples().get(0).destination()).isEqualTo(3);
        assertThat(RouteVerify.lines(report).get(0)).startsWith("route: verify: " + changed + " of ");
        assertThat(RouteVerify.lines(report)).hasSize(1 + RouteVerify.EXAMPLES);
    }
}
