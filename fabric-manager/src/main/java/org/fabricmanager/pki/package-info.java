/**
 * The fabric's public-key infrastructure and the southbound's TLS: a fabric CA that signs one
 * certificate per switch naming its GUID ({@code urn:fabric:guid:0x...}) and one for the daemon
 * ({@code urn:fabric:daemon}), the PEM files they live in (private keys PKCS#8, mode 0600), and the
 * JDK TLS 1.3 contexts with mutual authentication built from them. Certificates are built with
 * BouncyCastle's PKIX library; the TLS handshakes run on the JDK's own provider.
 */
package org.fabricmanager.pki;
