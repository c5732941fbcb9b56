package org.fabricmanager.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;

/** Writes {@code fabric-topology/1} files for CLI tests, straight from docs/formats.md (independent of the project's writer). */
final class TopologyFiles {
    private TopologyFiles() {
    }

    static Path write(Fabric fabric, Path file) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("format", "fabric-topology/1");
        fabric.pgft().ifPresent(p -> root.put("pgft", p.toString()));
        ArrayNode switches = root.putArray("switches");
        for (FabricSwitch s : fabric.switches()) {
            switches.addObject().put("guid", Guids.format(s.guid())).put("name", s.name()).put("ports", s.ports());
        }
        ArrayNode nodes = root.putArray("nodes");
        for (EndNode n : fabric.nodes()) {
            nodes.addObject().put("guid", Guids.format(n.guid())).put("name", n.name()).put("index", n.index());
        }
        ArrayNode links = root.putArray("links");
        for (Link l : fabric.links()) {
            links.addObject().put("a", Guids.format(l.a())).put("aPort", l.aPort()).put("b", Guids.format(l.b()))
                    .put("bPort", l.bPort());
        }
        mapper.writeValue(file.toFile(), root);
        return file;
    }
}
