package org.fabricmanager.agent.linux;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
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
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Set<String> KEYS = Set.of("guid", "name", "ports", "portPrefix", "bridge", "netns", "cabling",
            "managers", "certificate", "key", "ca", "insecure");

    /** The switch's TLS files. */
    public record TlsFiles(Path certificate, Path key, Path ca) {
    }

    /** Reads {@code file}; errors name the file and the key. */
    public static LinuxAgentConfig load(Path file) throws IOException {
        if (Files.size(file) > MAX_BYTES) {
            throw new IOException(file + ": larger than " + MAX_BYTES + " bytes");
        }
        JsonNode root = YAML.readTree(Files.readString(file));
        if (root == null || !root.isObject()) {
            throw new IOException(file + ": expected a YAML mapping of " + String.join(", ", KEYS));
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KEYS.contains(key)) {
                throw new IOException(file + ": unknown key '" + key + "' (known: " + String.join(", ", KEYS) + ")");
            }
        }
        try {
            long guid = Guids.parse(text(root, "guid", null, file));
            int ports = root.path("ports").asInt(0);
            if (ports < 1 || ports > 254) {
                throw new IOException(file + ": ports must be a number in [1, 254]");
            }
            LinuxSwitch.Spec spec = new LinuxSwitch.Spec(guid, text(root, "name", Guids.format(guid), file), ports,
                    text(root, "netns", "", file), text(root, "bridge", "br0", file), text(root, "portPrefix", "p", file));
            new PortNames(spec.portPrefix(), ports);
            List<InetSocketAddress> managers = new ArrayList<>();
            for (JsonNode m : root.path("managers")) {
                managers.add(address(m.asText(), file));
            }
            if (managers.isEmpty()) {
                throw new IOException(file + ": managers: give the daemon's southbound address HOST:PORT");
            }
            boolean insecure = root.path("insecure").asBoolean(false);
            TlsFiles tls = insecure ? null : new TlsFiles(Path.of(text(root, "certificate", null, file)),
                    Path.of(text(root, "key", null, file)), Path.of(text(root, "ca", null, file)));
            return new LinuxAgentConfig(spec, Path.of(text(root, "cabling", null, file)), managers, tls);
        } catch (TopologyException | IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
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
        throw new IOException(file + ": manager address '" + text + "': expected HOST:PORT");
    }
}
