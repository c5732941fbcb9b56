package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.overlay.Overlay;
import org.fabricmanager.detector.sim.ExperimentResult;
import org.fabricmanager.detector.sim.ExperimentSpec;
import org.fabricmanager.detector.sim.FailureExperiment;
import org.fabricmanager.detector.sim.SimulationConfig;

/**
 * {@code detector-sim}: crashes K members of a simulated N-member ring failure detector at one
 * instant and prints detection and stabilisation times next to the paper's bound T(f), with the
 * message cost per member and per broadcast. Virtual time; deterministic for a seed.
 */
final class DetectorSimCommand implements Command {
    static final int MAX_MEMBERS = 65_536;
    static final int DEFAULT_ETA_MS = 10;
    static final int DEFAULT_DELTA_MS = 100;
    static final int DEFAULT_TAU_US = 100;

    @Override
    public String name() {
        return "detector-sim";
    }

    @Override
    public String summary() {
        return "simulate the ring failure detector: detection and stabilisation vs the paper's bound";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager detector-sim --members N --fail K [--consecutive] --overlay hypercube|bmg
                                                   [--eta MS --delta MS --tau-us US] [--seed S] [--json]
                  Runs N ring members in a deterministic discrete-event simulation, crashes K of them at
                  the same instant once the ring is warm, and reports (in virtual milliseconds):
                  detection time, stabilisation time (also in units of δ), messages per member and per
                  broadcast, and the bound T(f) = f(f+1)δ + fτ + f(f+1)/2·8τ·log2(N).
                  --members N      ring size, 2..%d
                  --fail K         members that crash together, 1..N-1
                  --consecutive    crash K consecutive ring members (the worst case); default: random members
                  --overlay O      broadcast overlay: hypercube or bmg
                  --eta MS         heartbeat interval η in ms (default %d)
                  --delta MS       suspicion timeout δ in ms, at least 2η (default %d)
                  --tau-us US      largest message delay τ in µs, below δ; delays are uniform in [τ/10, τ] (default %d)
                  --seed S         seed of the simulation (default 1)
                  --json           print one JSON object instead of the report"""
                .formatted(MAX_MEMBERS, DEFAULT_ETA_MS, DEFAULT_DELTA_MS, DEFAULT_TAU_US);
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("members", "fail", "overlay", "eta", "delta", "tau-us", "seed");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("consecutive", "json");
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        int members = args.intValue("members", -1, 2, MAX_MEMBERS);
        if (members < 0) {
            args.require("members");
        }
        int fail = args.intValue("fail", -1, 1, members - 1);
        if (fail < 0) {
            args.require("fail");
        }
        Overlay overlay;
        try {
            overlay = Overlay.parse(args.require("overlay"));
        } catch (IllegalArgumentException e) {
            throw new UsageException("detector-sim: --overlay must be hypercube or bmg, got '" + args.require("overlay") + "'");
        }
        int eta = args.intValue("eta", DEFAULT_ETA_MS, 1, 3_600_000);
        int delta = args.intValue("delta", DEFAULT_DELTA_MS, 1, 3_600_000);
        if (delta < 2 * eta) {
            throw new UsageException("detector-sim: --delta (" + delta + " ms) must be at least twice --eta (" + eta + " ms)");
        }
        int tauUs = args.intValue("tau-us", DEFAULT_TAU_US, 1, Integer.MAX_VALUE);
        if ((long) tauUs * 1_000 >= (long) delta * 1_000_000) {
            throw new UsageException("detector-sim: --tau-us (" + tauUs + " µs) must be below --delta (" + delta + " ms)");
        }
        long seed = args.longValue("seed", 1);
        boolean consecutive = args.flag("consecutive");

        RingParameters parameters = RingParameters.of(Duration.ofMillis(eta), Duration.ofMillis(delta), overlay);
        SimulationConfig ring = SimulationConfig.of(members, parameters, tauUs * 1_000L, seed);
        long started = System.nanoTime();
        ExperimentResult result = FailureExperiment.run(new ExperimentSpec(ring, fail, consecutive));
        double wallSeconds = (System.nanoTime() - started) / 1e9;

        if (args.flag("json")) {
            console.out().println(new ObjectMapper().writeValueAsString(json(result)));
        } else {
            report(result, eta, tauUs, console.out());
        }
        console.err().printf(Locale.ROOT, "detector-sim: simulated %d members in %.1f s%n", members, wallSeconds);
        if (!result.agreed()) {
            console.err().println("detector-sim: the live members did not agree on the dead set before the horizon");
            return ExitCodes.MISMATCH;
        }
        return ExitCodes.OK;
    }

    /** The JSON object, field names and order exactly as specified. */
    static Map<String, Object> json(ExperimentResult r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("members", r.members());
        out.put("failed", r.failed());
        out.put("overlay", r.overlay().label());
        out.put("detectionMs", round(r.detectionMs()));
        out.put("stabilisationMs", round(r.stabilisationMs()));
        out.put("boundMs", round(r.boundMs()));
        out.put("agreed", r.agreed());
        out.put("falseSuspicions", r.falseSuspicions());
        out.put("messagesPerBroadcast", round(r.messagesPerBroadcast()));
        return out;
    }

    private static void report(ExperimentResult r, int eta, int tauUs, PrintStream out) {
        int tolerance = 31 - Integer.numberOfLeadingZeros(r.members()) - 1;
        out.printf(Locale.ROOT, "detector-sim: %d members, %d %s failure(s), %s overlay, η=%d ms, δ=%.0f ms, τ=%d µs, seed %d%n",
                r.members(), r.failed(), r.consecutive() ? "consecutive" : "random", r.overlay().label(), eta,
                r.deltaMs(), tauUs, r.seed());
        out.printf(Locale.ROOT, "  failed members       %s%n", members(r.failedMembers()));
        out.printf(Locale.ROOT, "  detection            %.3f ms (first suspicion after the crash)%n", r.detectionMs());
        out.printf(Locale.ROOT, "  all members informed %.3f ms%n", r.knowledgeMs());
        out.printf(Locale.ROOT, "  stabilisation        %.3f ms = %.2f δ%n", r.stabilisationMs(), r.stabilisationDeltas());
        out.printf(Locale.ROOT, "  paper's bound T(f)   %.3f ms = %.2f δ%s%n", r.boundMs(), r.boundDeltas(),
                r.failed() > tolerance ? "  (stated for f <= floor(log2 n) - 1 = " + tolerance + ")" : "");
        out.printf(Locale.ROOT, "  agreed               %s%n", r.agreed() ? "yes" : "NO");
        out.printf(Locale.ROOT, "  false suspicions     %d%n", r.falseSuspicions());
        out.printf(Locale.ROOT, "  broadcasts           %d, %.1f messages per broadcast%n", r.broadcasts(), r.messagesPerBroadcast());
        out.printf(Locale.ROOT, "  messages per member  %.1f until stabilisation (%.1f without heartbeats)%n",
                r.messagesPerMember(), r.repairMessagesPerMember());
    }

    private static String members(int[] failed) {
        if (failed.length <= 16) {
            return Arrays.toString(failed);
        }
        return Arrays.toString(Arrays.copyOf(failed, 16)).replace("]", ", ... (" + failed.length + " in all)]");
    }

    private static Object round(double v) {
        return Double.isFinite(v) ? Math.round(v * 1000.0) / 1000.0 : null;
    }
}
