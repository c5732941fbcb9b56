package org.fabricmanager.agent.linux;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * The configuration of {@code fabric-manager agent}: one Linux switch and how it reaches the daemon, a small YAML
 * file (keys below; unknown keys are errors naming them):
 *
 * <pre>
 * guid: "0x1000000100000000"    # the switch's GUID, as its certificate names it
 * name: leaf-1                  # its description (default: the GUID)
 * ports: 32                     # its ports 1..ports are interfaces PREFIX1..PREFIXports
 * portPrefix: swp               # default p
 * bridge: br0                   # default br0; created when missing
 * netns: ""                     # the switch's network namespace; default: the agent's own
 * cabling: /etc/fabric-manager/cabling.txt
 * managers: ["10.0.0.1:7600"]   # the daemon's southbound address, then any hot standbys
 * certificate: /etc/fabric-manager/switch.crt   # from fabric-manager pki issue
 * key: /etc/fabric-manager/switch.key
 * ca: /etc/fabric-manager/ca.crt
 * insecure: false               # true: plaintext, for a daemon run with security.insecure
 * </pre>
 *
 * @param switchSpec the switch
 * @param cabling    the cabling file
 * @param managers   the managers' southbound addresses, the first one tried first
 * @param tls        certificate, key and CA files; {@code null} when insecure
 */
public record LinuxAgentConfig(LinuxSwitch.Spec switchSpec, Path cabling, List<InetSocketAddress> managers, TlsFiles tls) {
    /** Largest configuration read. */
    static final int MAX_BYTES = 64 << 10;
    /** Duplicate keys are errors: with the last one winning, a reader of the file could miss the value used. */
    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());
    private static final List<String> KEYS = List.of("guid", "name", "ports", "portPrefix", "bridge", "netns",
            "cabling", "managers", "certificate", "key", "ca", "insecure");

    /** The switch's TLS files. */
    public record TlsFiles(Path certificate, Path key, Path ca) {
    }

    /**
     * Reads {@code file} (a regular file of at most {@link #MAX_BYTES}) and checks every value before anything runs:
     * the names given to iproute2 by {@link LinuxNames}' rules, the files named as regular files. Errors are one
     * line naming the file and the key, with the value escaped ({@link LinuxNames#shown}).
     */
    public static LinuxAgentConfig load(Path file) throws IOException {
        JsonNode root = yaml(file, RegularFile.read(file, MAX_BYTES));
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                // a misspelt key is worth showing; anything else may be a line of a file that is no configuration
                String shown = key.matches("[A-Za-z][A-Za-z0-9_-]{0,31}") ? "key '" + key + "'" : "key (not shown)";
                throw new IOException(file + ": unknown " + shown + "; the keys are " + String.join(", ", KEYS));
            }
        }
        try {
            String guidText = text(root, "guid", null, file);
            long guid;
            try {
                guid = Guids.parse(guidText);
            } catch (TopologyException e) {
                throw new IOException(file + ": guid " + LinuxNames.shown(guidText)
                        + ": expected 0x and 16 lower-case hex digits", e);
            }
            int ports = root.path("ports").asInt(0);
            if (ports < 1 || ports > 254) {
                throw new IOException(file + ": ports must be a number in [1, 254]");
            }
            String name = text(root, "name", Guids.format(guid), file);
            if (name.chars().anyMatch(Character::isISOControl)
                    || name.getBytes(StandardCharsets.UTF_8).length > Protocol.MAX_NAME_BYTES) {
                throw new IOException(file + ": name " + LinuxNames.shown(name) + ": at most "
                        + Protocol.MAX_NAME_BYTES + " bytes of UTF-8 without control characters");
            }
            LinuxSwitch.Spec spec = new LinuxSwitch.Spec(guid, name, ports, text(root, "netns", "", file),
                    text(root, "bridge", "br0", file), text(root, "portPrefix", "p", file));
            List<InetSocketAddress> managers = new ArrayList<>();
            for (JsonNode m : root.path("managers")) {
                managers.add(address(m.asText(), file));
            }
            if (managers.isEmpty()) {
                throw new IOException(file + ": managers: give the daemon's southbound address HOST:PORT");
            }
            boolean insecure = root.path("insecure").asBoolean(false);
            Path cabling = regularFile(root, "cabling", file);
            TlsFiles tls = insecure ? null : new TlsFiles(regularFile(root, "certificate", file),
                    regularFile(root, "key", file), regularFile(root, "ca", file));
            return new LinuxAgentConfig(spec, cabling, managers, tls);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The YAML mapping of {@code bytes}. A syntax error is given by its line and column only: the parser's own
     * message quotes the text around it, and this may be a file that is no configuration (a secret one).
     */
    private static JsonNode yaml(Path file, byte[] bytes) throws IOException {
        JsonNode root;
        try {
            root = YAML.readTree(bytes);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String reason = String.valueOf(e.getOriginalMessage()).startsWith("Duplicate field") ? "a key given twice"
                    : "not YAML";
            throw new IOException(file + ": " + reason + (at == null ? "" : " (line " + at.getLineNr() + ", column "
                    + at.getColumnNr() + ")"), e);
        }
        if (root == null || !root.isObject()) {
            throw new IOException(file + ": expected a YAML mapping of " + String.join(", ", KEYS));
        }
        return root;
    }

    private static String text(JsonNode root, String key, String fallback, Path file) throws IOException {
        JsonNode v = root.get(key);
        if (v == null || v.isNull()) {
            if (fallback == null) {
                throw new IOException(file + ": '" + key + "' is required");
            }
            return fallback;
        }
        if (!v.isValueNode()) {
            throw new IOException(file + ": '" + key + "' must be a single value");
        }
        return v.asText();
    }

    /** The regular file that {@code key} names (its path as given, checked now and read later). */
    private static Path regularFile(JsonNode root, String key, Path file) throws IOException {
        String text = text(root, key, null, file);
        if (text.isEmpty() || text.chars().anyMatch(Character::isISOControl)) {
            throw new IOException(file + ": " + key + " " + LinuxNames.shown(text)
                    + ": a file's path, not empty and without control characters");
        }
        Path path = Path.of(text);
        try {
            RegularFile.check(path);
        } catch (IOException e) {
            throw new IOException(file + ": " + key + " " + e.getMessage(), e);
        }
        return path;
    }

    private static InetSocketAddress address(String text, Path file) throws IOException {
        int colon = text.lastIndexOf(':');
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (colon > 0 && port >= 1 && port <= 65535) {
                return new InetSocketAddress(text.substring(0, colon).replace("[", "").replace("]", ""), port);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IOException(file + ": manager address " + LinuxNames.shown(text) + ": expected HOST:PORT");
    }
}
