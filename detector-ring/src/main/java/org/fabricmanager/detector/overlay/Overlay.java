package org.fabricmanager.detector.overlay;

import java.util.Locale;

/**
 * The overlay a ring broadcasts over. Every member of a ring must use the same overlay because a
 * broadcast's topology is recomputed by each forwarding member.
 */
public enum Overlay {
    /** Hypercube with node-disjoint spanning trees (Ramanathan and Shin); tolerates floor(log2 n) - 1 failures. */
    HYPERCUBE("hypercube"),
    /** Binomial graph: neighbours (i +- 2^k) mod n, flooded; tolerates degree - 1 failures. */
    BMG("bmg");

    private final String label;

    Overlay(String label) {
        this.label = label;
    }

    /** The lower-case name used on the command line and in JSON. */
    public String label() {
        return label;
    }

    /** Parses {@code hypercube} or {@code bmg} (case-insensitive). */
    public static Overlay parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (Overlay o : values()) {
            if (o.label.equals(t)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown overlay '" + text + "' (expected hypercube or bmg)");
    }
}
