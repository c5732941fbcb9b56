package org.fabricmanager.southbound;

/** The message types of the southbound protocol and their wire codes ({@code docs/protocol.md}, section 3). */
public enum MessageType {
    HELLO(0x01),
    HELLO_REPLY(0x02),
    PORT_INFO(0x03),
    PORT_STATUS(0x04),
    LFT_BLOCK(0x05),
    LFT_COMMIT(0x06),
    ACK(0x07),
    ERROR(0x08),
    ECHO_REQUEST(0x09),
    ECHO_REPLY(0x0A),
    DETECTOR_CONFIG(0x0B),
    VC_RULES(0x0E),
    DETECTOR_ENDPOINT(0x10),
    DETECTOR_WINDOW(0x11),
    DETECTOR_PEERS(0x12),
    DETECTOR_LOOKUP(0x13),
    LFT_BLOCKS(0x14),
    PORT_COUNTERS_REQUEST(0x15),
    PORT_COUNTERS(0x16);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    MessageType(int code) {
        this.code = code;
    }

    /** The type byte on the wire. */
    public int code() {
        return code;
    }

    /** The type of a wire code, or {@code null} for a code this version does not know. */
    static MessageType fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** The name of a wire code for messages, including unknown ones. */
    public static String describe(int code) {
        MessageType t = fromCode(code);
        return t != null ? t.name() : String.format("0x%02x", code);
    }
}
