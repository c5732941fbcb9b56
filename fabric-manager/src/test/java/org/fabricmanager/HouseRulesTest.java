package org.fabricmanager;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The house rules of CONTRIBUTING.md that a machine can check, on the main sources of every module: no class
 * file above 600 lines (split along its jobs, never squeezed), no
 * class constructor above 7 parameters (records are data and keep their components), and no {@code java.*} name,
 * nor in code one of the project's, Netty's or a {@code com.*} library's, written out instead of imported.
 */
class HouseRulesTest {
    private static final int MAX_LINES = 600;
    private static final int MAX_PARAMETERS = 7;
    private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])javax?\\.(?:[a-z_][a-z0-9_]*\\.)+[A-Z]\\w*");
    /** The project's and its libraries' types; a comment may name them in full (a javadoc link without an import). */
    private static final Pattern QUALIFIED_IN_CODE = Pattern.compile(
            "(?<![\\w.])(?:org\\.fabricmanager|io\\.netty|com\\.[a-z]+)\\.(?:[a-z_][a-z0-9_]*\\.)*[A-Z]\\w*");
    private static final Pattern CLASS = Pattern.compile("\\bclass\\s+([A-Z]\\w*)");

    private static final Map<Path, String> SOURCES = new TreeMap<>();

    @BeforeAll
    static void readSources() throws IOException {
        for (String module : List.of("../topology-pgft", "../routing-dmodc", "../detector-ring", ".")) {
            try (Stream<Path> files = Files.walk(Path.of(module, "src/main/java"))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    SOURCES.put(f, Files.readString(f));
                }
            }
        }
        assertThat(SOURCES).as("sources found").hasSizeGreaterThan(300);
    }

    @Test
    void noClassIsLongerThan600Lines() {
        List<String> long_ = new ArrayList<>();
        SOURCES.forEach((f, text) -> {
            long lines = text.lines().count();
            if (lines > MAX_LINES) {
                long_.add(f + ": " + lines + " lines");
            }
        });
        assertThat(long_).as("classes above " + MAX_LINES + " lines (split them along their jobs)").isEmpty();
    }

    @Test
    void noClassConstructorTakesMoreThan7Parameters() {
        List<String> wide = new ArrayList<>();
        SOURCES.forEach((f, text) -> {
            Matcher c = CLASS.matcher(text);
            while (c.find()) {
                Matcher ctor = Pattern.compile("(?m)^\\s*(?:(?:public|protected|private)\\s+)?" + c.group(1)
                        + "\\s*\\(([^)]*)\\)\\s*(?:throws[^{;]*)?\\{").matcher(text);
                while (ctor.find()) {
                    int parameters = parameters(ctor.group(1));
                    if (parameters > MAX_PARAMETERS) {
                        wide.add(f + ": " + c.group(1) + "(" + parameters + " parameters)");
                    }
                }
            }
        });
        assertThat(wide).as("constructors above " + MAX_PARAMETERS + " parameters (group them into a record)").isEmpty();
    }

    @Test
    void javaNamesAreImportedNotWrittenOut() {
        List<String> written = new ArrayList<>();
        SOURCES.forEach((f, text) -> {
            int n = 0;
            for (String line : text.split("\n", -1)) {
                n++;
                if (line.startsWith("import ") || line.startsWith("package ")) {
                    continue;
                }
                String code = line.strip();
                boolean comment = code.startsWith("*") || code.startsWith("//") || code.startsWith("/*");
                for (Pattern p : comment ? List.of(QUALIFIED) : List.of(QUALIFIED, QUALIFIED_IN_CODE)) {
                    Matcher m = p.matcher(line);
                    while (m.find()) {
                        // a name inside a string literal is text, not code
                        if (line.substring(0, m.start()).chars().filter(ch -> ch == '"').count() % 2 == 0) {
                            written.add(f + ":" + n + ": " + m.group());
                        }
                    }
                }
            }
        });
        assertThat(written).as("qualified names in code (import them)").isEmpty();
    }

    /** Parameters of a parameter list: its commas outside generic brackets, plus one. */
    static int parameters(String list) {
        if (list.isBlank()) {
            return 0;
        }
        int depth = 0;
        int count = 1;
        for (char ch : list.toCharArray()) {
            if (ch == '<') {
                depth++;
            } else if (ch == '>') {
                depth--;
            } else if (ch == ',' && depth == 0) {
                count++;
            }
        }
        return count;
    }

    @Test
    void parametersAreCountedOutsideGenericBrackets() {
        assertThat(parameters("")).isZero();
        assertThat(parameters("int a")).isEqualTo(1);
        assertThat(parameters("Map<String, Integer> m, int b")).isEqualTo(2);
        assertThat(parameters("List<Map<Long, String>> m, int b, @Nullable String c")).isEqualTo(3);
    }
}
