package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * HTTPS for the REST API: a PEM certificate chain (the server's first) and its PEM private key (PKCS#8,
 * readable by its owner only).
 */
public record RestTls(String certFile, String keyFile) {
    public RestTls {
        if (certFile == null || certFile.isBlank() || keyFile == null || keyFile.isBlank()) {
            throw new ConfigException("rest.tls needs both certFile and keyFile");
        }
    }

    @JsonCreator
    public static RestTls of(@JsonProperty("certFile") String certFile, @JsonProperty("keyFile") String keyFile) {
        return new RestTls(certFile, keyFile);
    }
}
