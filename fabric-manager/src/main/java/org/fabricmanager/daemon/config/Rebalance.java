package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code routing.rebalance}, what the daemon does by itself after repairs. {@code refineAfter}: how long after the
 * tables of a repair converged, with no change of the fabric, the entries the repair moved take the ports of the
 * engine's full routing of the fabric (one more routing version, the same entries), for an engine whose full
 * routing is not Dmodc's own, as {@code dmodc-home} ({@code 1s} by default; {@code off}: Dmodc's repairs stay).
 * {@code quietPeriod}: how long the tables in force must have been a repair with no change of the fabric before
 * the daemon routes it in full ({@code off}, the default: only an operator's {@code POST /api/v1/routing/rebalance}
 * does). Both written as a number and a unit: {@code 500ms}, {@code 90s}, {@code 30m}, {@code 2h}.
 */
public record Rebalance(String quietPeriod, String refineAfter) {
    /** The longest wait accepted: a week. */
    static final long MAX_MS = 7L * 24 * 3_600_000;
    private static final String QUIET_PERIOD = "routing.rebalance.quietPeriod";
    private static final String REFINE_AFTER = "routing.rebalance.refineAfter";
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    public Rebalance {
        quietPeriod = quietPeriod == null ? "off" : quietPeriod.trim();
        refineAfter = refineAfter == null ? "1s" : refineAfter.trim();
        // refuses malformed ones at load (the fields are assigned after this body: the parameters are read)
        millis(QUIET_PERIOD, quietPeriod, 1_000, "1s");
        millis(REFINE_AFTER, refineAfter, 100, "100ms");
    }

    /** The defaults but {@code quietPeriod}. */
    public Rebalance(String quietPeriod) {
        this(quietPeriod, null);
    }

    @JsonCreator
    public static Rebalance of(@JsonProperty("quietPeriod") String quietPeriod,
                               @JsonProperty("refineAfter") String refineAfter) {
        return new Rebalance(quietPeriod, refineAfter);
    }

    /** The quiet period in milliseconds, 0 when off. */
    public long quietPeriodMs() {
        return millis(QUIET_PERIOD, quietPeriod, 1_000, "1s");
    }

    /** The wait before a repair is refined, in milliseconds, 0 when off. */
    public long refineAfterMs() {
        return millis(REFINE_AFTER, refineAfter, 100, "100ms");
    }

    private static long millis(String option, String text, long minMs, String min) {
        if (text.equals("off") || text.equals("0") || text.equals("false")) { // YAML reads a bare off as false
            return 0;
        }
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw new ConfigException("option " + option + " must be off or a number with a unit (ms, s, m, h), e.g."
                    + " 30m; got '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        long ms = switch (m.group(2)) {
            case "ms" -> n;
            case "s" -> n * 1_000;
            case "m" -> n * 60_000;
            default -> n * 3_600_000;
        };
        if (ms < minMs || ms > MAX_MS) {
            throw new ConfigException("option " + option + " must be off or between " + min + " and 168h, got '" + text
                    + "'");
        }
        return ms;
    }
}
