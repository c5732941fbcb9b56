/**
 * The fabric's public-key infrastructure and the southbound's TLS: a fabric CA that signs one
 * certificate per switch naming its GUID ({@code urn:fabric:guid:0x...}) and one for the daemon
 * ({@code urn:fabric:daemon}), the PEM files they live in (private keys PKCS#8, mode 0600, ECDSA P-256 or
 * Ed25519), and the TLS 1.3 contexts with mutual authentication built from them, on BoringSSL (Netty's
 * OpenSSL engine) or the JDK's own provider as {@link org.fabricmanager.pki.TlsProvider} chooses.
 * Certificates are built with BouncyCastle's PKIX library.
 */
package org.fabricmanager.pki;
