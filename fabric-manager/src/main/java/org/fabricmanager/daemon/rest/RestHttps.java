package org.fabricmanager.daemon.rest;

import io.netty.handler.ssl.SslContext;
import java.nio.file.Path;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.RestTls;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsContexts;

/** The REST API's HTTPS context from {@code rest.tls}, or a one-line configuration error. */
public final class RestHttps {
    private RestHttps() {
    }

    /** {@code null} (plain HTTP) when {@code tls} is {@code null}. */
    public static SslContext context(RestTls tls) {
        if (tls == null) {
            return null;
        }
        try {
            return TlsContexts.https(PemFiles.readCertificates(Path.of(tls.certFile())),
                    PemFiles.readPrivateKey(Path.of(tls.keyFile()), true));
        } catch (PkiException e) {
            throw new ConfigException("rest.tls: " + e.getMessage());
        }
    }
}
