package org.fabricmanager.topology;

/**
 * The text form of a 64-bit GUID used by every format of the project: {@code 0x} followed by
 * exactly 16 lower-case hexadecimal digits.
 */
public final class Guids {
    private Guids() {
    }

    /** Formats a GUID as {@code 0x} + 16 lower-case hex digits. */
    public static String format(long guid) {
        String hex = Long.toHexString(guid);
        return "0x" + "0".repeat(16 - hex.length()) + hex;
    }

    /**
     * Parses the canonical form strictly ({@code 0x} + 16 lower-case hex digits).
     *
     * @throws TopologyException naming the text when it is not a canonical GUID
     */
    public static long parse(String text) {
        if (text == null || text.length() != 18 || !text.startsWith("0x")) {
            throw new TopologyException("bad GUID '" + text + "': expected 0x followed by 16 lower-case hex digits");
        }
        for (int i = 2; i < 18; i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                throw new TopologyException("bad GUID '" + text + "': expected 0x followed by 16 lower-case hex digits");
            }
        }
        return Long.parseUnsignedLong(text.substring(2), 16);
    }

    /**
     * Parses a GUID leniently, as tools such as ibnetdiscover print them: optional {@code 0x},
     * 1 to 16 hex digits of either case.
     */
    public static long parseLenient(String text) {
        String t = text == null ? "" : text.trim();
        if (t.startsWith("0x") || t.startsWith("0X")) {
            t = t.substring(2);
        }
        if (t.isEmpty() || t.length() > 16) {
            throw new TopologyException("bad GUID '" + text + "'");
        }
        try {
            return Long.parseUnsignedLong(t, 16);
        } catch (NumberFormatException e) {
            throw new TopologyException("bad GUID '" + text + "'");
        }
    }
}
