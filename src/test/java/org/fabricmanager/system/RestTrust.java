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

    /**
     * Writes a self-signed ECDSA P-256 certificate for 127.0.0.1 and its key (mode 0600) as PEM: what a
     * browser accepts for {@code rest.tls}. Browsers (Chromium's BoringSSL, Firefox's NSS) do not accept
     * the Ed25519 certificates {@code pki init} makes for TLS, so the status page over HTTPS needs an
     * ECDSA or RSA certificate (docs/operations.md).
     */
    static void browserCertificate(Path certFile, Path keyFile) throws Exception {
        java.security.KeyPairGenerator g = java.security.KeyPairGenerator.getInstance("EC");
        g.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
        java.security.KeyPair pair = g.generateKeyPair();
        org.bouncycastle.asn1.x500.X500Name name = new org.bouncycastle.asn1.x500.X500Name("CN=127.0.0.1");
        java.time.Instant now = java.time.Instant.now();
        org.bouncycastle.cert.X509v3CertificateBuilder b = new org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder(
                name, java.math.BigInteger.valueOf(now.toEpochMilli()), java.util.Date.from(now.minusSeconds(3600)),
                java.util.Date.from(now.plusSeconds(86_400)), name, pair.getPublic());
        b.addExtension(org.bouncycastle.asn1.x509.Extension.subjectAlternativeName, false,
                new org.bouncycastle.asn1.x509.GeneralNames(new org.bouncycastle.asn1.x509.GeneralName(
                        org.bouncycastle.asn1.x509.GeneralName.iPAddress, "127.0.0.1")));
        b.addExtension(org.bouncycastle.asn1.x509.Extension.extendedKeyUsage, false,
                new org.bouncycastle.asn1.x509.ExtendedKeyUsage(org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_serverAuth));
        java.security.cert.X509Certificate cert = new org.bouncycastle.cert.jcajce.JcaX509CertificateConverter()
                .getCertificate(b.build(new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder("SHA256withECDSA")
                        .build(pair.getPrivate())));
        PemFiles.writeCertificates(certFile, java.util.List.of(cert));
        PemFiles.writePrivateKey(keyFile, pair.getPrivate());
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
