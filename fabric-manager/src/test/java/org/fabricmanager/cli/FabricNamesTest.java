package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FabricNamesTest {
    private static final String FABRIC = """
            {"format":"fabric-topology/1",
             "switches":[{"guid":"0x1000000100000000","name":"s1-0","ports":8},
                         {"guid":"0x1000000200000001","name":"spine","ports":8},
                         {"guid":"0x1000000200000002","name":"twin","ports":8}],
             "nodes":[{"guid":"0x2000000000000000","name":"n0","index":0},
                      {"guid":"0x2000000000000007","name":"gpu-7","index":7},
                      {"guid":"0x2000000000000009","name":"twin","index":9},
                      {"guid":"0x200000000000000a","name":"new"}],
             "links":[]}""";

    private final AtomicInteger fetches = new AtomicInteger();

    private FabricNames names() {
        return new FabricNames("route", () -> {
            fetches.incrementAndGet();
            try {
                return new ObjectMapper().readTree(FABRIC);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void nodesByIndexGuidOrName() {
        FabricNames names = names();
        assertThat(names.node("7", "src")).isEqualTo(7);
        assertThat(fetches).as("an index needs no fabric").hasValue(0);
        assertThat(names.node("gpu-7", "src")).isEqualTo(7);
        assertThat(names.node("0x2000000000000007", "dst")).isEqualTo(7);
        assertThat(names.node("0X2000000000000007", "dst")).as("GUIDs in any case and width").isEqualTo(7);
        assertThat(names.node("n0", "dst")).isZero();
        assertThat(fetches).as("the fabric is fetched once").hasValue(1);
    }

    @Test
    void unknownSharedOrUnroutedNamesAreOneLineErrors() {
        FabricNames names = names();
        assertThatThrownBy(() -> names.node("gpu-8", "src")).isInstanceOf(UsageException.class)
                .hasMessageContaining("route: --src 'gpu-8': no end node of the fabric has this name");
        assertThatThrownBy(() -> names.node("twin", "dst")).as("a name a node and a switch share names neither")
                .isInstanceOf(UsageException.class).hasMessageContaining("no end node");
        assertThatThrownBy(() -> names.switchGuid("twin", "--switch 'twin'")).isInstanceOf(UsageException.class)
                .hasMessageContaining("no switch of the fabric is named 'twin'");
        assertThatThrownBy(() -> names.node("0x200000000000000a", "dst")).as("not routed yet: no index")
                .isInstanceOf(UsageException.class).hasMessageContaining("this GUID");
    }

    @Test
    void switchesByGuidOrName() {
        FabricNames names = names();
        assertThat(names.switchGuid("0x1000000200000001", "--switch")).isEqualTo("0x1000000200000001");
        assertThat(fetches).as("a GUID needs no fabric").hasValue(0);
        assertThat(names.switchGuid("spine", "--switch")).isEqualTo("0x1000000200000001");
        assertThat(names.switchGuid(" s1-0 ", "--link 's1-0:3'")).isEqualTo("0x1000000100000000");
    }
}
