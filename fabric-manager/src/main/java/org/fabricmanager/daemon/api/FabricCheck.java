package org.fabricmanager.daemon.api;

import java.util.List;

/**
 * How the discovered fabric compares with the expected PGFT: a verdict, a one-line summary and the
 * findings by name (each list capped at {@link #MAX_LISTED} entries; the counts are exact). The check is of the fabric
 * as cabled: the switches and cables an operator drained that are connected and up count as present (routing goes
 * around them all the same), and {@code drainedSwitchCount} and {@code drainedLinkCount} say how many there are.
 */
public record FabricCheck(String expected, Verdict verdict, String summary, int missingSwitchCount,
                          List<String> missingSwitches, int extraSwitchCount, List<String> extraSwitches,
                          int missingLinkCount, List<String> missingLinks, int miswiredCount, List<String> miswired,
                          int drainedSwitchCount, int drainedLinkCount) {
    /** Entries kept per list. */
    public static final int MAX_LISTED = 100;

    /** The outcome. */
    public enum Verdict {
        /** No PGFT is configured: nothing to compare with. */
        NOT_CHECKED,
        /** A shape is configured and the fabric's check against it has not ended yet (discovering, or checking). */
        PENDING,
        /** Exactly the expected PGFT. */
        INTACT,
        /** The expected PGFT with switches or links missing. */
        DEGRADED,
        /** Extra switches or links, or links where the PGFT has none. */
        MISWIRED
    }

    /** A check with nothing drained in it. */
    public FabricCheck(String expected, Verdict verdict, String summary, int missingSwitchCount,
                       List<String> missingSwitches, int extraSwitchCount, List<String> extraSwitches,
                       int missingLinkCount, List<String> missingLinks, int miswiredCount, List<String> miswired) {
        this(expected, verdict, summary, missingSwitchCount, missingSwitches, extraSwitchCount, extraSwitches,
                missingLinkCount, missingLinks, miswiredCount, miswired, 0, 0);
    }

    public FabricCheck {
        missingSwitches = List.copyOf(missingSwitches);
        extraSwitches = List.copyOf(extraSwitches);
        missingLinks = List.copyOf(missingLinks);
        miswired = List.copyOf(miswired);
    }

    /** The result while the fabric's check against {@code expected} has not ended (or not begun: discovering). */
    public static FabricCheck pending(String expected) {
        return new FabricCheck(expected, Verdict.PENDING, "checking the fabric against " + expected, 0, List.of(), 0,
                List.of(), 0, List.of(), 0, List.of());
    }

    /** The result when there is no expectation. */
    public static FabricCheck notChecked() {
        return new FabricCheck(null, Verdict.NOT_CHECKED, "no expected PGFT configured", 0, List.of(), 0, List.of(), 0,
                List.of(), 0, List.of());
    }

    /**
     * This check of a fabric in which {@code switches} drained switches and {@code links} drained cables are present:
     * the counts, and the summary ending in what is drained, e.g. {@code INTACT PGFT(...) (given, by GUID); 1 link
     * drained}.
     */
    public FabricCheck withDrained(int switches, int links) {
        if (switches == 0 && links == 0) {
            return this;
        }
        String what = (switches == 0 ? "" : switches + (switches == 1 ? " switch" : " switches"))
                + (switches > 0 && links > 0 ? " and " : "") + (links == 0 ? "" : links + (links == 1 ? " link" : " links"));
        return new FabricCheck(expected, verdict, summary + "; " + what + " drained", missingSwitchCount, missingSwitches,
                extraSwitchCount, extraSwitches, missingLinkCount, missingLinks, miswiredCount, miswired, switches, links);
    }
}
