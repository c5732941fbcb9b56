package org.fabricmanager.pki;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates of a fabric CA that {@code pki issue} never makes, for the tests of what the daemon refuses: a daemon
 * certificate ({@code urn:fabric:daemon}, {@code localhost} and 127.0.0.1) with chosen extended key usages (none at
 * all when none are given) or {@code CA:TRUE}, otherwise as {@link CertificateAuthority#issueDaemon} makes one.
 */
public final class TestCertificates {
    private TestCertificates() {
    }

    /** A daemon certificate of {@code ca} with exactly {@code purposes} (no extension when empty). */
    public static IssuedCertificate daemon(CertificateAuthority ca, KeyPurposeId... purposes) {
        return daemon(ca, false, purposes);
    }

    /** As above, a CA's certificate ({@code CA:TRUE}) when {@code isCa}. */
    public static IssuedCertificate daemon(CertificateAuthority ca, boolean isCa, KeyPurposeId... purposes) {
        KeyPair pair = ca.keyType().newKeyPair();
        Instant now = Instant.now();
        try {
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.certificate(),
                    new BigInteger(64, new SecureRandom()).setBit(63), Date.from(now.minus(Duration.ofMinutes(1))),
                    Date.from(now.plus(Duration.ofHours(1))), new X500Name("O=fabric-manager,CN=odd daemon"),
                    pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(isCa
                            ? KeyUsage.digitalSignature | KeyUsage.keyCertSign : KeyUsage.digitalSignature))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                            new GeneralName(GeneralName.uniformResourceIdentifier, FabricIdentity.DAEMON_URI),
                            new GeneralName(GeneralName.dNSName, "localhost"),
                            new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            if (purposes.length > 0) {
                b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
            }
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(b.build(
                    new JcaContentSignerBuilder(ca.key().getAlgorithm().equals("RSA") ? "SHA256withRSA"
                            : KeyType.of(ca.key()).orElseThrow().signatureAlgorithm()).build(ca.key())));
            return new IssuedCertificate(cert, pair.getPrivate());
        } catch (Exception e) {
            throw new IllegalStateException("cannot make a test certificate: " + e.getMessage(), e);
        }
    }
}
