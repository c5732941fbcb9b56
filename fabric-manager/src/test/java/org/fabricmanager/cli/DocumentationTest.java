package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
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
 * The README, CONTRIBUTING, CHANGELOG and docs/ as a user reads them from the repository alone: code blocks
 * that close, links to files and headings that exist, nothing that points outside the repository, the
 * configuration page equal to {@code run --print-default-config}, every command in the README. The
 * reference pages (README, CONTRIBUTING and docs/ outside docs/history/) say what is true now: no dates,
 * no issue numbers; and docs/performance.md stays a page an operator reads, not a diary.
 */
class DocumentationTest {
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
    private static final Pattern OUTSIDE = Pattern.compile("shared/spec|shared/seeds|FORMATS\\.md|/work/");
    /**
     * A calendar date, YYYY-MM-DD. A date-time ({@code 2026-11-21T16:50:14+00:00}) is left alone: it is the
     * format of a field in example output (a build's commit time), not the date of an event.
     */
    static final Pattern DATE = Pattern.compile("(?<![\\w.:-])\\d{4}-\\d{2}-\\d{2}(?![\\d:])");
    /**
     * An issue or pull request cited by number: "issue 12", "issues 3 and 4", "#12" (not "PKCS#8", and not a
     * link's "#anchor", whose targets are blanked before the match).
     */
    static final Pattern ISSUE = Pattern.compile("(?i)\\b(?:issues?|pull request|PR) #?\\d+\\b|(?<![\\w&#/])#\\d+\\b");
    /** The most lines docs/performance.md may have: the figures of today, each with its command, not their history. */
    static final int PERFORMANCE_PAGE_MAX_LINES = 415;

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
        for (String top : List.of("CONTRIBUTING.md", "CHANGELOG.md")) {
            if (Files.isRegularFile(root.resolve(top))) {
                pages.add(root.resolve(top));
            }
        }
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The pages that say what is true now: README, CONTRIBUTING and docs/ outside docs/history/. */
    private static List<Path> referencePages() throws IOException {
        Path history = root().resolve("docs/history");
        return pages().stream().filter(p -> !p.startsWith(history) && !name(p).equals("CHANGELOG.md")).toList();
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

    @Test
    void referencePagesCarryNoDates() throws IOException {
        for (Path page : referencePages()) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                assertThat(DATE.matcher(lines.get(i)).find())
                        .as("%s:%d carries a date; say what is true now (history goes to docs/history/ or git): %s",
                                name(page), i + 1, lines.get(i))
                        .isFalse();
            }
        }
    }

    @Test
    void referencePagesCiteNoIssueNumbers() throws IOException {
        for (Path page : referencePages()) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                String withoutLinkTargets = lines.get(i).replaceAll("]\\([^)]*\\)", "]()");
                assertThat(ISSUE.matcher(withoutLinkTargets).find())
                        .as("%s:%d cites an issue by number; say what the text means instead: %s", name(page), i + 1,
                                lines.get(i))
                        .isFalse();
            }
        }
    }

    @Test
    void theDateAndIssueRulesCatchWhatTheyMeanAndNothingElse() {
        for (String dated : List.of("before 2026-11-23", "(2026-11-25, 19:40 UTC)", "2026-11-24/25",
                "\"commitTime\":\"2026-11-21T16:50:14+00:00\"")) {
            assertThat(DATE.matcher(dated).find()).as(dated).isTrue();
        }
        for (String undated : List.of("\"commitTime\":\"YYYY-MM-DDThh:mm:ss+00:00\"", "PGFT(3;8,8,16;1,8,8;1,1,1)",
                "0x1000000200000000:1", "10,485,760 bytes")) {
            assertThat(DATE.matcher(undated).find()).as(undated).isFalse();
        }
        for (String cited : List.of("the benchmark (issue 17)", "added with Issue 6", "fixed in #12", "issues 3 and 4")) {
            assertThat(ISSUE.matcher(cited).find()).as(cited).isTrue();
        }
        for (String uncited : List.of("PKCS#8 PEM", "the issuer's name", "pki issue --dir DIR", "a LinkIssue", "]()",
                "&#8203;")) {
            assertThat(ISSUE.matcher(uncited).find()).as(uncited).isFalse();
        }
    }

    @Test
    void thePerformancePageStaysShort() throws IOException {
        Path page = root().resolve("docs/performance.md");
        assertThat(Files.readAllLines(page)).as("docs/performance.md: today's figures, each with its command, commit and "
                + "machine; history stays in git").hasSizeLessThanOrEqualTo(PERFORMANCE_PAGE_MAX_LINES);
    }

    @Test
    void nothingLinksToTheRetiredBenchmarkDiary() throws IOException {
        for (Path page : pages()) {
            if (name(page).equals("docs/performance.md") || name(page).equals("CHANGELOG.md")) {
                continue; // they say, once, that performance.md replaced it
            }
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                assertThat(lines.get(i)).as("%s:%d", name(page), i + 1).doesNotContain("benchmarks.md");
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
            throw new UncheckedIOException(e);
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
