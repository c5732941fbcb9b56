package org.fabricmanager.southbound;

/**
 * The counters PORT_COUNTERS carries for each port, in their wire order (section 3.17 of {@code docs/protocol.md}).
 * Each is an unsigned 64-bit count since the agent started that never decreases during the agent's run;
 * {@link PortCounters#UNAVAILABLE} (all ones) stands for a counter the switch does not measure.
 */
public enum PortCounter {
    RX_PACKETS("rxPackets"),
    TX_PACKETS("txPackets"),
    RX_BYTES("rxBytes"),
    TX_BYTES("txBytes"),
    RX_ERRORS("rxErrors"),
    TX_ERRORS("txErrors"),
    RX_DROPS("rxDrops"),
    TX_DROPS("txDrops");

    /** The counters of this protocol version, in wire order. */
    public static final PortCounter[] ALL = values();

    private final String jsonName;

    PortCounter(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The name in REST answers and the CLI's JSON, e.g. {@code rxErrors}. */
    public String jsonName() {
        return jsonName;
    }

    /** Whether this counter counts trouble (errors or drops), which the status page and the CLI highlight. */
    public boolean trouble() {
        return this == RX_ERRORS || this == TX_ERRORS || this == RX_DROPS || this == TX_DROPS;
    }
}
