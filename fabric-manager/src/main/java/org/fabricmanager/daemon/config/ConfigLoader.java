package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the daemon's YAML configuration strictly: unknown keys, wrong types and out-of-range values
 * are errors naming the file, the line and the option (with the known keys of that section for a
 * misspelt one); missing keys take their defaults; an empty file is all defaults.
 */
public final class ConfigLoader {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigLoader.class);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);

    private ConfigLoader() {
    }

    /** Largest configuration file read: real ones are a few kilobytes; {@code /dev/zero} must not fill the heap. */
    public static final int MAX_CONFIG_BYTES = 1 << 20;

    /** Reads {@code file} (at most {@value #MAX_CONFIG_BYTES} bytes, UTF-8). */
    public static DaemonConfig load(Path file) {
        String text;
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(MAX_CONFIG_BYTES + 1);
            if (bytes.length > MAX_CONFIG_BYTES) {
                throw new ConfigException(file + ": larger than " + MAX_CONFIG_BYTES + " bytes; not a fabric-manager "
                        + "configuration file");
            }
            CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder();
            try {
                text = utf8.decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                throw new ConfigException(file + ": not UTF-8 text; not a fabric-manager configuration file");
            }
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": no such configuration file");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + e.getMessage(), e);
        }
        DaemonConfig config = parse(text, file.toString());
        warnIfTokenReadable(file, config);
        return config;
    }

    /** An inline admin token in a file other users may read is theirs too: a WARN, as a 0644 file is common. */
    private static void warnIfTokenReadable(Path file, DaemonConfig config) {
        if (config.rest().adminToken() == null) {
            return;
        }
        try {
            if (Files.getPosixFilePermissions(file).contains(PosixFilePermission.OTHERS_READ)) {
                LOG.warn("security: {} holds rest.adminToken inline and every user of this host may read it: move the "
                        + "token to rest.adminTokenFile (mode 0600) or chmod o-r the configuration", file);
            }
        } catch (UnsupportedOperationException | IOException e) {
            // no POSIX permissions: nothing to say
        }
    }

    /** Parses YAML text; {@code source} names it in messages. */
    public static DaemonConfig parse(String yaml, String source) {
        if (yaml.isBlank()) {
            return DaemonConfig.defaults();
        }
        try {
            try (JsonParser probe = YAML.createParser(yaml)) {
                if (probe.nextToken() == null) {
                    return DaemonConfig.defaults();
                }
            }
            DaemonConfig config = YAML.readValue(yaml, DaemonConfig.class);
            return config != null ? config : DaemonConfig.defaults();
        } catch (UnrecognizedPropertyException e) {
            String option = path(e, e.getPropertyName());
            throw new ConfigException(where(source, yaml, option, e.getLocation()) + "unknown option '" + option + "' (known here: "
                    + String.join(", ", known(e.getKnownPropertyIds())) + ")", e);
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause();
            String message = cause instanceof ConfigException ? cause.getMessage() : e.getOriginalMessage();
            Matcher m = OPTION.matcher(message);
            String option = m.find() ? m.group(1) : path(e, null);
            throw new ConfigException(where(source, yaml, option, e.getLocation()) + message, e);
        } catch (InvalidFormatException e) {
            throw new ConfigException(where(source, e.getLocation()) + "option " + path(e, null) + ": '" + e.getValue()
                    + "' is not " + article(e.getTargetType()), e);
        } catch (MismatchedInputException e) {
            String option = path(e, null);
            throw new ConfigException(where(source, e.getLocation()) + (option.isEmpty() ? "" : "option " + option + ": ")
                    + "expected " + article(e.getTargetType()), e);
        } catch (JsonProcessingException e) {
            throw new ConfigException(where(source, e.getLocation()) + "not valid YAML: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigException(source + ": cannot read: " + e.getMessage(), e);
        }
    }

    private static final Pattern OPTION = Pattern.compile("option ([A-Za-z.]+)");

    /**
     * "file:line: " for the key {@code option} (dotted path): Jackson reports errors of creator-built
     * objects at the end of the object, so the key's own line is looked up in the token stream.
     */
    private static String where(String source, String yaml, String option, JsonLocation fallback) {
        try (JsonParser p = YAML.createParser(yaml)) {
            ArrayDeque<String> path = new ArrayDeque<>();
            String pending = null;
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                switch (t) {
                    case FIELD_NAME -> {
                        pending = p.currentName();
                        String full = path.isEmpty() ? pending : String.join(".", path) + "." + pending;
                        if (full.equals(option)) {
                            return source + ":" + p.currentTokenLocation().getLineNr() + ": ";
                        }
                    }
                    case START_OBJECT -> {
                        if (pending != null) {
                            path.addLast(pending);
                        }
                        pending = null;
                    }
                    case END_OBJECT -> {
                        if (!path.isEmpty()) {
                            path.removeLast();
                        }
                    }
                    default -> pending = null;
                }
            }
        } catch (IOException ignored) {
            // the file parsed once already; fall back to Jackson's location
        }
        return where(source, fallback);
    }

    private static String where(String source, JsonLocation location) {
        return location == null || location.getLineNr() < 1 ? source + ": " : source + ":" + location.getLineNr() + ": ";
    }

    private static String path(JsonMappingException e, String last) {
        List<String> parts = new ArrayList<>();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                parts.add(r.getFieldName());
            }
        }
        if (last != null && (parts.isEmpty() || !parts.get(parts.size() - 1).equals(last))) {
            parts.add(last);
        }
        return String.join(".", parts);
    }

    private static Collection<String> known(Collection<Object> ids) {
        TreeSet<String> names = new TreeSet<>();
        if (ids != null) {
            for (Object id : ids) {
                names.add(String.valueOf(id));
            }
        }
        return names;
    }

    private static String article(Class<?> type) {
        if (type == null) {
            return "a value of another type";
        }
        if (type == Integer.class || type == int.class) {
            return "an integer";
        }
        if (type == String.class) {
            return "a string";
        }
        return "a " + type.getSimpleName() + " section (a map of options)";
    }
}
