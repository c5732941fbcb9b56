package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.fabricmanager.daemon.config.DefaultConfig;
import org.junit.jupiter.api.Test;

/**
 * The README and docs/ as a user reads them from the repository alone: code blocks that close,
 * links to files and headings that exist, nothing that points outside the repository, the
 * configuration page equal to {@code run --print-default-config}, every command in the README.
 */
class DocumentationTest {
    /**
     * Pages another change rewrites now (issue 14): their references to the old shared spec go with
     * that rewrite. Remove a page from here once it is rewritten.
     */
    private static final Set<String> OUTSIDE_REFERENCES_PENDING = Set.of("docs/routing.md");
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
    private static final Pattern OUTSIDE = Pattern.compile("shared/spec|shared/seeds|FORMATS\\.md|/work/");

    private static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("the repository root (a directory with README.md) above the working directory").isNotNull();
        return dir;
    }

    private static List<Path> pages() throws IOException {
        Path root = root();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static String name(Path page) {
        return root().relativize(page).toString();
    }

    @Test
    void everyCodeBlockIsClosed() throws IOException {
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page);
            int openedAt = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).stripLeading().startsWith("```")) {
                    openedAt = openedAt < 0 ? i + 1 : -1;
                }
            }
            assertThat(openedAt).as("%s:%d opens a code block that is never closed", name(page), openedAt).isEqualTo(-1);
        }
    }

    @Test
    void nothingPointsOutsideTheRepository() throws IOException {
        for (Path page : pages()) {
            if (OUTSIDE_REFERENCES_PENDING.contains(name(page))) {
                continue;
            }
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                assertThat(OUTSIDE.matcher(lines.get(i)).find()).as("%s:%d points outside the repository: %s", name(page),
                        i + 1, lines.get(i)).isFalse();
            }
        }
    }

    @Test
    void relativeLinksReachFilesAndHeadingsOfTheRepository() throws IOException {
        Path root = root();
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page);
            boolean inCode = false;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).stripLeading().startsWith("```")) {
                    inCode = !inCode;
                }
                if (inCode) {
                    continue;
                }
                // text in `code` is not a link, whatever brackets it holds
                Matcher m = LINK.matcher(lines.get(i).replaceAll("`[^`]*`", "``"));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("[a-z]+:.*")) {
                        continue;
                    }
                    String where = name(page) + ":" + (i + 1) + ": link " + target;
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                    assertThat(resolved.startsWith(root)).as("%s leaves the repository", where).isTrue();
                    assertThat(Files.exists(resolved)).as("%s: no such file", where).isTrue();
                    if (hash >= 0) {
                        Set<String> headings = anchors.computeIfAbsent(resolved, DocumentationTest::headingAnchors);
                        assertThat(headings).as("%s: no such heading in %s", where, name(resolved))
                                .contains(target.substring(hash + 1));
                    }
                }
            }
        }
    }

    /** The anchors GitHub gives the headings of a page: lower case, punctuation dropped, spaces as '-'. */
    static Set<String> headingAnchors(Path page) {
        Set<String> out = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        try {
            for (String line : Files.readAllLines(page)) {
                if (line.stripLeading().startsWith("```")) {
                    inCode = !inCode;
                }
                if (inCode || !line.startsWith("#")) {
                    continue;
                }
                String text = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT);
                String slug = text.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                int n = seen.merge(slug, 1, Integer::sum);
                out.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }

    @Test
    void theAnchorRuleMatchesGithubsOnThisProjectsHeadings() throws IOException {
        Path formats = root().resolve("docs/formats.md");
        assertThat(headingAnchors(formats)).contains("worked-example-pgft3223122121",
                "fabric-topology1-a-fabric-as-json", "what-makes-dmodcs-tables-reproducible");
    }

    @Test
    void theConfigurationPageAndTheShippedFileHoldTheDefaultConfiguration() throws IOException {
        String page = Files.readString(root().resolve("docs/configuration.md"));
        int start = page.indexOf("```yaml\n") + "```yaml\n".length();
        assertThat(page.substring(start, page.indexOf("```", start))).isEqualTo(DefaultConfig.yaml());
        assertThat(Files.readString(root().resolve("conf/fabric-manager.yaml"))).endsWith(DefaultConfig.yaml());
    }

    @Test
    void theReadmeListsEveryCommand() throws IOException {
        String readme = Files.readString(root().resolve("README.md"));
        for (Command c : Commands.all()) {
            assertThat(Pattern.compile("(?m)^\\| `.*(?<![\\w-])" + Pattern.quote(c.name()) + "(?![\\w-])").matcher(readme).find())
                    .as("README.md's command table has a row for '%s'", c.name()).isTrue();
        }
        assertThat(readme).contains("--version");
    }
}
