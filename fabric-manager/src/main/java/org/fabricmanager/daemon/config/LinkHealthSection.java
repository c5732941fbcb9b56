package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Locale;

/**
 * {@code linkHealth}: how the daemon judges a link from its ports' counters (gray links: a cable that still links but
 * corrupts) and what it does about a bad one. Error and drop counts of both ends over a sliding window of {@code
 * windowMs} are set against the packets the same end carried in that window, in errors per million packets (ppm); a
 * link carrying fewer than {@code loadPacketsPerSecond} is idle and its errors are set against that many packets
 * instead, and fewer than {@code minErrors} never count, so that a few errors on an idle port stay healthy. A link is
 * suspect from any counter's {@code suspectPpm}, bad from its {@code badPpm} held for {@code badAfter} judgements in a
 * row, and healthy again after {@code healthyAfter} clean judgements. {@code policy}: {@code off}, {@code advise}
 * (events and alerts) or {@code isolate} (the daemon drains a bad link itself, within the guards, and gives it back
 * after {@code probationMs} healthy).
 *
 * @param policy                off, advise or isolate
 * @param pollIntervalMs        how often each switch's port counters are read (the judgements' pace)
 * @param windowMs              the sliding window the rates are taken over
 * @param loadPacketsPerSecond  below this a link is idle (its errors set against this rate)
 * @param minErrors             fewer errors of a counter in the window never count (noise)
 * @param suspectPpm            per counter, errors per million packets from which a link is suspect
 * @param badPpm                per counter, errors per million packets from which a link is bad
 * @param badAfter              judgements in a row over a bad threshold before the link is bad
 * @param healthyAfter          clean judgements in a row before a suspect or bad link is healthy again
 * @param maxIsolated           most links the policy holds isolated at once
 * @param maxIsolatedPercent    most links the policy holds isolated at once, in percent of the switch-to-switch links
 * @param settleMs              no isolation until the daemon has been converged this long
 * @param probationMs           an isolated link healthy this long is given back
 */
