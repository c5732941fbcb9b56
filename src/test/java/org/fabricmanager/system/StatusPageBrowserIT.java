package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.testing.RealParts;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a real browser: a {@code demo} process (192 switches) and headless Chromium, which
 * loads {@code /}, runs the page's script against the live REST API and dumps the DOM it rendered. The page
 * must show the switch count, the routing version and every switch with a state; after a spine loses power
 * (the demo's {@code /api/v1/sim}), it must show that switch dead, in its place, and a newer routing version;
 * over HTTPS, a cable down is shown failed and one erring without going down isolated, with the figures that decided.
 * Skipped only when no Chromium is installed ({@code .ci/run} installs Debian's {@code chromium}).
 */
class StatusPageBrowserIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The demo on a loaded 2-core host can take minutes to converge (ring verdicts on late heartbeats). */
    private static final int START_SECONDS = 300;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static String chromium() {
        for (String c : new String[] {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
                "/snap/bin/chromium"}) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }

    @Test
    void demoPageShowsTheFabricAndAKilledSpine() throws Exception {
        String browser = chromium();
        RealParts.require(browser != null, "no Chromium binary (/usr/bin/chromium): install Debian's chromium "
                + "package to run the status page's browser test");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String base = "http://127.0.0.1:" + port;
        Process demo = new ProcessBuilder(FabricProcesses.java(), "-Xmx1g", "-jar", System.getProperty("fm.jar"), "demo",
                "--http-port", Integer.toString(port), "--state-dir", dir.resolve("state").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("demo.out").toFile()).start();
        try {
            JsonNode status = awaitStatus(base, s -> s.path("routing").path("version").asLong() > 0, "the first routing");
            String dom = awaitDom(browser, base, d -> switchCount(d) != null && routingVersion(d) > 0
                    && d.contains("id=\"heat-svg\""), "the page with the fabric and the heat map", "before");
            assertThat(switchCount(dom)).isEqualTo("192");
            assertThat(Pattern.compile("data-state=\"[A-Z_]+\"").matcher(dom).results().count())
                    .as("every switch drawn with its state, plus the legend").isGreaterThanOrEqualTo(192);
            assertThat(dom).contains("id=\"count-DEAD\"").contains("id=\"count-IN_SYNC\"");
            assertThat(dom).contains("data-load=");
            // the scale is absolute: Dmodc's intact tables carry one route per link under shift, drawn palest
            List<String> heats = Pattern.compile("data-heat=\"([0-9.]+)\"").matcher(dom).results().map(m -> m.group(1)).toList();
            assertThat(heats).as("cables coloured by load").hasSizeGreaterThan(1000).allMatch(h -> h.equals("0.00"));
            assertThat(dom).contains("<option value=\"all2all\"");

            // a link to a leaf's ports shows their counters, as the simulated agent reported them
            String leaf = Guids.format(PgftGenerator.switchGuid(1, 0));
            String ports = dumpDom(browser, base + "/#ports=" + leaf, "ports");
            assertThat(ports).as("the ports of " + leaf).contains("Ports of ").contains("<table class=\"ports\">");
            assertThat(Pattern.compile("<tr><td>[0-9]+</td>").matcher(ports).results().count()).as("one row per port")
                    .isEqualTo(16);

            // a spine the page shows alive loses power
            String victim = null;
            for (int i = 0; i < 64 && victim == null; i++) {
                String guid = Guids.format(PgftGenerator.switchGuid(3, i));
                String state = stateOf(dom, guid);
                if (state != null && !state.equals("DEAD")) {
                    victim = guid;
                }
            }
            assertThat(victim).as("a spine the page shows alive").isNotNull();
            long before = Math.max(routingVersion(dom), status.path("routing").path("version").asLong());
            HttpResponse<String> kill = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/sim/switches/" + victim
                    + "/kill?mode=power")).POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(kill.statusCode()).as(kill.body()).isEqualTo(200);
            awaitStatus(base, s -> s.path("routing").path("version").asLong() > before, "a routing version after v" + before);
            String dead = victim;
            String after = awaitDom(browser, base, d -> "DEAD".equals(stateOf(d, dead)) && routingVersion(d) > before,
                    "the killed spine " + victim + " dead and a routing version after v" + before, "after");
            assertThat(switchCount(after)).as("a dead switch stays on the page").isEqualTo("192");
            assertThat(Integer.parseInt(countOf(after, "DEAD"))).isGreaterThanOrEqualTo(1);
        } finally {
            demo.destroy();
            if (!demo.waitFor(30, TimeUnit.SECONDS)) {
                demo.destroyForcibly();
            }
        }
    }

    @Test
    void productionShapeOverHttpsShowsAFailedCable() throws Exception {
        String browser = chromium();
        RealParts.require(browser != null, "no Chromium binary (/usr/bin/chromium): install Debian's chromium "
                + "package to run the status page's browser test");
        String spec = "PGFT(2;4,4;1,4;1,1)";
        // the production shape: mutual TLS on the southbound and HTTPS for REST, both with the certificates of
        // `pki init` (ECDSA P-256 under an RSA CA, which Chromium accepts; it refuses Ed25519 ones)
        Path pki = dir.resolve("pki");
        new PkiDirectory(pki).init("test CA", Duration.ofDays(2), List.of("localhost"),
                List.of(InetAddress.getByName("127.0.0.1")), Duration.ofDays(2), Clock.systemUTC());
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedPgft: "%s"
                state:
                  directory: "%s"
                security:
                  pkiDirectory: "%s"
                rest:
                  tls:
                    certFile: "%s"
                    keyFile: "%s"
                linkHealth:
                  policy: isolate
                  pollIntervalMs: 1000
                  windowMs: 3000
                  settleMs: 0
                """.formatted(spec, dir.resolve("state"), pki, pki.resolve("daemon.crt"), pki.resolve("daemon.key")));
        try (FabricProcesses fp = new FabricProcesses(dir, RestTrust.trusting(pki.resolve("ca.crt")))) {
            fp.startDaemon(config, "-Xmx256m");
            assertThat(fp.restUrl()).startsWith("https://");
            FabricProcesses.Simulator sim = fp.startSimulator("sim", "-Xmx256m", List.of("--pgft", spec, "--pki",
                    pki.toString()));
            fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED"), "convergence", START_SECONDS);
            String dom = awaitDom(browser, fp.restUrl(), d -> "8".equals(switchCount(d)) && d.contains("id=\"heat-svg\""),
                    "8 switches and the heat map over HTTPS", "https");
            assertThat(countOf(dom, "IN_SYNC")).isEqualTo("8");
            assertThat(dom).doesNotContain("data-link=\"failed\"");

            long before = fp.get("/api/v1/status").at("/routing/version").asLong();
            String leaf = Guids.format(PgftGenerator.switchGuid(1, 0));
            sim.command("link down " + leaf + " 5");
            fp.awaitStatus(s -> s.at("/routing/version").asLong() > before, "a re-route around the cable", START_SECONDS);
            String after = awaitDom(browser, fp.restUrl(), d -> d.contains("data-link=\"failed\""),
                    "the cable down marked failed", "https-link-down");
            assertThat(after).contains("link down: ");
            assertThat(routingVersion(after)).isGreaterThan(before);
            assertThat(after).as("no link erring yet").contains("No link errs");

            // a gray link: another uplink of the leaf errs without going down, and the policy isolates it
            sim.command("link errors " + leaf + " 6 20000");
            String gray = awaitDom(browser, fp.restUrl(), d -> d.contains("data-link-health=\"isolated\""),
                    "the erring uplink listed isolated", "https-gray-link");
            assertThat(gray).contains(leaf + ":6").contains("decided by: rxErrors");
        }
    }

    // ---- the rendered DOM ----------------------------------------------------------------------

    static String switchCount(String dom) {
        Matcher m = Pattern.compile("id=\"switch-count\">([0-9]+)<").matcher(dom);
        return m.find() ? m.group(1) : null;
    }

    static long routingVersion(String dom) {
        Matcher m = Pattern.compile("id=\"routing-version\">v([0-9]+)<").matcher(dom);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    static String countOf(String dom, String state) {
        Matcher m = Pattern.compile("id=\"count-" + state + "\">([0-9]+)<").matcher(dom);
        return m.find() ? m.group(1) : null;
    }

    /** The state the page drew switch {@code guid} in ({@code null}: not drawn). */
    static String stateOf(String dom, String guid) {
        Matcher m = Pattern.compile("data-guid=\"" + Pattern.quote(guid) + "\" data-state=\"([A-Z_]+)\"").matcher(dom);
        return m.find() ? m.group(1) : null;
    }

    /**
     * Loads the page in headless Chromium until its DOM satisfies {@code done}; each load runs the page for a
     * virtual 12 s (several polls), and the DOM is kept in the work directory as {@code NAME-N.html}.
     */
    private String awaitDom(String browser, String url, Predicate<String> done, String what, String name) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
        String dom = "";
        for (int attempt = 1; System.nanoTime() < deadline; attempt++) {
            dom = dumpDom(browser, url + "/", name + "-" + attempt);
            if (done.test(dom)) {
                return dom;
            }
            Thread.sleep(2_000);
        }
        throw new AssertionError("the page did not show " + what + " within 240 s; last DOM in " + dir);
    }

    private String dumpDom(String browser, String url, String name) throws IOException, InterruptedException {
        // the HTTPS test's daemon has a certificate of a throw-away CA the browser does not know (its key type
        // still matters: Chromium refuses an Ed25519 server certificate even then)
        List<String> cmd = new ArrayList<>(List.of(browser, "--headless", "--no-sandbox", "--disable-gpu",
                "--ignore-certificate-errors",
                "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + dir.resolve("chromium-profile"),
                "--virtual-time-budget=12000", "--window-size=1400,1200", "--dump-dom", url));
        Path out = dir.resolve(name + ".html");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(dir.resolve(name + ".err").toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private JsonNode awaitStatus(String base, Predicate<JsonNode> done, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/status"))
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    last = JSON.readTree(r.body());
                    if (done.test(last)) {
                        return last;
                    }
                }
            } catch (IOException e) {
                // not listening yet, or busy: ask again
            }
            Thread.sleep(500);
        }
        throw new AssertionError("timed out after " + START_SECONDS + " s waiting for " + what + "; last status " + last
                + "; demo output in " + dir.resolve("demo.out"));
    }
}
