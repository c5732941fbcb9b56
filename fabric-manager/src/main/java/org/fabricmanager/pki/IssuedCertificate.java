package org.fabricmanager.pki;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;

/** A certificate with its private key, as issued by the {@link CertificateAuthority}. */
public record IssuedCertificate(X509Certificate certificate, PrivateKey key) {
}
