package org.fabricmanager.topology;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the topology text that {@code ibnetdiscover} prints (InfiniBand's standard fabric dump)
 * into a {@link Fabric}. Supported: {@code Switch}, {@code Ca} and {@code Rt} blocks with their
 * {@code vendid=}, {@code devid=}, {@code sysimgguid=}, {@code switchguid=}, {@code caguid=} and
 * {@code rtguid=} header lines; port lines {@code [p] "S-guid"[q]} with the optional port GUIDs in
 * parentheses, {@code [ext N]} external port numbers and trailing {@code # ...} comments; the
 * chassis lines of {@code -g} output; comments and blank lines.
 *
 * <p>Switches keep their node GUID, port count and node description (as name). A CA or router
 * with one connected port becomes one end node with its node GUID; one with several connected
 * ports becomes one end node per connected port, named by its port GUID, since each port is a
 * destination of its own. Destination indices are assigned by {@link TopologicalIndexer}. Every
 * link must be printed consistently at both ends when both ends print it; errors name the line.
 */
public final class IbnetdiscoverReader {
    private static final Logger LOG = LoggerFactory.getLogger(IbnetdiscoverReader.class);

    private static final Pattern NODE = Pattern.compile(
            "(Switch|Ca|Rt)\\s+(\\d+)\\s+\"([SHR])-([0-9a-fA-F]{1,16})\"\\s*(?:#\\s*(.*))?");
    private static final Pattern SWITCH_DESC = Pattern.compile(
            "\"(.*)\"\\s+(?:base|enhanced)\\s+port\\s+\\d+\\s+lid\\s+(\\d+)\\s+lmc\\s+\\d+.*");
    private static final Pattern CA_DESC = Pattern.compile("\"(.*)\"(?:\\s*\\(scp\\))?\\s*");
    private static final Pattern PORT = Pattern.compile(
            "\\[(\\d+)\\](?:\\[ext \\d+\\])?\\s*(?:\\(([0-9a-fA-F]{1,16})\\))?\\s*\"([SHR])-([0-9a-fA-F]{1,16})\""
            + "\\[(\\d+)\\](?:\\[ext \\d+\\])?\\s*(?:\\(([0-9a-fA-F]{1,16})\\))?\\s*(?:#(.*))?");
    /** A CA port line's comment starts with the port's own LID: {@code # lid 7 lmc 0 "leaf1" lid 3 4xSDR}. */
    private static final Pattern OWN_LID = Pattern.compile("\\s*lid\\s+(\\d+)\\b(?:\\s+lmc\\s+(\\d+)\\b)?.*");
    /** A switch port line's comment names the peer and its LID: {@code # "n2" lid 6 4xSDR}. */
    private static final Pattern PEER_LID = Pattern.compile("\\s*\"[^\"]*\"\\s+lid\\s+(\\d+)\\b.*");
    private static final Pattern HEADER_GUID = Pattern.compile(
            "(switchguid|caguid|rtguid)=0x([0-9a-fA-F]{1,16})(?:\\(([0-9a-fA-F]{1,16})\\))?\\s*(?:#.*)?");
    private static final Pattern ID = Pattern.compile("(vendid|devid|sysimgguid)=0x[0-9a-fA-F]{1,16}\\s*(?:#.*)?");
    private static final Pattern CHASSIS = Pattern.compile("Chassis\\s+\\d+.*|Non-Chassis Nodes\\s*|Hostname:.*");

    /** One Switch/Ca/Rt block. */
    private record Device(char type, long guid, int ports, String description, int lid, int line) {
        boolean isSwitch() {
            return type == 'S';
        }

        String typeName() {
            return type == 'S' ? "Switch" : type == 'H' ? "Ca" : "Rt";
        }
    }

    /** One port line: {@code port} of {@code owner} to {@code peerPort} of {@code peer}. */
    private record PortLine(long owner, int port, long portGuid, char peerType, long peer, int peerPort,
                            long peerPortGuid, int ownLid, int ownLmc, int peerLid, int line) {
    }

    private final String source;
    private final Map<Long, Device> devices = new LinkedHashMap<>();
    private final Map<PortRef, PortLine> ports = new LinkedHashMap<>();
    private Device current;
    private long announced;
    private String announcedKind;
    private int announcedLine;

    private IbnetdiscoverReader(String source) {
        this.source = source;
    }

    /** Reads a file; errors name the file and line. */
    public static Fabric read(Path file) {
        return readWithLids(file).fabric();
    }

    /** Reads a file with the LIDs it lists; errors name the file and line. */
    public static LidFabric readWithLids(Path file) {
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return readWithLids(in, file.toString());
        } catch (NoSuchFileException e) {
            throw new TopologyException(file + ": no such file");
        } catch (IOException e) {
            throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Reads {@code ibnetdiscover} text; {@code source} names it in error messages. */
    public static Fabric read(Reader in, String source) throws IOException {
        return readWithLids(in, source).fabric();
    }

    /**
     * Reads {@code ibnetdiscover} text with the LIDs it lists: a switch's from its block's
     * {@code base port 0 lid N} comment, an end node's from its own port line ({@code # lid N lmc})
     * or else from the switch port line that leads to it ({@code # "name" lid N}). Devices whose
     * LID is not printed (or printed as 0) have none in the plan.
     */
    public static LidFabric readWithLids(Reader in, String source) throws IOException {
        IbnetdiscoverReader reader = new IbnetdiscoverReader(source);
        BufferedReader lines = in instanceof BufferedReader b ? b : new BufferedReader(in);
        String line;
        int number = 0;
        while ((line = lines.readLine()) != null) {
            reader.line(++number, line);
        }
        LidFabric read = reader.build();
        Fabric fabric = read.fabric();
        LOG.debug("{}: {} switches, {} nodes, {} links, {} LIDs", source, fabric.switches().size(), fabric.nodes().size(),
                fabric.links().size(), read.lids() == null ? 0 : read.lids().size());
        return read;
    }

    /** Parses {@code ibnetdiscover} text held in a string. */
    public static Fabric parse(String text) {
        return parseWithLids(text).fabric();
    }

    /** Parses {@code ibnetdiscover} text held in a string, with its LIDs. */
    public static LidFabric parseWithLids(String text) {
        try {
            return readWithLids(new StringReader(text), "<ibnetdiscover>");
        } catch (IOException e) {
            throw new IllegalStateException("reading a string", e);
        }
    }

    private TopologyException error(int line, String message) {
        return new TopologyException(source + ":" + line + ": " + message);
    }

    private void line(int number, String raw) {
        String line = raw.strip();
        if (line.isEmpty() || line.startsWith("#")) {
            return;
        }
        Matcher m;
        if (line.startsWith("[")) {
            portLine(number, line);
        } else if ((m = NODE.matcher(line)).matches()) {
            nodeLine(number, m);
        } else if ((m = HEADER_GUID.matcher(line)).matches()) {
            current = null;
            announced = Guids.parseLenient(m.group(2));
            announcedKind = m.group(1);
            announcedLine = number;
        } else if (ID.matcher(line).matches() || CHASSIS.matcher(line).matches()) {
            current = null;
        } else if (line.matches("(SW|CA|RT)\\s+\\d+\\s+\\d+\\s+0x.*")) {
            throw error(number, "this is the ports report of 'ibnetdiscover -p'; give the default topology output");
        } else if (line.matches("(Switch|Ca|Router)\\s*:\\s*0x.*")) {
            throw error(number, "this is a node list of 'ibnetdiscover -l/-S/-H'; give the default topology output");
        } else {
            throw error(number, "unrecognised line '" + abbreviate(line) + "'");
        }
    }

    private void nodeLine(int number, Matcher m) {
        String kind = m.group(1);
        char type = m.group(3).charAt(0);
        char expectedType = kind.equals("Switch") ? 'S' : kind.equals("Ca") ? 'H' : 'R';
        if (type != expectedType) {
            throw error(number, kind + " block with a \"" + type + "-\" GUID (expected \"" + expectedType + "-\")");
        }
        long guid = Guids.parseLenient(m.group(4));
        int portCount = parseInt(number, m.group(2), "port count");
        if (portCount < 1 || (type == 'S' && portCount > PgftSpec.MAX_RADIX)) {
            throw error(number, kind + " " + Guids.format(guid) + " has " + portCount + " ports, expected "
                    + (type == 'S' ? "1.." + PgftSpec.MAX_RADIX : "at least 1"));
        }
        if (announcedKind != null) {
            String expectedKind = type == 'S' ? "switchguid" : type == 'H' ? "caguid" : "rtguid";
            if (!announcedKind.equals(expectedKind) || announced != guid) {
                throw error(number, kind + " " + Guids.format(guid) + " does not match '" + announcedKind + "="
                        + Guids.format(announced) + "' on line " + announcedLine);
            }
        }
        announcedKind = null;
        String description = "";
        int lid = 0;
        if (m.group(5) != null) {
            Matcher d = (type == 'S' ? SWITCH_DESC : CA_DESC).matcher(m.group(5).strip());
            if (d.matches()) {
                description = d.group(1).strip();
                lid = type == 'S' ? parseLid(number, d.group(2)) : 0;
            }
        }
        Device device = new Device(type, guid, portCount, description, lid, number);
        Device previous = devices.putIfAbsent(guid, device);
        if (previous != null) {
            throw error(number, "GUID " + Guids.format(guid) + " already has a " + previous.typeName() + " block on line "
                    + previous.line());
        }
        current = device;
    }

    private void portLine(int number, String line) {
        Matcher m = PORT.matcher(line);
        if (!m.matches()) {
            throw error(number, "malformed port line '" + abbreviate(line) + "': expected [port] \"S-guid\"[port]");
        }
        if (current == null) {
            throw error(number, "port line outside a Switch, Ca or Rt block");
        }
        int port = parseInt(number, m.group(1), "port");
        if (port < 1 || port > current.ports()) {
            throw error(number, "port " + port + " outside 1.." + current.ports() + " of " + current.typeName() + " "
                    + Guids.format(current.guid()));
        }
        int peerPort = parseInt(number, m.group(5), "peer port");
        if (peerPort < 1) {
            throw error(number, "peer port " + peerPort + " must be at least 1");
        }
        long portGuid = m.group(2) == null ? 0 : Guids.parseLenient(m.group(2));
        long peerPortGuid = m.group(6) == null ? 0 : Guids.parseLenient(m.group(6));
        int ownLid = 0;
        int ownLmc = -1;
        int peerLid = 0;
        if (m.group(7) != null) {
            Matcher own = OWN_LID.matcher(m.group(7));
            Matcher peer = PEER_LID.matcher(m.group(7));
            if (own.matches()) {
                ownLid = parseLid(number, own.group(1));
                ownLmc = own.group(2) == null ? -1 : parseInt(number, own.group(2), "LMC");
            } else if (peer.matches()) {
                peerLid = parseLid(number, peer.group(1));
            }
        }
        PortLine p = new PortLine(current.guid(), port, portGuid, m.group(3).charAt(0), Guids.parseLenient(m.group(4)),
                peerPort, peerPortGuid, ownLid, ownLmc, peerLid, number);
        PortLine previous = ports.putIfAbsent(new PortRef(current.guid(), port), p);
        if (previous != null) {
            throw error(number, "port " + port + " of " + Guids.format(current.guid()) + " already listed on line "
                    + previous.line());
        }
    }

    private int parseInt(int line, String digits, String what) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            throw error(line, what + " '" + digits + "' is too large");
        }
    }

    /** A LID from a comment; 0 ("none", as ibnetdiscover prints for an unconfigured port) is kept as none. */
    private int parseLid(int line, String digits) {
        int lid = parseInt(line, digits, "LID");
        if (lid > LidPlan.MAX_UNICAST_LID) {
            throw error(line, "LID " + lid + " is outside the unicast range 1.." + LidPlan.MAX_UNICAST_LID);
        }
        return lid;
    }

    private static String abbreviate(String line) {
        return line.length() <= 80 ? line : line.substring(0, 77) + "...";
    }

    // ---- model ------------------------------------------------------------------------------

    private LidFabric build() {
        if (devices.isEmpty()) {
            throw new TopologyException(source + ": no Switch, Ca or Rt block found");
        }
        // Cables, once each, checked against the other end's line when it has one.
        Map<Link, PortLine> cables = new LinkedHashMap<>();
        for (PortLine p : ports.values()) {
            Device peer = devices.get(p.peer());
            if (peer == null) {
                throw error(p.line(), "peer " + p.peerType() + "-" + hex(p.peer()) + " has no block in the file");
            }
            if (peer.type() != p.peerType()) {
                throw error(p.line(), "peer " + Guids.format(p.peer()) + " is written \"" + p.peerType() + "-\" but its block on line "
                        + peer.line() + " is a " + peer.typeName());
            }
            if (p.peerPort() > peer.ports()) {
                throw error(p.line(), "peer port " + p.peerPort() + " outside 1.." + peer.ports() + " of " + peer.typeName()
                        + " " + Guids.format(peer.guid()) + " (line " + peer.line() + ")");
            }
            PortLine back = ports.get(new PortRef(p.peer(), p.peerPort()));
            if (back != null && (back.peer() != p.owner() || back.peerPort() != p.port())) {
                throw error(p.line(), Guids.format(p.owner()) + "[" + p.port() + "] - " + Guids.format(p.peer()) + "["
                        + p.peerPort() + "] but line " + back.line() + " says " + Guids.format(back.owner()) + "["
                        + back.port() + "] - " + Guids.format(back.peer()) + "[" + back.peerPort() + "]");
            }
            Link cable = new Link(p.owner(), p.port(), p.peer(), p.peerPort()).normalized();
            cables.putIfAbsent(cable, p);
        }
        // Connected ports per CA/router, and the GUID of each end node.
        Map<Long, Set<Integer>> connected = new HashMap<>();
        Map<PortRef, Long> portGuids = new HashMap<>();
        Map<PortRef, Integer> portLids = new HashMap<>();
        Set<Integer> lmcs = new TreeSet<>();
        for (PortLine p : ports.values()) {
            if (p.ownLid() > 0 && !devices.get(p.owner()).isSwitch()) {
                portLids.put(new PortRef(p.owner(), p.port()), p.ownLid());
                if (p.ownLmc() >= 0) {
                    lmcs.add(p.ownLmc());
                }
            }
        }
        for (PortLine p : ports.values()) {
            if (p.peerLid() > 0 && !devices.get(p.peer()).isSwitch()) {
                portLids.putIfAbsent(new PortRef(p.peer(), p.peerPort()), p.peerLid());
            }
        }
        for (PortLine p : ports.values()) {
            if (!devices.get(p.owner()).isSwitch()) {
                connected.computeIfAbsent(p.owner(), k -> new LinkedHashSet<>()).add(p.port());
                if (p.portGuid() != 0) {
                    portGuids.put(new PortRef(p.owner(), p.port()), p.portGuid());
                }
            }
            if (!devices.get(p.peer()).isSwitch()) {
                connected.computeIfAbsent(p.peer(), k -> new LinkedHashSet<>()).add(p.peerPort());
                if (p.peerPortGuid() != 0) {
                    portGuids.putIfAbsent(new PortRef(p.peer(), p.peerPort()), p.peerPortGuid());
                }
            }
        }
        List<FabricSwitch> switches = new ArrayList<>();
        List<EndNode> nodes = new ArrayList<>();
        Map<PortRef, Long> endNodeOf = new HashMap<>();
        Map<Long, Integer> lids = new HashMap<>();
        Map<Long, Long> lidPortGuids = new HashMap<>();
        Map<Long, Integer> guidLine = new HashMap<>();
        for (Device d : devices.values()) {
            guidLine.put(d.guid(), d.line());
        }
        for (Device d : devices.values()) {
            String name = d.description().isEmpty() ? d.type() + "-" + hex(d.guid()) : d.description();
            if (d.isSwitch()) {
                switches.add(new FabricSwitch(d.guid(), name, d.ports()));
                if (d.lid() > 0) {
                    lids.put(d.guid(), d.lid());
                }
                continue;
            }
            Set<Integer> used = connected.getOrDefault(d.guid(), Set.of());
            if (used.size() <= 1) {
                nodes.add(new EndNode(d.guid(), name, nodes.size()));
                for (int port : used) {
                    endNodeOf.put(new PortRef(d.guid(), port), d.guid());
                    keepLid(d.guid(), new PortRef(d.guid(), port), portLids, portGuids, lids, lidPortGuids);
                }
                continue;
            }
            List<Integer> sorted = new ArrayList<>(used);
            Collections.sort(sorted);
            for (int port : sorted) {
                Long guid = portGuids.get(new PortRef(d.guid(), port));
                if (guid == null) {
                    throw error(d.line(), d.typeName() + " " + Guids.format(d.guid()) + " has " + used.size()
                            + " connected ports and port " + port + " has no port GUID: one end node per port needs it");
                }
                Integer clash = guidLine.putIfAbsent(guid, d.line());
                if (clash != null) {
                    throw error(d.line(), "port GUID " + Guids.format(guid) + " of port " + port + " is also the GUID on line "
                            + clash);
                }
                nodes.add(new EndNode(guid, name + " port " + port, nodes.size()));
                endNodeOf.put(new PortRef(d.guid(), port), guid);
                keepLid(guid, new PortRef(d.guid(), port), portLids, portGuids, lids, lidPortGuids);
            }
        }
        List<Link> links = new ArrayList<>();
        for (Link c : cables.keySet()) {
            links.add(new Link(end(c.a(), c.aPort(), endNodeOf), endPort(c.a(), c.aPort(), endNodeOf),
                    end(c.b(), c.bPort(), endNodeOf), endPort(c.b(), c.bPort(), endNodeOf)));
        }
        Fabric fabric;
        // OpenSM gives every CA and router port the subnet's LMC: each port answers to 2^lmc LIDs
        int lmc = lmcs.isEmpty() ? 0 : lmcs.iterator().next();
        if (lmcs.size() > 1) {
            throw new TopologyException(source + ": CA ports with LMC " + lmcs + ": one LMC per subnet is routed,"
                    + " as OpenSM gives every end port its lmc");
        }
        try {
            fabric = TopologicalIndexer.reindex(new Fabric(null, switches, nodes, links)).withLmc(lmc);
        } catch (TopologyException e) {
            throw new TopologyException(source + ": " + e.getMessage(), e);
        }
        try {
            List<Long> endPorts = new ArrayList<>();
            fabric.nodes().forEach(n -> endPorts.add(n.guid()));
            return new LidFabric(fabric, new LidPlan(lids, lidPortGuids).withLmc(lmc, endPorts));
        } catch (TopologyException e) {
            // the fabric is fine without LIDs (topology --check, route to lft-text): only OpenSM's format needs them
            return new LidFabric(fabric, null, source + ": " + e.getMessage());
        }
    }

    private static void keepLid(long node, PortRef port, Map<PortRef, Integer> portLids, Map<PortRef, Long> portGuids,
                                Map<Long, Integer> lids, Map<Long, Long> lidPortGuids) {
        Integer lid = portLids.get(port);
        if (lid != null) {
            lids.put(node, lid);
            Long portGuid = portGuids.get(port);
            if (portGuid != null && portGuid != node) {
                lidPortGuids.put(node, portGuid);
            }
        }
    }

    private static long end(long device, int port, Map<PortRef, Long> endNodeOf) {
        Long node = endNodeOf.get(new PortRef(device, port));
        return node == null ? device : node;
    }

    private static int endPort(long device, int port, Map<PortRef, Long> endNodeOf) {
        return endNodeOf.containsKey(new PortRef(device, port)) ? 1 : port;
    }

    private static String hex(long guid) {
        return Guids.format(guid).substring(2);
    }
}
