package org.fabricmanager.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fabricmanager.testing.TestFabrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code fabric-topology/1}: round trips, and every validation rule rejecting a crafted file by entry. */
class FabricJsonTest {
    private static final String S = "0x1000000100000000";
    private static final String N0 = "0x2000000000000000";
    private static final String N1 = "0x2000000000000001";

    @Test
    void generateWriteReadGivesAnEqualFabricForManySpecs(@TempDir Path dir) throws Exception {
        for (PgftSpec spec : TestFabrics.manySpecs()) {
            Fabric fabric = PgftGenerator.generate(spec);
            Path file = dir.resolve("f.json");
            FabricJson.write(fabric, file);
            Fabric back = FabricJson.read(file);
            assertThat(back).as(spec.toString()).isEqualTo(fabric);
            assertThat(back.pgft()).contains(spec);
            assertThat(FabricJson.toJson(back)).isEqualTo(FabricJson.toJson(fabric));
        }
    }

    @Test
    void degradedAndRelabelledFabricsSurviveTheRoundTrip() {
        Fabric degraded = Degrader.degrade(PgftGenerator.generate(PgftSpec.parse("PGFT(3;2,2,3;1,2,2;1,2,1)")),
                DegradationPlan.random(0.3, 2, 5));
        assertThat(FabricJson.parse(FabricJson.toJson(degraded))).isEqualTo(degraded);
        Fabric relabelled = TestFabrics.relabel(degraded, 3);
        Fabric back = FabricJson.parse(FabricJson.toJson(relabelled));
        assertThat(back).isEqualTo(relabelled);
        assertThat(back.pgft()).isEmpty();
    }

    @Test
    void writesTheDocumentedLayout() {
        String json = FabricJson.toJson(PgftGenerator.generate(PgftSpec.parse("PGFT(1;2;1;1)")));
        assertThat(json).isEqualTo("""
                {
                  "format":"fabric-topology/1",
                  "pgft":"PGFT(1;2;1;1)",
                  "switches":[
                    {"guid":"0x1000000100000000","name":"s1-0","ports":2}
                  ],
                  "nodes":[
                    {"guid":"0x2000000000000000","name":"n0","index":0},
                    {"guid":"0x2000000000000001","name":"n1","index":1}
                  ],
                  "links":[
                    {"a":"0x1000000100000000","aPort":1,"b":"0x2000000000000000","bPort":1},
                    {"a":"0x1000000100000000","aPort":2,"b":"0x2000000000000001","bPort":1}
                  ]
                }
                """);
    }

    @Test
    void acceptsNodesWithoutLinksSparseIndicesUnknownFieldsAndNoPgft() {
        Fabric f = FabricJson.parse(doc(
                sw(S, "leaf", 2),
                node(N0, "a", 7) + "," + node(N1, "b", 3),
                link(S, 1, N0, 1)).replace("\"format\"", "\"comment\":\"later versions add fields\",\"format\""));
        assertThat(f.pgft()).isEmpty();
        assertThat(f.index().destinationCount()).isEqualTo(8);
        assertThat(f.index().nodeLeaf(f.index().nodePosition(Guids.parse(N1)))).isEqualTo(FabricIndex.NONE);
    }

