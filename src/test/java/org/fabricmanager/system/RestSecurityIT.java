package org.fabricmanager.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fabricmanager.system.FabricProcesses.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.system.FabricProcesses.CliResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The REST API as a security-minded operator configures it, in the production shape ({@code run} and
 * {@code simulate} processes): HTTPS with the daemon's certificate from {@code pki init}, the admin token in
 * an owner-only file; the CLI reads the status over HTTPS trusting the fabric CA ({@code --ca}), actions
 * need the token; a token file other users may read stops the daemon at start with a one-line error.
 */
class RestSecurityIT {
    static final String SPEC = "PGFT(2;4,4;1,4;1,1)";
    static final String TOKEN = "5e0f3b9c1d7a4e2f8b6c0d1e2f3a4b5c";

    @TempDir
    Path dir;

    @Test
    void httpsAndATokenFile() throws Exception {
        Path pki = dir.resolve("pki");
        assertThat(cli(dir, "-Xmx256m", 60, "pki", "init", "--dir", pki.toString(), "--daemon-ip", "127.0.0.1").exit())
                .isZero();
        Path token = dir.resolve("admin-token");
        Files.writeString(token, TOKEN + "\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        Path config = dir.resolve("fabric-manager.yaml");
        Files.writeString(config, """
                fabric:
                  expectedPgft: "%s"
                state:
                  directory: "%s"
                security:
                  insecure: true
                rest:
                  adminTokenFile: "%s"
                  tls:
                    certFile: "%s"
                    keyFile: "%s"
                """.formatted(SPEC, dir.resolve("state"), token, pki.resolve("daemon.crt"), pki.resolve("daemon.key")));
        try (FabricProcesses fp = new FabricProcesses(dir, trusting(pki.resolve("ca.crt")))) {
            fp.startDaemon(config, "-Xmx256m");
            assertThat(fp.restUrl()).startsWith("https://");
            fp.startSimulator("sim", "-Xmx256m", List.of("--pgft", SPEC));
            JsonNode st = fp.awaitStatus(s -> s.path("state").asText().equals("CONVERGED"), "convergence", 120);
            assertThat(st.at("/switches/connected").asInt()).isEqualTo(8);

            CliResult status = cli(dir, "-Xmx256m", 60, "status", "--url", fp.restUrl(), "--ca",
                    pki.resolve("ca.crt").toString());
            assertThat(status.exit()).as(status.all()).isZero();
            assertThat(status.all()).contains("CONVERGED");
            CliResult untrusted = cli(dir, "-Xmx256m", 60, "status", "--url", fp.restUrl());
            assertThat(untrusted.exit()).as("a certificate the JDK's CAs did not sign").isEqualTo(2);

            HttpClient http = HttpClient.newBuilder().sslContext(trusting(pki.resolve("ca.crt"))).build();
            URI reroute = URI.create(fp.restUrl() + "/api/v1/reroute");
            HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(reroute)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(anonymous.statusCode()).isEqualTo(401);
            HttpResponse<String> admin = http.send(HttpRequest.newBuilder(reroute).header("Authorization", "Bearer " + TOKEN)
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(admin.statusCode()).as(admin.body()).isEqualTo(200);
        }

        // the same daemon with a token file its group may read: refused at start, one line, nothing else
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r-----"));
        CliResult refused = cli(dir, "-Xmx256m", 60, "run", "--config", config.toString(), "--southbound-port", "0",
                "--http-port", "0");
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.all()).contains("rest.adminTokenFile").contains("chmod 600").doesNotContain("\tat ");
    }

    private static SSLContext trusting(Path caPem) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", PemFiles.readCertificate(caPem));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }
}
