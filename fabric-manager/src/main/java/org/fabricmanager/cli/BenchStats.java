package org.fabricmanager.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.routing.PhaseTimings;

/**
 * The timings of one engine in {@code bench}: the cold (first) run and, per phase and for the
 * total, the median, minimum and maximum over the warm runs.
 */
final class BenchStats {
    /** Median, minimum and maximum of one phase over the warm runs, in milliseconds. */
    record Spread(double medianMs, double minMs, double maxMs) {
        static Spread of(double[] values) {
            double[] v = values.clone();
            Arrays.sort(v);
            int n = v.length;
            double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            return new Spread(median, v[0], v[n - 1]);
        }
    }

    private final String engine;
    private final PhaseTimings cold;
    private final List<PhaseTimings> warm = new ArrayList<>();

    BenchStats(String engine, PhaseTimings cold) {
        this.engine = engine;
        this.cold = cold;
    }

    void addWarm(PhaseTimings timings) {
        warm.add(timings);
    }

    String engine() {
        return engine;
    }

    double coldMs() {
        return cold.totalMillis();
    }

    int warmRuns() {
        return warm.size();
    }

    /** {@code total} first, then each phase in the order the engine ran them. */
    Map<String, Spread> phases() {
        Map<String, Spread> out = new LinkedHashMap<>();
        double[] totals = new double[warm.size()];
        for (int i = 0; i < warm.size(); i++) {
            totals[i] = warm.get(i).totalMillis();
        }
        out.put("total", Spread.of(totals));
        for (PhaseTimings.Phase phase : cold.phases()) {
            double[] values = new double[warm.size()];
            for (int i = 0; i < warm.size(); i++) {
                values[i] = millisOf(warm.get(i), phase.name());
            }
            out.put(phase.name(), Spread.of(values));
        }
        return out;
    }

    private static double millisOf(PhaseTimings timings, String name) {
        for (PhaseTimings.Phase p : timings.phases()) {
            if (p.name().equals(name)) {
                return p.millis();
            }
        }
        return 0.0;
    }
}
