package org.fabricmanager.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.ConfigLoader;
import org.fabricmanager.daemon.config.Rest;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.PkiException;

/**
 * The admin commands' view of a running daemon's REST API: GETs a path, returns the JSON, and turns
 * every failure (bad URL, daemon unreachable, timeout, an error status, a body that is not JSON) into
 * a one-line {@link UsageException} naming the command, the URL and the daemon's own error message.
 */
final class DaemonClient {
    /** The REST address of a daemon with the default configuration on this host. */
    static final String DEFAULT_URL = "http://127.0.0.1:7680";
    /** The option every admin command takes. */
    static final String URL_OPTION = "url";
    /** The flag of the commands that can print the daemon's JSON instead of a table. */
    static final String JSON_OPTION = "json";
    /** The installed daemon's configuration, read for its REST address when neither --url nor the variable is given. */
    static final Path INSTALLED_CONFIG = Path.of("/etc/fabric-manager/fabric-manager.yaml");
    /** The environment variable giving the daemon's REST address when {@code --url} is not given. */
    static final String URL_VARIABLE = "FABRIC_MANAGER_URL";
    /** The option naming the CA that signed an HTTPS daemon's certificate ({@code rest.tls}). */
    static final String CA_OPTION = "ca";
    static final String URL_USAGE = "--url URL               the daemon's REST address (default: $" + URL_VARIABLE
            + ", else rest.bind and rest.port of " + INSTALLED_CONFIG + " when readable, else " + DEFAULT_URL + ")\n"
            + "  --ca FILE               with an https URL: trust the CA certificate(s) in this PEM file\n"
            + "                          (a daemon whose rest.tls certificate a private CA signed)";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);
    /** A POST may start a computation (a what-if: up to 120 s on the daemon's side). */
    private static final Duration POST_TIMEOUT = Duration.ofSeconds(130);

    private final String command;
    private final URI base;
    private final HttpClient http;

    DaemonClient(String command, String url) {
        this(command, url, null);
    }

    /** @param ca a PEM file of CA certificates to trust for HTTPS ({@code null}: the JDK's trusted CAs) */
    DaemonClient(String command, String url, Path ca) {
        this.command = command;
        this.base = parse(command, url);
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT);
        if (ca != null) {
            if (!"https".equals(base.getScheme())) {
                throw new UsageException(command + ": option --ca is for an https:// --url");
            }
            builder.sslContext(trusting(command, ca));
        }
        this.http = builder.build();
    }

    /**
     * A client for the {@code --url} and {@code --ca} options (else {@code $FABRIC_MANAGER_URL}, else the installed
     * configuration's REST address, else the default).
     */
    static DaemonClient of(Arguments args) {
        return of(args, System.getenv(), INSTALLED_CONFIG);
    }

    /** {@link #of(Arguments)} with the environment {@code env} and the configuration file {@code config}. */
    static DaemonClient of(Arguments args, Map<String, String> env, Path config) {
        String ca = args.valueOr(CA_OPTION, null);
        return new DaemonClient(args.command(), url(args, env, config), ca == null ? null : Path.of(ca));
    }

    /**
     * The daemon's address: {@code --url}, else {@code $FABRIC_MANAGER_URL} when set and not empty, else the REST
     * address of the configuration {@code config} when this user may read it (a wildcard bind is reached on loopback),
     * else the default.
     */
    static String url(Arguments args, Map<String, String> env, Path config) {
        if (args.has(URL_OPTION)) {
            return args.valueOr(URL_OPTION, DEFAULT_URL);
        }
        String fromEnv = env.get(URL_VARIABLE);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.trim();
        }
        if (config == null || !Files.isReadable(config)) {
            return DEFAULT_URL;
        }
        try {
            Rest rest = ConfigLoader.load(config).rest();
            String host = rest.bind().equals("0.0.0.0") || rest.bind().equals("::") ? "127.0.0.1" : rest.bind();
            return (rest.tls() == null ? "http" : "https") + "://" + (host.contains(":") ? "[" + host + "]" : host)
                    + ":" + rest.port();
        } catch (ConfigException e) {
            throw new UsageException(args.command() + ": the daemon's address: " + e.getMessage() + " (or give --url)", e);
        }
    }

    /** {@code node} as indented JSON (what {@code --json} prints). */
    static String pretty(JsonNode node) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a parsed JSON tree cannot be written: " + e.getMessage(), e);
        }
    }

    /** The options of every admin command that talks to a daemon. */
    static Set<String> options(String... more) {
        Set<String> all = new HashSet<>(Set.of(more));
        all.add(URL_OPTION);
        all.add(CA_OPTION);
        return Set.copyOf(all);
    }

    private static SSLContext trusting(String command, Path ca) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int i = 0;
            for (X509Certificate c : PemFiles.readCertificates(ca)) {
                trust.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            return ssl;
        } catch (PkiException e) {
            throw new UsageException(command + ": option --ca: " + e.getMessage(), e);
        } catch (GeneralSecurityException | IOException e) {
            throw new UsageException(command + ": option --ca " + ca + ": " + e.getMessage(), e);
        }
    }

    private static URI parse(String command, String url) {
        String trimmed = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        try {
            URI uri = new URI(trimmed);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new URISyntaxException(url, "expected http://HOST:PORT");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new UsageException(command + ": option --url: '" + url + "' is not a daemon address (expected http://HOST:PORT)");
        }
    }

    /** The JSON at {@code path} (with its query), e.g. {@code /api/v1/status}. */
    JsonNode get(String path) {
        return send(path, HttpRequest.newBuilder(URI.create(base + path)).GET(), REQUEST_TIMEOUT);
    }

    /**
     * The JSON answer to a {@code POST} of {@code json} to {@code path}, with the admin token as a bearer
     * token ({@code null}: none; the daemon then answers 401).
     */
    JsonNode post(String path, String json, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return send(path, request, POST_TIMEOUT);
    }

    private JsonNode send(String path, HttpRequest.Builder request, Duration timeout) {
        HttpResponse<String> response;
        try {
            response = http.send(request.timeout(timeout).header("Accept", "application/json").build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (HttpConnectTimeoutException e) {
            throw new UsageException(command + ": cannot reach the daemon at " + base + ": connection timed out", e);
        } catch (HttpTimeoutException e) {
            throw new UsageException(command + ": the daemon at " + base + " did not answer " + path + " within "
                    + timeout.toSeconds() + " s", e);
        } catch (ConnectException e) {
            throw new UsageException(command + ": cannot reach the daemon at " + base + ": connection refused"
                    + " (is fabric-manager running, and is rest.port right?)", e);
        } catch (IOException e) {
            throw new UsageException(command + ": cannot reach the daemon at " + base + ": "
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UsageException(command + ": interrupted", e);
        }
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (JsonProcessingException e) {
            body = null;
        }
        if (response.statusCode() != 200) {
            String error = body != null && body.hasNonNull("error") ? body.get("error").asText()
                    : "HTTP " + response.statusCode();
            throw new UsageException(command + ": the daemon at " + base + " answered " + response.statusCode() + ": " + error);
        }
        if (body == null) {
            throw new UsageException(command + ": the daemon at " + base + " answered " + path + " with something that is not JSON");
        }
        return body;
    }
}
