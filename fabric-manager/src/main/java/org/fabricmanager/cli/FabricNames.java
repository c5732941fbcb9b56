package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * What an operator types for an end node or a switch in the admin commands, turned into what the REST API takes:
 * a destination index, a GUID ({@code 0x...}) or a name as the fabric reports it (a node's or switch's
 * description). Names need the live fabric ({@code GET /api/v1/topology}), fetched once and only when a name
 * is given; indices and GUIDs of switches are taken as they are.
 */
final class FabricNames {
    private final String command;
    private final Supplier<JsonNode> topology;
    private Map<String, Integer> nodeIndexByKey;
    private Map<String, String> switchGuidByName;

    /** @param topology fetches the daemon's {@code fabric-topology/1} document (called at most once) */
    FabricNames(String command, Supplier<JsonNode> topology) {
        this.command = command;
        this.topology = topology;
    }

    /** The destination index of the end node {@code text} names: an index, the node's GUID or its name. */
    int node(String text, String option) {
        String t = text.trim();
        if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
            try {
                return Integer.parseInt(t);
            } catch (NumberFormatException e) {
                throw new UsageException(command + ": --" + option + " " + text + ": not a destination index");
            }
        }
        Integer index = nodes().get(key(t));
        if (index == null) {
            throw new UsageException(command + ": --" + option + " '" + text + "': no end node of the fabric has this "
                    + (isGuid(t) ? "GUID" : "name") + " (give a destination index, a node GUID or a node name)");
        }
        return index;
    }

    /** The GUID ({@code 0x} and 16 digits) of the switch {@code text} names: its GUID or its name. */
    String switchGuid(String text, String where) {
        String t = text.trim();
        if (isGuid(t)) {
            return Guids.format(Guids.parseLenient(t));
        }
        String guid = switches().get(t);
        if (guid == null) {
            throw new UsageException(command + ": " + where + ": no switch of the fabric is named '" + t
                    + "' (give its GUID, 0x followed by up to 16 hex digits, or its name)");
        }
        return guid;
    }

    private static boolean isGuid(String t) {
        if (!t.startsWith("0x") && !t.startsWith("0X")) {
            return false;
        }
        try {
            Guids.parseLenient(t);
            return true;
        } catch (TopologyException e) {
            return false;
        }
    }

    /** A GUID in its canonical form, a name as it is: both kinds of keys share one map. */
    private static String key(String t) {
        return isGuid(t) ? Guids.format(Guids.parseLenient(t)) : t;
    }

    private Map<String, Integer> nodes() {
        if (nodeIndexByKey == null) {
            load();
        }
        return nodeIndexByKey;
    }

    private Map<String, String> switches() {
        if (switchGuidByName == null) {
            load();
        }
        return switchGuidByName;
    }

    private void load() {
        JsonNode fabric = topology.get();
        Map<String, Integer> nodes = new HashMap<>();
        Map<String, Integer> nameUses = new HashMap<>();
        for (JsonNode n : fabric.path("nodes")) {
            if (!n.hasNonNull("index")) {
                continue; // not routed yet: it has no destination index
            }
            int index = n.path("index").asInt();
            nodes.put(key(n.path("guid").asText()), index);
            String name = n.path("name").asText("");
            if (!name.isEmpty() && nameUses.merge(name, 1, Integer::sum) == 1) {
                nodes.put(name, index);
            }
        }
        Map<String, String> switches = new HashMap<>();
        for (JsonNode s : fabric.path("switches")) {
            String name = s.path("name").asText("");
            if (!name.isEmpty() && nameUses.merge(name, 1, Integer::sum) == 1) {
                switches.put(name, Guids.format(Guids.parseLenient(s.path("guid").asText())));
            }
        }
        // a name two devices share names neither: the operator must use the GUID
        nameUses.forEach((name, uses) -> {
            if (uses > 1) {
                nodes.remove(name);
                switches.remove(name);
            }
        });
        nodeIndexByKey = nodes;
        switchGuidByName = switches;
    }
}
