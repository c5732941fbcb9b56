package org.fabricmanager.system;

import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.fabricmanager.pki.PemFiles;

/** An SSL context that trusts one CA, for system tests that talk to a daemon serving REST over HTTPS. */
final class RestTrust {
    private RestTrust() {
    }

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
