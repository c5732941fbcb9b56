package org.fabricmanager.daemon.api;

import java.util.List;

/**
 * How the discovered fabric compares with the expected PGFT: a verdict, a one-line summary and the
 * findings by name (each list capped at {@link #MAX_LISTED} entries; the counts are exact). Drained switches and
 * cables that are present and up are cabling as ordered: they count apart ({@code drained...}), never as missing; a
 * drained element that is down or gone is missing like any other.
 */
public record FabricCheck(String expected, Verdict verdict, String summary, int missingSwitchCount,
                          List<String> missingSwitches, int extraSwitchCount, List<String> extraSwitches,
                          int missingLinkCount, List<String> missingLinks, int miswiredCount, List<String> miswired,
                          int drainedSwitchCount, List<String> drainedSwitches, int drainedLinkCount,
                          List<String> drainedLinks) {
    /** Entries kept per list. */
    public static final int MAX_LISTED = 100;

    /** The outcome. */
    public enum Verdict {
        /** No PGFT is configured: nothing to compare with. */
        NOT_CHECKED,
        /** A shape is configured and the fabric's check against it has not ended yet (discovering, or checking). */
        PENDING,
        /** Exactly the expected PGFT (drained parts included, when they are present and up). */
        INTACT,
        /** The expected PGFT with switches or links missing (drained ones that are present and up are not). */
        DEGRADED,
        /** Extra switches or links, or links where the PGFT has none. */
        MISWIRED
    }

    public FabricCheck {
        missingSwitches = List.copyOf(missingSwitches);
        extraSwitches = List.copyOf(extraSwitches);
        missingLinks = List.copyOf(missingLinks);
        miswired = List.copyOf(miswired);
        drainedSwitches = List.copyOf(drainedSwitches);
        drainedLinks = List.copyOf(drainedLinks);
    }

    /** A check of a fabric without drained parts present. */
    public FabricCheck(String expected, Verdict verdict, String summary, int missingSwitchCount,
                       List<String> missingSwitches, int extraSwitchCount, List<String> extraSwitches,
                       int missingLinkCount, List<String> missingLinks, int miswiredCount, List<String> miswired) {
        this(expected, verdict, summary, missingSwitchCount, missingSwitches, extraSwitchCount, extraSwitches,
                missingLinkCount, missingLinks, miswiredCount, miswired, 0, List.of(), 0, List.of());
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
}
