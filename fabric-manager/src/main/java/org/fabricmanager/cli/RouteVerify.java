package org.fabricmanager.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.routing.RoutingEngine;
import org.fabricmanager.routing.RoutingException;
import org.fabricmanager.routing.RoutingResult;
import org.fabricmanager.routing.dmodc.DmodcEngine;
import org.fabricmanager.routing.dmodc.plain.PlainDmodcEngine;
import org.fabricmanager.routing.engines.RoutingEngines;
import org.fabricmanager.topology.FabricIndex;

/**
 * {@code route --verify}: routes the operator's fabric with {@code dmodc} and with {@code dmodc-plain} (the
 * paper's algorithm written plainly, sharing no code with the engine) and compares the tables entry by entry.
 * Any difference is a bug in the fast engine's shortcuts; the first few are named so that it can be reported.
 */
final class RouteVerify {
    /** Differences named in the report; the rest are only counted. */
    static final int EXAMPLES = 10;

    /** One entry on which the engines disagree. */
    record Difference(long switchGuid, int destination, int dmodc, int plain) {
    }

    /** The comparison: entries compared, how many differ, the first few, and each engine's time. */
    record Report(long entries, long differing, int switches, List<Difference> examples, double dmodcMillis,
                  double plainMillis) {
    }

    private RouteVerify() {
    }

    /** Routes {@code index} with both engines ({@code dmodc} on {@code threads} threads) and compares. */
    static Report verify(FabricIndex index, int threads) {
        RoutingResult fast;
        RoutingResult plain;
        try (RoutingEngine dmodc = RoutingEngines.create(DmodcEngine.NAME, threads);
             RoutingEngine reference = RoutingEngines.create(PlainDmodcEngine.NAME, 1)) {
            fast = dmodc.route(index);
            plain = reference.route(index);
        } catch (RoutingException e) {
            throw new UsageException("route: " + e.getMessage(), e);
        }
        return compare(fast, plain);
    }

    /** Entry-by-entry comparison of two results for the same fabric. */
    static Report compare(RoutingResult fast, RoutingResult plain) {
        ForwardingTables a = fast.tables();
        ForwardingTables b = plain.tables();
        if (a.switchCount() != b.switchCount() || a.destinationCount() != b.destinationCount()) {
            throw new IllegalStateException("route --verify: the engines' tables differ in shape: " + a.switchCount()
                    + "x" + a.destinationCount() + " against " + b.switchCount() + "x" + b.destinationCount());
        }
        long differing = 0;
        int switches = 0;
        List<Difference> examples = new ArrayList<>();
        for (int s = 0; s < a.switchCount(); s++) {
            boolean differs = false;
            for (int d = a.mismatch(s, b, s, 0); d >= 0; d = a.mismatch(s, b, s, d + 1)) {
                differing++;
                differs = true;
                if (examples.size() < EXAMPLES) {
                    examples.add(new Difference(a.switchGuid(s), d, a.port(s, d), b.port(s, d)));
                }
            }
            switches += differs ? 1 : 0;
        }
        return new Report((long) a.switchCount() * a.destinationCount(), differing, switches, examples,
                fast.timings().totalMillis(), plain.timings().totalMillis());
    }

    /** The report as the CLI prints it, one line each. */
    static List<String> lines(Report r) {
        List<String> out = new ArrayList<>();
        String times = String.format(Locale.ROOT, "(dmodc %.1f ms, dmodc-plain %.1f ms)", r.dmodcMillis(), r.plainMillis());
        if (r.differing() == 0) {
            out.add("route: verify: 0 differences: dmodc and dmodc-plain agree on all " + r.entries() + " entries " + times);
            return out;
        }
        out.add("route: verify: " + r.differing() + " of " + r.entries() + " entries differ, on " + r.switches()
                + " switches " + times);
        for (Difference d : r.examples()) {
            out.add(String.format(Locale.ROOT, "route: verify: switch 0x%016x destination %d: dmodc port %d, dmodc-plain port %d",
                    d.switchGuid(), d.destination(), d.dmodc(), d.plain()));
        }
        return out;
    }
}
