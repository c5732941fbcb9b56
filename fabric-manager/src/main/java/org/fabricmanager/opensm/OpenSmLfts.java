package org.fabricmanager.opensm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.routing.ForwardingTables;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricIndex;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.LidPlan;
import org.fabricmanager.topology.TopologyException;

/**
 * OpenSM's {@code opensm-lfts.dump} format, keyed by LID: what OpenSM writes when routing is
 * logged and what its {@code file} engine ({@code opensm -R file -U FILE}) loads. Per switch, a
 * header {@code Unicast lids [0-MAX] of switch Lid L guid 0x%016x ('name'):}, one line
 * {@code 0x%04x %03u # Switch|Channel Adapter portguid 0x%016x: 'name'} per routed LID (the port
 * GUID lets OpenSM re-map a LID that changed) and {@code N lids dumped}. Unrouted LIDs are left
 * out, since OpenSM's loader rejects anything but a port number and starts every table unrouted.
 * An end-node entry the engine left unrouted on a switch that no valid route passes through (a
 * spine of a degraded tree with no way down) is routed towards the node's leaf by the switch-LID
 * rule, so that management traffic from every switch reaches every node; each such hop gets
 * closer to the leaf and then meets the engine's own routes, so no loop forms, and the routes
 * between nodes are the engine's, unchanged.
 *
 * <p>With an LMC ({@link Fabric#lmc()}), every LID of an end port is written: its base LID and each LID above it
 * (the path bits), each the entry of its own destination.
 *
 * <p>The reader also takes what {@code ibroute} prints (hexadecimal LID range, {@code : (...)}
 * before the description, column headings) and OpenSM's {@code UNREACHABLE} lines.
 */
public final class OpenSmLfts {
    /** Lines longer than this are refused (OpenSM's own loader reads 1,024 bytes). */
    static final int MAX_LINE = 4096;

    private static final Pattern HEADER = Pattern.compile("Unicast lids \\[[^\\]]*\\] of switch .*? guid 0x([0-9a-fA-F]{1,16})\\b.*");
    private static final Pattern ENTRY = Pattern.compile("0x([0-9a-fA-F]{1,4})\\s+(\\d{1,3})(?:\\s.*)?");
    private static final Pattern UNREACHABLE = Pattern.compile("0x[0-9a-fA-F]{1,4}\\s*:\\s*UNREACHABLE\\s*");
    private static final Pattern FOOTER = Pattern.compile("\\d+ (?:valid )?lids dumped\\s*|Lid\\s+Out\\s+Destination\\s*|Port\\s+Info\\s*");

    private OpenSmLfts() {
    }

