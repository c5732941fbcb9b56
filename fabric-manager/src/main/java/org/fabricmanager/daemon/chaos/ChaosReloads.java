package org.fabricmanager.daemon.chaos;

import java.util.ArrayList;
import java.util.List;
import org.fabricmanager.daemon.config.ConfigReload;
import org.fabricmanager.daemon.config.DaemonConfig;

/**
 * The configurations a {@link ChaosStep.Reload} reads again, each valid: variant 0 is the one the simulation started
 * with; the others change what a reload applies at run time (the settle windows, the flap quarantine's knobs), so
 * that the daemon goes on under other timings. A later restart or takeover reads the file as the last reload left it.
 */
final class ChaosReloads {
    /** How many variants there are. */
    static final int VARIANTS = 4;

    private ChaosReloads() {
    }

    /** Variant {@code variant} of {@code base}: 0 itself, 1 other settle windows, 2 another quarantine, 3 both. */
    static DaemonConfig variant(DaemonConfig base, int variant) {
        DaemonConfig.Routing r = base.routing();
        DaemonConfig.Faults f = base.faults();
        boolean settle = variant == 1 || variant == 3;
        boolean flaps = variant == 2 || variant == 3;
        DaemonConfig.Routing routing = new DaemonConfig.Routing(r.engine(), r.threads(), settle ? 150 : r.settleMs(),
                r.onFault(), r.rebalance());
        DaemonConfig.Faults faults = new DaemonConfig.Faults(settle ? 20 : f.settleMs(),
                flaps ? 2 : f.flapThreshold(), flaps ? 30_000 : f.flapWindowMs(), flaps ? 45_000 : f.quarantineMs(),
                f.detector());
        return new DaemonConfig(base.southbound(), base.rest(), base.fabric(), base.discovery(), routing, base.push(),
                base.state(), faults, base.security(), base.ha(), base.opensm(), base.linkHealth());
    }

    /**
     * What a reload from {@code running} to {@code read} must say it changed, judged here from the two configurations
     * and not by {@link ConfigReload}: each run-time knob that differs, nothing waiting for a restart. {@code null}
     * when {@code plan} says that, else what it says wrong.
     */
    static String wrong(DaemonConfig running, DaemonConfig read, ConfigReload plan) {
        List<String> differ = new ArrayList<>();
        knob(differ, "routing.settleMs", running.routing().settleMs(), read.routing().settleMs());
        knob(differ, "faults.settleMs", running.faults().settleMs(), read.faults().settleMs());
        knob(differ, "faults.flapThreshold", running.faults().flapThreshold(), read.faults().flapThreshold());
        knob(differ, "faults.flapWindowMs", running.faults().flapWindowMs(), read.faults().flapWindowMs());
        knob(differ, "faults.quarantineMs", running.faults().quarantineMs(), read.faults().quarantineMs());
        List<String> said = plan.changed().stream().map(c -> c.substring(0, c.indexOf(':'))).toList();
        if (!said.equals(differ) || !plan.needRestart().isEmpty()) {
            return "the reload says it changed " + plan.changed() + " and needs a restart for " + plan.needRestart()
                    + " where " + differ + " differ, all of them applied at run time";
        }
        if (!plan.effective().equals(read)) {
            return "the reload's configuration in force is not the one read";
        }
        return null;
    }

    private static void knob(List<String> differ, String name, int before, int after) {
        if (before != after) {
            differ.add(name);
        }
    }
}