    /** Each row: the switches, nodes and links arrays of a crafted file, and what the message must say. */
    @ParameterizedTest(name = "{3}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        // unknown GUIDs in links
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':0}`"
            + "|`{'a':'" + S + "','aPort':1,'b':'" + N0 + "','bPort':1},{'a':'" + S + "','aPort':2,'b':'0x2000000000000009','bPort':1}`"
            + "|links[1] 0x1000000100000000:2-0x2000000000000009:1: unknown GUID 0x2000000000000009",
        // a port used twice
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':0},{'guid':'" + N1 + "','name':'m','index':1}`"
            + "|`{'a':'" + S + "','aPort':1,'b':'" + N0 + "','bPort':1},{'a':'" + S + "','aPort':1,'b':'" + N1 + "','bPort':1}`"
            + "|port 1 of switch 0x1000000100000000 (s) is used twice",
        // a port above the switch's ports
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':0}`"
            + "|`{'a':'" + S + "','aPort':3,'b':'" + N0 + "','bPort':1}`"
            + "|links[0] 0x1000000100000000:3-0x2000000000000000:1: port 3 outside [1, 2]",
        // port 0
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':0}`"
            + "|`{'a':'" + S + "','aPort':0,'b':'" + N0 + "','bPort':1}`"
            + "|links[0] 0x1000000100000000:0-0x2000000000000000:1: port 0 outside [1, 2]",
        // duplicate switch GUIDs
        "`{'guid':'" + S + "','name':'s','ports':2},{'guid':'" + S + "','name':'t','ports':2}`|``|``"
            + "|switches[1]: duplicate switch GUID 0x1000000100000000",
        // duplicate node GUIDs
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':0},{'guid':'" + N0 + "','name':'m','index':1}`|``"
            + "|nodes[1]: duplicate node GUID 0x2000000000000000",
        // a node with a switch's GUID
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + S + "','name':'n','index':0}`|``"
            + "|nodes[0]: GUID 0x1000000100000000 is also a switch's GUID",
        // duplicate indices
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':4},{'guid':'" + N1 + "','name':'m','index':4}`|``"
            + "|nodes[1] (0x2000000000000001): duplicate index 4",
        // a node with more than one link
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':0}`"
            + "|`{'a':'" + S + "','aPort':1,'b':'" + N0 + "','bPort':1},{'a':'" + S + "','aPort':2,'b':'" + N0 + "','bPort':1}`"
            + "|links[1] 0x1000000100000000:2-0x2000000000000000:1: node 0x2000000000000000 (n) has more than one link",
        // a node port other than 1
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':0}`"
            + "|`{'a':'" + S + "','aPort':1,'b':'" + N0 + "','bPort':2}`"
            + "|links[0] 0x1000000100000000:1-0x2000000000000000:2: node 0x2000000000000000 (n) has only port 1",
        // entries with wrong types or values
        "`{'guid':'0x10000001000000AB','name':'s','ports':2}`|``|``|switches[0]: \"guid\": bad GUID '0x10000001000000AB'",
        "`{'guid':'0x1000','name':'s','ports':2}`|``|``|switches[0]: \"guid\": bad GUID '0x1000'",
        "`{'guid':'" + S + "','name':'s','ports':2.5}`|``|``|switches[0]: \"ports\" must be an integer",
        "`{'guid':'" + S + "','name':'s','ports':255}`|``|``|switches[0]: switch 0x1000000100000000 (s): port count 255 outside [1, 254]",
        "`{'guid':'" + S + "','name':' ','ports':2}`|``|``|switches[0]: switch 0x1000000100000000: empty name",
        "`{'guid':'" + S + "','ports':2}`|``|``|switches[0]: \"name\" must be a string",
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':-1}`|``|nodes[0]: node 0x2000000000000000 (n): negative index -1",
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':'1'}`|``|nodes[0]: \"index\" must be an integer",
        "`{'guid':'" + S + "','name':'s','ports':2}`|`{'guid':'" + N0 + "','name':'n','index':3000000000}`|``|nodes[0]: \"index\" must be an integer",
        "`{'guid':'" + S + "','name':'s','ports':2}`|`3`|``|nodes[0]: must be an object",
        "`{'guid':'" + S + "','name':'s','ports':2}`|``|`{'a':'" + S + "','aPort':1,'b':'" + N0 + "'}`|links[0]: \"bPort\" must be an integer",
    })
    void rejectsEachBrokenRuleNamingTheEntry(String switches, String nodes, String links, String message) {
        String json = doc(switches, nodes, links).replace('\'', '"');
        assertThatThrownBy(() -> FabricJson.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "bad.json"))
                .isInstanceOf(TopologyException.class)
                .hasMessageStartingWith("bad.json: ")
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "``|top level must be a JSON object",
        "`[]`|top level must be a JSON object",
        "`{\"switches\":[],\"nodes\":[],\"links\":[]}`|missing \"format\"",
        "`{\"format\":\"fabric-topology/2\",\"switches\":[],\"nodes\":[],\"links\":[]}`|unsupported format \"fabric-topology/2\"",
        "`{\"format\":\"fabric-topology/1\",\"nodes\":[],\"links\":[]}`|missing \"switches\" array",
        "`{\"format\":\"fabric-topology/1\",\"switches\":{},\"nodes\":[],\"links\":[]}`|\"switches\" must be an array",
        "`{\"format\":\"fabric-topology/1\",\"pgft\":\"PGFT(2;2;1;1)\",\"switches\":[],\"nodes\":[],\"links\":[]}`|\"pgft\": PGFT: '",
        "`{\"format\":\"fabric-topology/1\",\"pgft\":7,\"switches\":[],\"nodes\":[],\"links\":[]}`|\"pgft\" must be a string",
        "`{\"format\":\"fabric-topology/1\",\n\"switches\":[,]}`|not valid JSON at line 2",
        "`{\"format\":\"fabric-topology/1\",\"switches\":[],\"switches\":[],\"nodes\":[],\"links\":[]}`|Duplicate field 'switches'",
        "`{\"format\":\"fabric-topology/1\",\"switches\":[],\"nodes\":[],\"links\":[]} {}`|not valid JSON",
        "`{\"format\":\"fabric-topology/1\",\"switches\":[`|not valid JSON",
    })
    void rejectsBrokenDocuments(String json, String message) {
        assertThatThrownBy(() -> FabricJson.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "bad.json"))
                .isInstanceOf(TopologyException.class)
                .hasMessageStartingWith("bad.json: ")
                .hasMessageContaining(message);
    }

    @Test
    void namesAMissingFile(@TempDir Path dir) {
        Path missing = dir.resolve("nope.json");
        assertThatThrownBy(() -> FabricJson.read(missing)).hasMessage(missing + ": no such file");
    }

    @Test
    void readsWhatWasWrittenToAFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("x.json");
        Files.writeString(file, doc(sw(S, "leaf", 2), node(N0, "a", 0), link(S, 2, N0, 1)));
        assertThat(FabricJson.read(file).links()).containsExactly(new Link(Guids.parse(S), 2, Guids.parse(N0), 1));
    }

    private static String doc(String switches, String nodes, String links) {
        return "{\"format\":\"fabric-topology/1\",\"switches\":[" + switches + "],\"nodes\":[" + nodes + "],\"links\":["
                + links + "]}";
    }

    private static String sw(String guid, String name, int ports) {
        return "{\"guid\":\"" + guid + "\",\"name\":\"" + name + "\",\"ports\":" + ports + "}";
    }

    private static String node(String guid, String name, int index) {
        return "{\"guid\":\"" + guid + "\",\"name\":\"" + name + "\",\"index\":" + index + "}";
    }

    private static String link(String a, int aPort, String b, int bPort) {
        return "{\"a\":\"" + a + "\",\"aPort\":" + aPort + ",\"b\":\"" + b + "\",\"bPort\":" + bPort + "}";
    }
}
