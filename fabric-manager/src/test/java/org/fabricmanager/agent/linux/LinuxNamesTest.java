package org.fabricmanager.agent.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The names the Linux agent hands iproute2: namespaces as {@code ip netns} names them, interfaces by the kernel's
 * rules and what batch input would misread, and refused values shown on one line.
 */
class LinuxNamesTest {
    @ParameterizedTest
    @ValueSource(strings = {"../../proc/1/ns/net", "/proc/1/ns/net", "a/b", "-all", "-n", ".", "..", "a\nb", "a b",
            "tab\there", "nul\u0000", "del\u007f", "caf\u00e9", ""})
    void aNamespaceThatIsAPathAnOptionOrNotPrintableIsRefused(String name) {
        assertThatThrownBy(() -> LinuxNames.requireNamespace("netns", name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("netns ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\r", "\u0000"));
    }

    @Test
    void aNamespaceNameIsAtMostNameMaxBytes() {
        assertThatCode(() -> LinuxNames.requireNamespace("netns", "n".repeat(255))).doesNotThrowAnyException();
        assertThatThrownBy(() -> LinuxNames.requireNamespace("netns", "n".repeat(256)))
                .hasMessageContaining("at most 255 bytes, this one 256");
    }

    @ParameterizedTest
    @ValueSource(strings = {"lab-s1000000100000000", "ns1", "a.b", "a_b", "A:b", "x@y", "%d", "#1", "...", "a-"})
    void aPlainNamespaceNameIsAccepted(String name) {
        assertThatCode(() -> LinuxNames.requireNamespace("netns", name)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"-all", "-n", ".", "..", "br/0", "br:0", "br%d", "br@x", "br#0", "br'0", "br\"0",
            "br\\0", "br 0", "br\n0", "br\t0", "br\u0000", "br\u00e9", "abcdefghijklmnop", ""})
    void anInterfaceNameBreakingLinuxOrBatchRulesIsRefused(String name) {
        assertThatThrownBy(() -> LinuxNames.requireInterface("bridge", name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bridge ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\r", "\u0000"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"br0", "abcdefghijklmno", "vmbr-fabric", "br_0.100", "1br", "up", "a..b"})
    void anInterfaceNameByLinuxRulesIsAccepted(String name) {
        assertThatCode(() -> LinuxNames.requireInterface("bridge", name)).doesNotThrowAnyException();
    }

    @Test
    void aRefusedValueIsShownEscapedAndShortenedOnOneLine() {
        assertThat(LinuxNames.shown("a\nb\r\"c\\\u0007\u00e9")).isEqualTo("\"a\\nb\\r\\\"c\\\\\\u0007\\u00e9\"");
        assertThat(LinuxNames.shown("x".repeat(1000))).isEqualTo("\"" + "x".repeat(40) + "\"... (1000 characters)");
    }

    @Test
    void portPrefixesAreCheckedWithTheHighestPortsName() {
        assertThatCode(() -> new PortNames("Ethernetabcd", 254)).doesNotThrowAnyException();
        assertThatThrownBy(() -> new PortNames("Ethernetabcde", 254))
                .hasMessage("portPrefix \"Ethernetabcde\": port 254 would be \"Ethernetabcde254\", longer than 15 bytes");
        assertThatCode(() -> new PortNames("Ethernetabcde", 99)).doesNotThrowAnyException();
        for (String prefix : List.of("-p", "p/", "p:", "p%", "p@", "p#", "p q", "p\n", "")) {
            assertThatThrownBy(() -> new PortNames(prefix, 4)).as(prefix).hasMessageStartingWith("portPrefix");
        }
    }

    @Test
    void theBridgeIsCreatedByAnExplicitNameSoThatAKeywordIsNotReadAsOne() {
        assertThat(BridgeSetup.links("up", new PortNames("p", 2), false)).containsExactly(
                "link add name up type bridge",
                "link set dev up type bridge stp_state 0 mcast_snooping 0",
                "link set dev p1 master up",
                "link set dev p2 master up",
                "link set dev up up");
        assertThat(BridgeSetup.links("br0", new PortNames("p", 1), true)).noneMatch(l -> l.startsWith("link add"));
    }

    @Test
    void iproute2RefusesANamespaceThatIsNoName() {
        assertThatThrownBy(() -> new Iproute2("../../proc/1/ns/net")).hasMessageStartingWith("netns ");
        assertThatThrownBy(() -> new Iproute2("-all")).hasMessageStartingWith("netns ");
        assertThat(new Iproute2("lab-s1").command("ip", "link")).containsExactly("ip", "-n", "lab-s1", "link");
        assertThat(new Iproute2("").command("ip", "link")).containsExactly("ip", "link");
    }
}
