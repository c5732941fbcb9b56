package org.fabricmanager.system;

import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.fabricmanager.pki.PemFiles;

/** HTTPS helpers for system tests that talk to a daemon serving REST over TLS ({@code rest.tls}). */
final class RestTrust {
    private RestTrust() {
    }

    /** A client context trusting only the CA certificate(s) of {@code caPem} (e.g. a {@code pki init} directory's). */
    static SSLContext trusting(Path caPem) throws Exception {
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
