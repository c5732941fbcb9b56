package org.fabricmanager.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code --name value} and {@code --flag} arguments of one subcommand, as {@link CliTree} parsed them (unknown
 * options, missing values, repeated options and stray words were refused there), with the conversions the commands
 * share: each refuses a bad value with a message naming the command and the option.
 */
public final class Arguments {
    private final String command;
    private final Map<String, String> values;
    private final Set<String> flags;

    /** What {@link CliTree} parsed for {@code command}: options with their value, and the flags given. */
    Arguments(String command, Map<String, String> values, Set<String> flags) {
        this.command = command;
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        this.flags = Collections.unmodifiableSet(new LinkedHashSet<>(flags));
    }

    public String command() {
        return command;
    }

    public boolean flag(String name) {
        return flags.contains(name);
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public Optional<String> value(String name) {
        return Optional.ofNullable(values.get(name));
    }

    public String require(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new UsageException(command + ": missing required option --" + name);
        }
        return v;
    }

    public String valueOr(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    public int intValue(String name, int fallback) {
        return intValue(name, fallback, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** An integer option within {@code [min, max]}, or {@code fallback} when absent. */
    public int intValue(String name, int fallback, int min, int max) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        int parsed;
        try {
            parsed = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": --" + name + " must be an integer, got '" + v + "'");
        }
        if (parsed < min || parsed > max) {
            throw new UsageException(command + ": --" + name + " must be in [" + min + ", " + max + "], got " + parsed);
        }
        return parsed;
    }

    public long longValue(String name, long fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": --" + name + " must be an integer, got '" + v + "'");
        }
    }

    /** A floating-point option within {@code [min, max]}, or {@code fallback} when absent. */
    public double doubleValue(String name, double fallback, double min, double max) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        double parsed;
        try {
            parsed = Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(command + ": --" + name + " must be a number, got '" + v + "'");
        }
        if (!(parsed >= min && parsed <= max)) {
            throw new UsageException(command + ": --" + name + " must be in [" + min + ", " + max + "], got " + v);
        }
        return parsed;
    }

    /** A comma-separated list option, or {@code fallback} when absent; empty items are rejected. */
    public List<String> listValue(String name, List<String> fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        List<String> items = new ArrayList<>();
        for (String item : v.split(",", -1)) {
            String trimmed = item.trim();
            if (trimmed.isEmpty()) {
                throw new UsageException(command + ": --" + name + " has an empty item in '" + v + "'");
            }
            items.add(trimmed);
        }
        return List.copyOf(items);
    }

    /** Rejects combinations where more than one of {@code names} is given. */
    public void atMostOneOf(String... names) {
        String first = null;
        for (String n : names) {
            if (values.containsKey(n) || flags.contains(n)) {
                if (first != null) {
                    throw new UsageException(command + ": --" + first + " and --" + n + " cannot be used together");
                }
                first = n;
            }
        }
    }

    /** Requires exactly one of {@code names}. */
    public String exactlyOneOf(String... names) {
        atMostOneOf(names);
        for (String n : names) {
            if (values.containsKey(n) || flags.contains(n)) {
                return n;
            }
        }
        throw new UsageException(command + ": one of --" + String.join(", --", names) + " is required");
    }
}
