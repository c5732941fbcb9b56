package org.fabricmanager.daemon.health;

import java.util.Locale;
import org.fabricmanager.topology.PortRef;

/**
 * The figures that decided a link's judgement: its worst counter of trouble and where, the errors and the packets
 * (of the same end and direction) in the window, their ratio in errors per million packets, the packet rate, and
 * whether the link carried load (an idle link's errors are set against the load rate's packets instead).
 *
 * @param counter          the worst counter's JSON name ({@code rxErrors}...), or {@code null} when none rose
 * @param at               the end it was counted at, or {@code null}
 * @param errors           its rise in the window
 * @param packets          that end's packets in the window, same direction
 * @param ppm              errors per million packets, as judged
 * @param packetsPerSecond the link's busier end's packet rate (rx and tx)
 * @param loaded           whether that rate reached the load rate
 * @param windowMs         the time the window's steps span (the longer end's)
 */
public record LinkFigures(String counter, PortRef at, long errors, long packets, double ppm,
                          double packetsPerSecond, boolean loaded, long windowMs) {
    /** No figures: nothing measured yet. */
    public static final LinkFigures NONE = new LinkFigures(null, null, 0, 0, 0, 0, false, 0);

    /** One line for events and logs, e.g. {@code rxErrors at 0x…:3: 480 in 60.0 s over 120000 packets (4000 ppm)}. */
    public String describe() {
        if (counter == null) {
            return String.format(Locale.ROOT, "no errors in %.1f s (%.0f packets/s)", windowMs / 1000.0,
                    packetsPerSecond);
        }
        return String.format(Locale.ROOT, "%s at %s: %d in %.1f s over %d packets (%.0f ppm%s, %.0f packets/s)",
                counter, at, errors, windowMs / 1000.0, packets, ppm, loaded ? "" : ", idle", packetsPerSecond);
    }
}
