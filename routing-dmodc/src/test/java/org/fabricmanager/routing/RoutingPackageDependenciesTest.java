package org.fabricmanager.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The routing packages depend on each other in one direction only: the API package
 * ({@code org.fabricmanager.routing}) on none of its sub-packages, and no cycle among them. Read
 * from the compiled classes' constant pools, so fully qualified names count as much as imports.
 */
class RoutingPackageDependenciesTest {
    private static final String API = "org.fabricmanager.routing";

    /** Routing package to the routing packages it refers to, with one referring class pair per edge. */
    private static Map<String, Map<String, String>> graph;
    private static Map<String, Set<String>> references;

    @BeforeAll
    static void read() {
        references = ClassReferences.of(ClassReferences.mainClasses());
        graph = new TreeMap<>();
        for (Map.Entry<String, Set<String>> e : references.entrySet()) {
            String from = ClassReferences.packageOf(e.getKey());
            if (!isRouting(from)) {
                continue;
            }
            Map<String, String> edges = graph.computeIfAbsent(from, k -> new TreeMap<>());
            for (String target : e.getValue()) {
                String to = ClassReferences.packageOf(target);
                if (isRouting(to) && !to.equals(from)) {
                    edges.putIfAbsent(to, e.getKey() + " -> " + target);
                }
            }
        }
    }

    @Test
    void theScanSeesTheKnownDependencies() {
        // Guards the two tests below against reading nothing.
        assertThat(graph).containsKeys(API, API + ".dmodc", API + ".engines", API + ".analysis");
        assertThat(graph.get(API + ".engines")).containsKeys(API + ".dmodc", API + ".baseline", API + ".vtftr", API);
        assertThat(graph.get(API + ".dmodc")).containsKey(API);
        assertThat(references.get(API + ".engines.RoutingEngines")).contains(API + ".dmodc.DmodcEngine");
    }

    @Test
    void theApiPackageRefersToNoneOfItsSubPackages() {
        List<String> offending = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : references.entrySet()) {
            if (!ClassReferences.packageOf(e.getKey()).equals(API)) {
                continue;
            }
            for (String target : e.getValue()) {
                if (ClassReferences.packageOf(target).startsWith(API + ".")) {
                    offending.add(e.getKey() + " -> " + target);
                }
            }
        }
        assertThat(offending).as("classes of %s referring to its sub-packages", API).isEmpty();
    }

    @Test
    void theRoutingPackagesFormNoCycle() {
        List<String> cycles = new ArrayList<>();
        for (Set<String> component : stronglyConnected()) {
            if (component.size() > 1) {
                StringBuilder why = new StringBuilder(String.join(" <-> ", component)).append(" (");
                for (String from : component) {
                    for (Map.Entry<String, String> edge : graph.get(from).entrySet()) {
                        if (component.contains(edge.getKey())) {
                            why.append(edge.getValue()).append("; ");
                        }
                    }
                }
                cycles.add(why.append(')').toString());
            }
        }
        assertThat(cycles).as("package cycles among the routing packages").isEmpty();
    }

    private static boolean isRouting(String pkg) {
        return pkg.equals(API) || pkg.startsWith(API + ".");
    }

    /** Tarjan's strongly connected components of {@link #graph}. */
    private static List<Set<String>> stronglyConnected() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, index, low, stack, onStack, out);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                                Set<String> onStack, List<Set<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Map.of()).keySet()) {
            if (!index.containsKey(w)) {
                connect(w, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            out.add(component);
        }
    }
}
