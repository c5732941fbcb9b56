package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Where the REST API listens, who may use its actions, and whether it speaks HTTPS.
 *
 * @param adminToken     the bearer token of the actions, given inline ({@code null}: see the file)
 * @param adminTokenFile a file holding the token on its first line, readable by its owner only (the way to
 *                       keep it out of the configuration file); not with {@code adminToken}
 * @param tls            HTTPS certificate and key ({@code null}: plain HTTP)
 * @param maxConnections connections open at once on this listener; more are closed as soon as accepted
 * @param idleTimeoutMs  a connection with no request in progress is closed after this long without traffic
 */
public record Rest(String bind, int port, int ioThreads, String adminToken, String adminTokenFile, RestTls tls,
                   int maxConnections, int idleTimeoutMs) {
    /** Connections open at once by default; more are closed at once. */
    public static final int DEFAULT_MAX_CONNECTIONS = 256;
    /** How long by default a connection may stay open with no request in progress. */
    public static final int DEFAULT_IDLE_TIMEOUT_MS = 10_000;

    public Rest {
        DaemonConfig.check("rest.port", port, 0, 65535);
        DaemonConfig.check("rest.ioThreads", ioThreads, 1, 64);
        DaemonConfig.check("rest.maxConnections", maxConnections, 1, 65_536);
        DaemonConfig.check("rest.idleTimeoutMs", idleTimeoutMs, 100, 3_600_000);
        if (bind == null || bind.isBlank()) {
            throw new ConfigException("option rest.bind must not be empty");
        }
        if (adminToken != null && adminTokenFile != null) {
            throw new ConfigException("options rest.adminToken and rest.adminTokenFile exclude each other: keep the"
                    + " token in the file only");
        }
    }

    /** The default connection bounds. */
    public Rest(String bind, int port, int ioThreads, String adminToken, String adminTokenFile, RestTls tls) {
        this(bind, port, ioThreads, adminToken, adminTokenFile, tls, DEFAULT_MAX_CONNECTIONS,
                DEFAULT_IDLE_TIMEOUT_MS);
    }

    /** Plain HTTP, the token inline. */
    public Rest(String bind, int port, int ioThreads, String adminToken) {
        this(bind, port, ioThreads, adminToken, null, null);
    }

    @JsonCreator
    public static Rest of(@JsonProperty("bind") String bind, @JsonProperty("port") Integer port,
                          @JsonProperty("ioThreads") Integer ioThreads,
                          @JsonProperty("adminToken") String adminToken,
                          @JsonProperty("adminTokenFile") String adminTokenFile,
                          @JsonProperty("tls") RestTls tls,
                          @JsonProperty("maxConnections") Integer maxConnections,
                          @JsonProperty("idleTimeoutMs") Integer idleTimeoutMs) {
        return new Rest(bind != null ? bind : "127.0.0.1", port != null ? port : 7680,
                ioThreads != null ? ioThreads : 1, adminToken == null || adminToken.isBlank() ? null : adminToken,
                adminTokenFile == null || adminTokenFile.isBlank() ? null : adminTokenFile, tls,
                maxConnections != null ? maxConnections : DEFAULT_MAX_CONNECTIONS,
                idleTimeoutMs != null ? idleTimeoutMs : DEFAULT_IDLE_TIMEOUT_MS);
    }

    /** As the configuration file gives it, with the default connection bounds. */
    public static Rest of(String bind, Integer port, Integer ioThreads, String adminToken, String adminTokenFile,
                          RestTls tls) {
        return of(bind, port, ioThreads, adminToken, adminTokenFile, tls, null, null);
    }

    /** This section with another inline token (and no token file). */
    public Rest withAdminToken(String token) {
        return new Rest(bind, port, ioThreads, token, null, tls, maxConnections, idleTimeoutMs);
    }

    /** This section on another port. */
    public Rest withPort(int newPort) {
        return new Rest(bind, newPort, ioThreads, adminToken, adminTokenFile, tls, maxConnections, idleTimeoutMs);
    }

    /** This section with other connection bounds. */
    public Rest withConnections(int newMaxConnections, int newIdleTimeoutMs) {
        return new Rest(bind, port, ioThreads, adminToken, adminTokenFile, tls, newMaxConnections, newIdleTimeoutMs);
    }
}
