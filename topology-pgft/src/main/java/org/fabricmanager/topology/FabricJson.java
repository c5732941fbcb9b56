package org.fabricmanager.topology;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.PrettyPrinter;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reader and writer of {@code fabric-topology/1} (see {@code docs/formats.md}). The reader
 * rejects, with a message naming the entry, every malformed or inconsistent input; fields it does
 * not know are ignored so that later versions may add optional fields. The optional {@code "hdft"}
 * field, the expected 2-D fat tree ({@code HDFT(XxY;k;r;c)}), is such an addition: older readers
 * ignore it.
 */
public final class FabricJson {
    /** The value of the {@code format} field. */
    public static final String FORMAT = "fabric-topology/1";

    /*
     * Strict on purpose: a repeated key or a second document after the first would otherwise be
     * dropped silently, losing part of an operator's fabric.
     */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private FabricJson() {
    }

    /** Reads a file; errors name the file. */
    public static Fabric read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        } catch (NoSuchFileException e) {
            throw new TopologyException(file + ": no such file");
        } catch (IOException e) {
            throw new TopologyException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Reads from a stream; {@code source} names it in error messages. */
    public static Fabric read(InputStream in, String source) {
        JsonNode root;
        try {
            root = MAPPER.readTree(in);
        } catch (JsonProcessingException e) {
            // Jackson leaves the location out for some failures (e.g. a stream that ends inside a token).
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new TopologyException(source + ": not valid JSON" + where + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new TopologyException(source + ": cannot read: " + e.getMessage(), e);
        }
        try {
            return parse(root);
        } catch (TopologyException e) {
            throw new TopologyException(source + ": " + e.getMessage(), e);
        }
    }

    /** Parses a JSON string (used by the REST client and tests). */
    public static Fabric parse(String json) {
        return read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "<json>");
    }

    private static Fabric parse(JsonNode root) {
        if (root == null || !root.isObject()) {
            throw new TopologyException("top level must be a JSON object");
        }
        JsonNode format = root.get("format");
        if (format == null || !format.isTextual()) {
            throw new TopologyException("missing \"format\": expected \"" + FORMAT + "\"");
        }
        if (!FORMAT.equals(format.asText())) {
            throw new TopologyException("unsupported format \"" + format.asText() + "\": expected \"" + FORMAT + "\"");
        }
        PgftSpec pgft = null;
        JsonNode pgftNode = root.get("pgft");
        if (pgftNode != null && !pgftNode.isNull()) {
            if (!pgftNode.isTextual()) {
                throw new TopologyException("\"pgft\" must be a string");
            }
            try {
                pgft = PgftSpec.parse(pgftNode.asText());
            } catch (TopologyException e) {
                throw new TopologyException("\"pgft\": " + e.getMessage(), e);
            }
        }
        HdftSpec hdft = null;
        JsonNode hdftNode = root.get("hdft");
        if (hdftNode != null && !hdftNode.isNull()) {
            if (!hdftNode.isTextual()) {
                throw new TopologyException("\"hdft\" must be a string");
            }
            try {
                hdft = HdftSpec.parse(hdftNode.asText());
            } catch (TopologyException e) {
                throw new TopologyException("\"hdft\": " + e.getMessage(), e);
            }
            if (pgft != null) {
                throw new TopologyException("\"pgft\" and \"hdft\" cannot both be given: a fabric has one expected shape");
            }
        }
        List<FabricSwitch> switches = new ArrayList<>();
        JsonNode switchArray = array(root, "switches");
        for (int i = 0; i < switchArray.size(); i++) {
            JsonNode s = object(switchArray.get(i), "switches[" + i + "]");
            String where = "switches[" + i + "]";
            long guid = guid(s, "guid", where);
            String name = text(s, "name", where);
            int ports = integer(s, "ports", where);
            try {
                switches.add(new FabricSwitch(guid, name, ports));
            } catch (TopologyException e) {
                throw new TopologyException(where + ": " + e.getMessage());
            }
        }
        List<EndNode> nodes = new ArrayList<>();
        JsonNode nodeArray = array(root, "nodes");
        for (int i = 0; i < nodeArray.size(); i++) {
            String where = "nodes[" + i + "]";
            JsonNode n = object(nodeArray.get(i), where);
            long guid = guid(n, "guid", where);
            String name = text(n, "name", where);
            int index = integer(n, "index", where);
            try {
                nodes.add(new EndNode(guid, name, index));
            } catch (TopologyException e) {
                throw new TopologyException(where + ": " + e.getMessage());
            }
        }
        List<Link> links = new ArrayList<>();
        JsonNode linkArray = array(root, "links");
        for (int i = 0; i < linkArray.size(); i++) {
            String where = "links[" + i + "]";
            JsonNode l = object(linkArray.get(i), where);
            links.add(new Link(guid(l, "a", where), integer(l, "aPort", where), guid(l, "b", where),
                    integer(l, "bPort", where)));
        }
        return new Fabric(pgft, hdft, switches, nodes, links);
    }

    private static JsonNode array(JsonNode root, String field) {
        JsonNode a = root.get(field);
        if (a == null) {
            throw new TopologyException("missing \"" + field + "\" array");
        }
        if (!a.isArray()) {
            throw new TopologyException("\"" + field + "\" must be an array");
        }
        return a;
    }

    private static JsonNode object(JsonNode node, String where) {
        if (node == null || !node.isObject()) {
            throw new TopologyException(where + ": must be an object");
        }
        return node;
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual()) {
            throw new TopologyException(where + ": \"" + field + "\" must be a string");
        }
        return v.asText();
    }

    private static int integer(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new TopologyException(where + ": \"" + field + "\" must be an integer");
        }
        return v.intValue();
    }

    private static long guid(JsonNode node, String field, String where) {
        String text = text(node, field, where);
        try {
            return Guids.parse(text);
        } catch (TopologyException e) {
            throw new TopologyException(where + ": \"" + field + "\": " + e.getMessage());
        }
    }

    /** Writes {@code fabric} to a file (UTF-8), replacing it. */
    public static void write(Fabric fabric, Path file) {
        try (OutputStream out = Files.newOutputStream(file)) {
            write(fabric, out);
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot write: " + e.getMessage(), e);
        }
    }

    /** The fabric as a JSON string. */
    public static String toJson(Fabric fabric) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            write(fabric, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * Streams {@code fabric} as {@code fabric-topology/1}: one entry per line, switches in ascending
     * GUID order, nodes in ascending index order, links as given. The stream is not closed.
     */
    public static void write(Fabric fabric, OutputStream out) throws IOException {
        FabricIndex index = fabric.index();
        JsonFactory factory = MAPPER.getFactory();
        try (JsonGenerator g = factory.createGenerator(out, JsonEncoding.UTF8)) {
            g.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
            g.setPrettyPrinter(new OneEntryPerLine());
            g.writeStartObject();
            g.writeStringField("format", FORMAT);
            if (fabric.pgft().isPresent()) {
                g.writeStringField("pgft", fabric.pgft().get().toString());
            }
            if (fabric.hdft().isPresent()) {
                g.writeStringField("hdft", fabric.hdft().get().toString());
            }
            g.writeArrayFieldStart("switches");
            for (int s = 0; s < index.switchCount(); s++) {
                FabricSwitch sw = fabric.switchByGuid(index.switchGuid(s)).orElseThrow();
                g.writeStartObject();
                g.writeStringField("guid", Guids.format(sw.guid()));
                g.writeStringField("name", sw.name());
                g.writeNumberField("ports", sw.ports());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("nodes");
            for (int i = 0; i < index.nodeCount(); i++) {
                EndNode n = fabric.nodeByGuid(index.nodeGuid(i)).orElseThrow();
                g.writeStartObject();
                g.writeStringField("guid", Guids.format(n.guid()));
                g.writeStringField("name", n.name());
                g.writeNumberField("index", n.index());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("links");
            for (Link l : fabric.links()) {
                g.writeStartObject();
                g.writeStringField("a", Guids.format(l.a()));
                g.writeNumberField("aPort", l.aPort());
                g.writeStringField("b", Guids.format(l.b()));
                g.writeNumberField("bPort", l.bPort());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    /**
     * The file layout: top-level fields and array entries one per line, each entry compact. Jackson
     * writes the separators itself; this only adds line breaks around them, so the output is always
     * valid JSON (writing separators by hand doubled them).
     */
    private static final class OneEntryPerLine implements PrettyPrinter {
        private int depth;

        @Override
        public void writeRootValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw('\n');
        }

        @Override
        public void writeStartObject(JsonGenerator g) throws IOException {
            g.writeRaw('{');
            depth++;
        }

        @Override
        public void beforeObjectEntries(JsonGenerator g) throws IOException {
            if (depth == 1) {
                g.writeRaw("\n  ");
            }
        }

        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(':');
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
            g.writeRaw(depth == 1 ? ",\n  " : ",");
        }

        @Override
        public void writeEndObject(JsonGenerator g, int entries) throws IOException {
            depth--;
            g.writeRaw(depth == 0 && entries > 0 ? "\n}" : "}");
        }

        @Override
        public void writeStartArray(JsonGenerator g) throws IOException {
            g.writeRaw('[');
            depth++;
        }

        @Override
        public void beforeArrayValues(JsonGenerator g) throws IOException {
            g.writeRaw("\n    ");
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(",\n    ");
        }

        @Override
        public void writeEndArray(JsonGenerator g, int values) throws IOException {
            depth--;
            g.writeRaw(values == 0 ? "]" : "\n  ]");
        }
    }
}