    /**
     * Writes {@code tables} (end-node destinations) plus {@code switchRoutes} from
     * {@link SwitchLidRoutes} in OpenSM's format; every switch and node must have a LID.
     *
     * @throws TopologyException when a switch or node of the fabric has no LID in {@code lids}
     */
    public static void write(Fabric fabric, ForwardingTables tables, byte[][] switchRoutes, LidPlan lids, Writer out)
            throws IOException {
        FabricIndex index = fabric.index();
        int maxLid = lids.maxLid();
        String[] kind = new String[maxLid + 1];
        long[] portGuid = new long[maxLid + 1];
        String[] name = new String[maxLid + 1];
        for (int s = 0; s < index.switchCount(); s++) {
            long guid = index.switchGuid(s);
            int lid = requireLid(lids, guid, "switch");
            kind[lid] = "Switch";
            portGuid[lid] = guid;
            name[lid] = fabric.switchByGuid(guid).orElseThrow().name();
        }
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            long guid = index.nodeGuid(pos);
            int lid = nodeLid(lids, index, pos);
            kind[lid] = "Channel Adapter";
            portGuid[lid] = lids.portGuid(guid);
            name[lid] = fabric.nodeByGuid(guid).orElseThrow().name();
        }
        byte[][] byLid = byLid(fabric, tables, switchRoutes, lids);
        StringBuilder sb = new StringBuilder(256);
        for (int s = 0; s < index.switchCount(); s++) {
            long guid = index.switchGuid(s);
            int ownLid = lids.lid(guid).orElseThrow();
            sb.setLength(0);
            sb.append("Unicast lids [0-").append(maxLid).append("] of switch Lid ").append(ownLid).append(" guid ")
                    .append(hex16(guid)).append(" ('").append(name[ownLid]).append("'):\n");
            out.write(sb.toString());
            for (int lid = 1; lid <= maxLid; lid++) {
                int port = byLid[s][lid] & 0xff;
                if (kind[lid] == null || port == ForwardingTables.NO_ROUTE) {
                    continue;
                }
                sb.setLength(0);
                sb.append(String.format("0x%04x %03d # ", lid, port)).append(kind[lid]).append(" portguid ")
                        .append(hex16(portGuid[lid])).append(": '").append(name[lid]).append("'\n");
                out.write(sb.toString());
            }
            // OpenSM counts every LID up to the largest, printed or not (its updn dump of a degraded tree says
            // "4864 lids dumped" above 4,388 entry lines)
            out.write(maxLid + " lids dumped\n");
        }
        out.flush();
    }

    /**
     * The complete table of every switch by LID, as {@link #write} prints it: {@code byLid[s][lid]} for the
     * fabric's switch {@code s} and every LID 0..{@code lids.maxLid()}, 255 where unrouted. End-node LIDs from
     * {@code tables} (towards the node's leaf by {@code switchRoutes} where the engine leaves a switch unrouted),
     * switch LIDs from {@code switchRoutes}.
     *
     * @throws TopologyException when a switch or node of the fabric has no LID in {@code lids}
     */
    public static byte[][] byLid(Fabric fabric, ForwardingTables tables, byte[][] switchRoutes, LidPlan lids) {
        FabricIndex index = fabric.index();
        int maxLid = lids.maxLid();
        // destination by LID: a switch id (>= 0), an end node's destination index as -(d + 1), or none
        int[] target = new int[maxLid + 1];
        boolean[] known = new boolean[maxLid + 1];
        int[] leafOf = new int[maxLid + 1];
        for (int s = 0; s < index.switchCount(); s++) {
            int lid = requireLid(lids, index.switchGuid(s), "switch");
            target[lid] = s;
            known[lid] = true;
        }
        for (int pos = 0; pos < index.nodeCount(); pos++) {
            int lid = nodeLid(lids, index, pos);
            target[lid] = -(index.nodeIndex(pos) + 1);
            leafOf[lid] = index.nodeLeaf(pos);
            known[lid] = true;
        }
        byte[][] out = new byte[index.switchCount()][maxLid + 1];
        for (int s = 0; s < index.switchCount(); s++) {
            byte[] row = out[s];
            Arrays.fill(row, (byte) ForwardingTables.NO_ROUTE);
            for (int lid = 1; lid <= maxLid; lid++) {
                if (!known[lid]) {
                    continue;
                }
                int port = target[lid] >= 0 ? switchRoutes[target[lid]][s] & 0xff
                        : tables.port(s, -target[lid] - 1);
                if (port == ForwardingTables.NO_ROUTE && target[lid] < 0 && leafOf[lid] != FabricIndex.NONE) {
                    // a switch the engine never routes this node through (e.g. a spine that lost its way
                    // down): towards the node's leaf by the switch rule, so management replies still arrive
                    port = switchRoutes[leafOf[lid]][s] & 0xff;
                }
                row[lid] = (byte) port;
            }
        }
        return out;
    }

    /** {@link #write(Fabric, ForwardingTables, byte[][], LidPlan, Writer)} to a file. */
    public static void write(Fabric fabric, ForwardingTables tables, byte[][] switchRoutes, LidPlan lids, Path file) {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(fabric, tables, switchRoutes, lids, w);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads an {@code opensm-lfts.dump} (or {@code ibroute} output) as our tables: for each switch
     * of {@code fabric}, the entry of each end node's LID. Entries for switch LIDs are checked for a
     * valid port but not kept (our tables hold end-node destinations); a switch of the fabric that
     * the file leaves out keeps 255 everywhere.
     *
     * @throws TopologyException naming the line, for a malformed line, an unknown switch GUID, or a
     *                           port outside the switch
     */
    public static ForwardingTables read(Reader in, String source, Fabric fabric, LidPlan lids) throws IOException {
        FabricIndex index = fabric.index();
        long[] guids = new long[index.switchCount()];
        for (int s = 0; s < guids.length; s++) {
            guids[s] = index.switchGuid(s);
        }
        ForwardingTables.Builder builder = ForwardingTables.builder(guids, index.destinationCount());
        BufferedReader lines = in instanceof BufferedReader b ? b : new BufferedReader(in);
        int current = -1;
        boolean[] seen = new boolean[guids.length];
        String raw;
        int number = 0;
        while ((raw = lines.readLine()) != null) {
            number++;
            if (raw.length() > MAX_LINE) {
                throw new TopologyException(source + ":" + number + ": line longer than " + MAX_LINE + " characters");
            }
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || FOOTER.matcher(line).matches()
                    || UNREACHABLE.matcher(line).matches()) {
                continue;
            }
            Matcher m = HEADER.matcher(line);
            if (m.matches()) {
                long guid = Long.parseUnsignedLong(m.group(1), 16);
                current = index.switchId(guid);
                if (current == FabricIndex.NONE) {
                    throw new TopologyException(source + ":" + number + ": switch " + Guids.format(guid)
                            + " is not in the fabric");
                }
                if (seen[current]) {
                    throw new TopologyException(source + ":" + number + ": switch " + Guids.format(guid)
                            + " has a second table");
                }
                seen[current] = true;
                continue;
            }
            m = ENTRY.matcher(line);
            if (!m.matches()) {
                throw new TopologyException(source + ":" + number + ": unrecognised line '" + abbreviate(line) + "'");
            }
            if (current < 0) {
                throw new TopologyException(source + ":" + number + ": entry before any 'Unicast lids' header");
            }
            int lid = Integer.parseInt(m.group(1), 16);
            int port = Integer.parseInt(m.group(2));
            if (port > index.switchPorts(current)) {
                throw new TopologyException(source + ":" + number + ": port " + port + " outside 0.."
                        + index.switchPorts(current) + " of switch " + Guids.format(guids[current]));
            }
            long owner = lids.guidOfLid(lid).orElse(0L);
            int pos = owner == 0 ? FabricIndex.NONE : index.nodePosition(owner);
            if (pos != FabricIndex.NONE) {
                // an end port's extra LID (LMC > 0) is the position its path bits are above the base LID's
                int bits = lid - lids.lid(owner).orElseThrow();
                if (bits < 1 << index.lmc()) {
                    builder.set(current, index.nodeIndex(pos + bits), port);
                }
            }
        }
        return builder.build();
    }

    /** {@link #read(Reader, String, Fabric, LidPlan)} from a file. */
    public static ForwardingTables read(Path file, Fabric fabric, LidPlan lids) {
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(in, file.toString(), fabric, lids);
        } catch (NoSuchFileException e) {
            throw new TopologyException(file + ": no such file");
        } catch (IOException e) {
            throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * The LID of node position {@code pos}: its node's base LID plus its path bits (LMC > 0).
     *
     * @throws TopologyException when the node has no LID, or fewer LIDs in the plan than the fabric's LMC gives it
     */
    static int nodeLid(LidPlan lids, FabricIndex index, int pos) {
        long guid = index.nodeGuid(pos);
        int bits = index.pathBits(pos);
        if (bits >= lids.lidCount(guid)) {
            throw new TopologyException("node " + Guids.format(guid) + " has " + lids.lidCount(guid) + " LID(s), but the"
                    + " fabric's LMC " + index.lmc() + " gives it " + (1 << index.lmc()));
        }
        return requireLid(lids, guid, "node") + bits;
    }

    private static int requireLid(LidPlan lids, long guid, String what) {
        return lids.lid(guid).orElseThrow(() -> new TopologyException(what + " " + Guids.format(guid)
                + " has no LID (every switch and node needs one in OpenSM's tables)"));
    }

    private static String hex16(long guid) {
        return String.format("0x%016x", guid);
    }

    private static String abbreviate(String line) {
        return line.length() <= 80 ? line : line.substring(0, 77) + "...";
    }
}
