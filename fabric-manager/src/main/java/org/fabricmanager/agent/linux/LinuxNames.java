package org.fabricmanager.agent.linux;

/**
 * The rules for the names the Linux agent hands iproute2: a network namespace ({@code ip -n NAME}) and an interface
 * (the bridge and the switch ports, written to {@code ip -batch} and {@code bridge -batch} input). A name that breaks
 * them is refused before any process starts, with a message that shows the refused value escaped and shortened so
 * that it stays one line.
 *
 * <p>Both kinds are visible ASCII only (no whitespace, control or non-ASCII character), neither {@code .} nor
 * {@code ..}, and do not start with {@code -} (iproute2 would read an option such as {@code -all}). A namespace name
 * is at most {@value #MAX_NAMESPACE_BYTES} bytes (NAME_MAX) without {@code /}: {@code ip -n} opens
 * {@code /run/netns/NAME}, so a {@code /} would make it a path to any namespace file. An interface name is at most
 * {@value #MAX_INTERFACE_BYTES} bytes (IFNAMSIZ less its NUL) without {@code /} or {@code :} (the kernel refuses
 * them), {@code %} (the kernel numbers such a name when it creates the link, {@code br%d} becoming {@code br0}),
 * {@code @} ({@code ip} prints a link's peer after it, which the link monitor reads) or {@code #}, quotes and
 * {@code \} (a comment, a quoted word and a continued line in batch input).
 */
public final class LinuxNames {
    /** Longest interface name: IFNAMSIZ (16) less the terminating NUL. */
    public static final int MAX_INTERFACE_BYTES = 15;
    /** Longest namespace name: NAME_MAX, for it is a file's name in {@code /run/netns}. */
    public static final int MAX_NAMESPACE_BYTES = 255;
    /** Characters an interface name may not hold, although visible (reasons in the class comment). */
    private static final String NOT_IN_INTERFACE = "/:%@#'\"\\";
    /** Characters of a refused value shown in a message; the rest is elided. */
    private static final int SHOWN_CHARS = 40;

    private LinuxNames() {
    }

    /**
     * Refuses {@code name} unless it is a valid interface name.
     *
     * @param option what the name is, to begin the message (a configuration key such as {@code bridge})
     * @throws IllegalArgumentException naming the option, the value and what is wrong
     */
    public static void requireInterface(String option, String name) {
        refuse(option, name, interfaceProblem(name));
    }

    /** What is wrong with {@code name} as an interface name, or null when nothing is. */
    static String interfaceProblem(String name) {
        String why = common(name, "an interface name", MAX_INTERFACE_BYTES);
        if (why != null) {
            return why;
        }
        for (int i = 0; i < name.length(); i++) {
            if (NOT_IN_INTERFACE.indexOf(name.charAt(i)) >= 0) {
                return "an interface name may not hold '" + name.charAt(i) + "'";
            }
        }
        return null;
    }

    /**
     * Refuses {@code name} unless it is a valid name of a named network namespace ({@code ip netns add NAME}).
     *
     * @param option what the name is, to begin the message (a configuration key such as {@code netns})
     * @throws IllegalArgumentException naming the option, the value and what is wrong
     */
    public static void requireNamespace(String option, String name) {
        refuse(option, name, namespaceProblem(name));
    }

    /** Throws naming {@code option}, the value and {@code why}, unless {@code why} is null. */
    private static void refuse(String option, String name, String why) {
        if (why != null) {
            throw new IllegalArgumentException(option + " " + shown(name) + ": " + why);
        }
    }

    /** What is wrong with {@code name} as a namespace name, or null when nothing is. */
    static String namespaceProblem(String name) {
        String why = common(name, "a namespace name", MAX_NAMESPACE_BYTES);
        if (why == null && name.indexOf('/') >= 0) {
            return "a namespace name may not hold '/' (ip -n takes the name of a file in /run/netns, not a path)";
        }
        return why;
    }

    /** The rules both kinds share; characters are checked first, so that a length in chars is one in bytes. */
    private static String common(String name, String what, int maxBytes) {
        if (name == null || name.isEmpty()) {
            return what + " may not be empty";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                return what + " is visible ASCII characters only, without whitespace, control or non-ASCII characters";
            }
        }
        if (name.length() > maxBytes) {
            return what + " is at most " + maxBytes + " bytes, this one " + name.length();
        }
        if (name.equals(".") || name.equals("..")) {
            return what + " may not be '.' or '..'";
        }
        if (name.charAt(0) == '-') {
            return what + " may not start with '-' (iproute2 would read an option)";
        }
        return null;
    }

    /**
     * {@code value} quoted for a one-line message: control, non-ASCII and quote characters escaped (a newline as
     * {@code \n}, others as a backslash, {@code u} and four hex digits), and cut after {@value #SHOWN_CHARS}
     * characters.
     */
    public static String shown(String value) {
        if (value == null) {
            return "(none)";
        }
        StringBuilder b = new StringBuilder("\"");
        int n = Math.min(value.length(), SHOWN_CHARS);
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < ' ' || c >= 0x7f) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
        if (value.length() > n) {
            b.append("... (").append(value.length()).append(" characters)");
        }
        return b.toString();
    }
}
