package org.fabricmanager;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The arrows of the design, checked on the sources of every module: the daemon never uses the simulator, the agent library
 * uses neither, and no two packages depend on each other (directly or through others). A dependency is
 * any reference to a project class by its package, in an import or fully qualified in the code.
 */
class ArchitectureTest {
    private static final Pattern REFERENCE = Pattern.compile("\\b(org\\.fabricmanager(?:\\.[a-z][a-z0-9]*)+)\\.[A-Z]");
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);

    /** Package -> the project packages its classes refer to, with one referring file each, for messages. */
    private static final Map<String, Map<String, String>> GRAPH = new TreeMap<>();

    @BeforeAll
    static void readSources() throws IOException {
        // Every module's sources: the detector and routing modules had cycles of their own.
        for (String module : List.of("../topology-pgft", "../routing-dmodc", "../detector-ring", ".")) {
            readModule(Path.of(module, "src/main/java"));
        }
        assertThat(GRAPH).as("sources found").containsKeys("org.fabricmanager.daemon", "org.fabricmanager.detector",
                "org.fabricmanager.routing", "org.fabricmanager.topology");
    }

    private static void readModule(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                Matcher pm = PACKAGE.matcher(text);
                if (!pm.find()) {
                    continue;
                }
                String pkg = pm.group(1);
                Map<String, String> deps = GRAPH.computeIfAbsent(pkg, p -> new TreeMap<>());
                Matcher m = REFERENCE.matcher(text);
                while (m.find()) {
                    String target = m.group(1);
                    if (!target.equals(pkg)) {
                        deps.putIfAbsent(target, root.relativize(f).toString());
                    }
                }
            }
        }
    }

    @Test
    void theDaemonKnowsNothingOfTheSimulator() {
        assertThat(offenders(p -> p.startsWith("org.fabricmanager.daemon"), "org.fabricmanager.sim")).isEmpty();
    }

    @Test
    void theAgentLibraryNeedsNeitherTheDaemonNorTheSimulator() {
        assertThat(offenders(p -> p.startsWith("org.fabricmanager.agent"), "org.fabricmanager.sim")).isEmpty();
        assertThat(offenders(p -> p.startsWith("org.fabricmanager.agent"), "org.fabricmanager.daemon")).isEmpty();
    }

    @Test
    void theApiOfTheDaemonDependsOnNoManager() {
        assertThat(GRAPH.get("org.fabricmanager.daemon.api").keySet())
                .allMatch(p -> !p.startsWith("org.fabricmanager.daemon"), "outside the daemon");
    }

    @Test
    void noPackagesDependOnEachOther() {
        List<List<String>> cycles = stronglyConnected();
        assertThat(cycles).as("package cycles (each with the files that close it)").isEmpty();
    }

    private static List<String> offenders(java.util.function.Predicate<String> from, String forbiddenPrefix) {
        List<String> out = new ArrayList<>();
        GRAPH.forEach((pkg, deps) -> {
            if (from.test(pkg)) {
                deps.forEach((target, file) -> {
                    if (target.startsWith(forbiddenPrefix)) {
                        out.add(file + " uses " + target);
                    }
                });
            }
        });
        return out;
    }

    /** Tarjan's strongly connected components of more than one package, each listing its edges' files. */
    private static List<List<String>> stronglyConnected() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<List<String>> out = new ArrayList<>();
        int[] counter = {0};
        for (String p : GRAPH.keySet()) {
            if (!index.containsKey(p)) {
                strong(p, index, low, stack, onStack, out, counter);
            }
        }
        return out;
    }

    private static void strong(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                               Set<String> onStack, List<List<String>> out, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]);
        counter[0]++;
        stack.push(v);
        onStack.add(v);
        for (String w : GRAPH.getOrDefault(v, Map.of()).keySet()) {
            if (!GRAPH.containsKey(w)) {
                continue; // another module's package
            }
            if (!index.containsKey(w)) {
                strong(w, index, low, stack, onStack, out, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            List<String> component = new ArrayList<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                List<String> described = new ArrayList<>();
                for (String from : component) {
                    GRAPH.get(from).forEach((to, file) -> {
                        if (component.contains(to)) {
                            described.add(from + " -> " + to + " (" + file + ")");
                        }
                    });
                }
                out.add(described);
            }
        }
    }
}
