package org.fabricmanager.pki;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What one end of a southbound connection needs for mutual TLS: its certificate chain (its own
 * certificate first), its private key, and the CA certificates it trusts (one, or the old and the new
 * CA during a rotation).
 */
public record TlsMaterial(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> trusted) {
    public TlsMaterial {
        chain = List.copyOf(chain);
        trusted = List.copyOf(trusted);
        if (chain.isEmpty()) {
            throw new PkiException("TLS material without a certificate");
        }
        if (trusted.isEmpty()) {
            throw new PkiException("TLS material without a trusted CA");
        }
    }

    /** This end's own certificate. */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    /**
     * Loads PEM files: the certificate (chain), the private key (refused when others may read it) and
     * the trusted CA bundle.
     */
    public static TlsMaterial load(Path certificate, Path privateKey, Path trustedCas) {
        return new TlsMaterial(PemFiles.readCertificates(certificate), PemFiles.readPrivateKey(privateKey, true),
                PemFiles.readCertificates(trustedCas));
    }
}