public record LinkHealthSection(String policy, int pollIntervalMs, int windowMs, int loadPacketsPerSecond, int minErrors,
                                CounterPpm suspectPpm, CounterPpm badPpm, int badAfter, int healthyAfter,
                                int maxIsolated, int maxIsolatedPercent, int settleMs, int probationMs) {
    /** What the daemon does about a bad link. */
    public enum Policy {
        OFF, ADVISE, ISOLATE
    }

    public LinkHealthSection {
        policy(policy);
        DaemonConfig.check("linkHealth.pollIntervalMs", pollIntervalMs, 1_000, 600_000);
        if (pollIntervalMs % 1_000 != 0) {
            throw new ConfigException("option linkHealth.pollIntervalMs must be whole seconds, got " + pollIntervalMs);
        }
        DaemonConfig.check("linkHealth.windowMs", windowMs, 1_000, 3_600_000);
        DaemonConfig.check("linkHealth.loadPacketsPerSecond", loadPacketsPerSecond, 1, 1_000_000_000);
        DaemonConfig.check("linkHealth.minErrors", minErrors, 1, 1_000_000);
        if (suspectPpm == null || badPpm == null) {
            throw new ConfigException("options linkHealth.suspectPpm and linkHealth.badPpm must not be null");
        }
        for (int c = 0; c < CounterPpm.COUNTERS; c++) {
            if (badPpm.get(c) < suspectPpm.get(c)) {
                throw new ConfigException("option linkHealth.badPpm." + CounterPpm.NAMES[c] + " must be at least "
                        + "linkHealth.suspectPpm." + CounterPpm.NAMES[c] + " (" + suspectPpm.get(c) + "), got "
                        + badPpm.get(c));
            }
        }
        DaemonConfig.check("linkHealth.badAfter", badAfter, 1, 1_000);
        DaemonConfig.check("linkHealth.healthyAfter", healthyAfter, 1, 1_000);
        DaemonConfig.check("linkHealth.maxIsolated", maxIsolated, 0, 65_536);
        DaemonConfig.check("linkHealth.maxIsolatedPercent", maxIsolatedPercent, 0, 100);
        DaemonConfig.check("linkHealth.settleMs", settleMs, 0, 86_400_000);
        DaemonConfig.check("linkHealth.probationMs", probationMs, 1_000, 604_800_000);
    }

    @JsonCreator
    public static LinkHealthSection of(@JsonProperty("policy") String policy,
                                       @JsonProperty("pollIntervalMs") Integer pollIntervalMs,
                                       @JsonProperty("windowMs") Integer windowMs,
                                       @JsonProperty("loadPacketsPerSecond") Integer loadPacketsPerSecond,
                                       @JsonProperty("minErrors") Integer minErrors,
                                       @JsonProperty("suspectPpm") CounterPpm suspectPpm,
                                       @JsonProperty("badPpm") CounterPpm badPpm,
                                       @JsonProperty("badAfter") Integer badAfter,
                                       @JsonProperty("healthyAfter") Integer healthyAfter,
                                       @JsonProperty("maxIsolated") Integer maxIsolated,
                                       @JsonProperty("maxIsolatedPercent") Integer maxIsolatedPercent,
                                       @JsonProperty("settleMs") Integer settleMs,
                                       @JsonProperty("probationMs") Integer probationMs) {
        return new LinkHealthSection(policy != null ? policy : "advise",
                pollIntervalMs != null ? pollIntervalMs : 10_000, windowMs != null ? windowMs : 60_000,
                loadPacketsPerSecond != null ? loadPacketsPerSecond : 1_000, minErrors != null ? minErrors : 10,
                suspectPpm != null ? suspectPpm : new CounterPpm(100, 100, 2_000, 2_000),
                badPpm != null ? badPpm : new CounterPpm(1_000, 1_000, 20_000, 20_000),
                badAfter != null ? badAfter : 2, healthyAfter != null ? healthyAfter : 3,
                maxIsolated != null ? maxIsolated : 4, maxIsolatedPercent != null ? maxIsolatedPercent : 5,
                settleMs != null ? settleMs : 60_000, probationMs != null ? probationMs : 600_000);
    }

    /** Every option at its default. */
    public static LinkHealthSection defaults() {
        return of(null, null, null, null, null, null, null, null, null, null, null, null, null);
    }

    /** The policy as an enum. */
    public Policy mode() {
        return policy(policy);
    }

    /** This section with another policy. */
    public LinkHealthSection withPolicy(String other) {
        return new LinkHealthSection(other, pollIntervalMs, windowMs, loadPacketsPerSecond, minErrors, suspectPpm, badPpm, badAfter,
                healthyAfter, maxIsolated, maxIsolatedPercent, settleMs, probationMs);
    }

    /** This section with other timings (tests and demos: a window, a settling time and a probation). */
    public LinkHealthSection withTimings(int window, int settle, int probation) {
        return withTimings(pollIntervalMs, window, settle, probation);
    }

    /** This section with other timings: the polls' interval, the window, the settling time and the probation. */
    public LinkHealthSection withTimings(int poll, int window, int settle, int probation) {
        return new LinkHealthSection(policy, poll, window, loadPacketsPerSecond, minErrors, suspectPpm, badPpm, badAfter,
                healthyAfter, maxIsolated, maxIsolatedPercent, settle, probation);
    }

    /** This section with other caps: the most links isolated at once, and their most share of the switch links. */
    public LinkHealthSection withCaps(int most, int mostPercent) {
        return new LinkHealthSection(policy, pollIntervalMs, windowMs, loadPacketsPerSecond, minErrors, suspectPpm, badPpm,
                badAfter, healthyAfter, most, mostPercent, settleMs, probationMs);
    }

    private static Policy policy(String text) {
        if (text == null) {
            throw new ConfigException("option linkHealth.policy must be off, advise or isolate");
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "off", "false" -> Policy.OFF; // YAML reads a bare off as false
            case "advise" -> Policy.ADVISE;
            case "isolate" -> Policy.ISOLATE;
            default -> throw new ConfigException("option linkHealth.policy must be off, advise or isolate, got '"
                    + text + "'");
        };
    }

    /**
     * Errors per million packets, per counter of trouble: receive and transmit errors, receive and transmit drops
     * (discards), all four named. A counter a switch does not measure is never judged.
     */
    public record CounterPpm(int rxErrors, int txErrors, int rxDrops, int txDrops) {
        /** How many counters are judged. */
        public static final int COUNTERS = 4;
        static final String[] NAMES = {"rxErrors", "txErrors", "rxDrops", "txDrops"};

        public CounterPpm {
            DaemonConfig.check("linkHealth ppm rxErrors", rxErrors, 1, 1_000_000);
            DaemonConfig.check("linkHealth ppm txErrors", txErrors, 1, 1_000_000);
            DaemonConfig.check("linkHealth ppm rxDrops", rxDrops, 1, 1_000_000);
            DaemonConfig.check("linkHealth ppm txDrops", txDrops, 1, 1_000_000);
        }

        @JsonCreator
        public static CounterPpm of(@JsonProperty("rxErrors") Integer rxErrors,
                                    @JsonProperty("txErrors") Integer txErrors,
                                    @JsonProperty("rxDrops") Integer rxDrops,
                                    @JsonProperty("txDrops") Integer txDrops) {
            if (rxErrors == null || txErrors == null || rxDrops == null || txDrops == null) {
                throw new ConfigException("options linkHealth.suspectPpm and linkHealth.badPpm name all four "
                        + "counters: rxErrors, txErrors, rxDrops and txDrops");
            }
            return new CounterPpm(rxErrors, txErrors, rxDrops, txDrops);
        }

        /** Threshold {@code c}: 0 rxErrors, 1 txErrors, 2 rxDrops, 3 txDrops. */
        public int get(int c) {
            return switch (c) {
                case 0 -> rxErrors;
                case 1 -> txErrors;
                case 2 -> rxDrops;
                default -> txDrops;
            };
        }
    }
}
