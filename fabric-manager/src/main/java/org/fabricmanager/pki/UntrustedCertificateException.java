package org.fabricmanager.pki;

import java.security.cert.CertificateException;

/**
 * A peer's certificate refused by the southbound's trust manager, with a message that names the certificate, its
 * issuer and the CAs it should chain to. Carried as the cause of the TLS engine's handshake failure (BoringSSL's
 * "General OpenSslEngine problem" included), where {@link TlsFailures} finds it.
 */
public final class UntrustedCertificateException extends CertificateException {
    private static final long serialVersionUID = 1L;

    public UntrustedCertificateException(String message, Throwable cause) {
        super(message, cause);
    }
}
