package org.fabricmanager.daemon.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@code conf/fabric-manager.yaml}, the file packaged for {@code /etc/fabric-manager}, loads to exactly
 * the defaults and names every option {@code run --print-default-config} names, each with a comment.
 */
class ShippedConfigTest {
    static final Path SHIPPED = Path.of("..", "conf", "fabric-manager.yaml");
    static final String REGENERATE = "conf/fabric-manager.yaml is out of date: regenerate its body with"
            + " `bin/fabric-manager run --print-default-config` (keep the header comment)";

    @Test
    void shippedConfigurationIsTheDefaultsWithEveryOptionCommented() throws Exception {
        assertThat(SHIPPED).exists();
        String text = Files.readString(SHIPPED);
        assertThat(ConfigLoader.load(SHIPPED)).as(REGENERATE).isEqualTo(DaemonConfig.defaults());
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        TreeSet<String> shipped = options(yaml.readTree(text), "");
        TreeSet<String> defaults = options(yaml.readTree(DefaultConfig.yaml()), "");
        assertThat(shipped).as(REGENERATE).isEqualTo(defaults);
        for (String option : shipped) {
            String leaf = option.substring(option.lastIndexOf('.') + 1);
            assertThat(text).as("option %s has a comment on its line", option)
                    .containsPattern("(?m)^ +" + leaf + ": .*# \\S");
        }
    }

    private static TreeSet<String> options(JsonNode node, String prefix) {
        TreeSet<String> out = new TreeSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = prefix + e.getKey();
            if (e.getValue().isObject()) {
                out.addAll(options(e.getValue(), name + "."));
            } else {
                out.add(name);
            }
        }
        return out;
    }
}
