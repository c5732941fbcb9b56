package org.fabricmanager.pki;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.fabricmanager.topology.Guids;

/**
 * The fabric CA: a self-signed Ed25519 certificate that may sign end-entity certificates only
 * (path length 0), and the issuing of the two kinds of end-entity certificates the southbound knows:
 * a switch's (client authentication only, naming its GUID as {@code urn:fabric:guid:0x...}) and the
 * daemon's (server authentication only, naming {@code urn:fabric:daemon} and optionally the host names
 * and addresses agents use). The key usages keep the roles apart: the JDK refuses a switch certificate
 * offered by a server and the daemon's offered by a client. Keys are made and certificates signed by
 * the JDK's providers; BouncyCastle only assembles the certificate structures.
 */
public final class CertificateAuthority {
    /** Signature algorithm of every certificate. */
    /**
     * Key and signature algorithm of every certificate: Ed25519. Measured on the project's JDK 17, an
     * Ed25519 signature takes about as long to make as ECDSA P-256 but five times less to check (0.8
     * against 4.2 ms on the loaded 2-core build machine), and a TLS handshake checks two signatures per
     * side: the daemon's CPU per agent handshake drops to about a third (docs/benchmarks.md).
     */
    static final String SIGNATURE = "Ed25519";
    /** Certificates start this long before they are made, so that a switch whose clock is a little behind accepts them. */
    static final Duration BACKDATE = Duration.ofHours(1);

    private final X509Certificate certificate;
    private final PrivateKey key;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    /** A CA from its certificate and key (as read from {@code ca.crt} and {@code ca.key}). */
    public CertificateAuthority(X509Certificate certificate, PrivateKey key, Clock clock) {
        this.certificate = certificate;
        this.key = key;
        this.clock = clock;
    }

    /** Makes a new CA named {@code commonName}, valid for {@code validity}. */
    public static CertificateAuthority create(String commonName, Duration validity, Clock clock) {
        KeyPair pair = newKeyPair();
        X500Name name = name(commonName);
        Instant now = clock.instant();
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(new SecureRandom()),
                    Date.from(now.minus(BACKDATE)), Date.from(now.plus(validity)), name, pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pair.getPublic()));
            return new CertificateAuthority(sign(b, pair.getPrivate()), pair.getPrivate(), clock);
        } catch (CertIOException | GeneralSecurityException e) {
            throw new PkiException("cannot create the fabric CA: " + e.getMessage(), e);
        }
    }

    public X509Certificate certificate() {
        return certificate;
    }

    public PrivateKey key() {
        return key;
    }

    /** Issues switch {@code guid}'s certificate (subject CN = its name, or its GUID when it has none). */
    public IssuedCertificate issueSwitch(long guid, String switchName, Duration validity) {
        String cn = switchName == null || switchName.isBlank() ? Guids.format(guid) : switchName;
        return issue(cn, validity, KeyPurposeId.id_kp_clientAuth,
                List.of(new GeneralName(GeneralName.uniformResourceIdentifier, FabricIdentity.switchUri(guid))));
    }

    /**
     * Issues the daemon's certificate.
     *
     * @param dnsNames  host names agents may use to reach the daemon (recorded for tools that check them)
     * @param addresses addresses agents may use
     */
    public IssuedCertificate issueDaemon(List<String> dnsNames, List<InetAddress> addresses, Duration validity) {
        List<GeneralName> names = new ArrayList<>();
        names.add(new GeneralName(GeneralName.uniformResourceIdentifier, FabricIdentity.DAEMON_URI));
        for (String dns : dnsNames) {
            names.add(new GeneralName(GeneralName.dNSName, dns));
        }
        for (InetAddress a : addresses) {
            names.add(new GeneralName(GeneralName.iPAddress, a.getHostAddress()));
        }
        return issue("fabric-manager daemon", validity, KeyPurposeId.id_kp_serverAuth, names);
    }

    private IssuedCertificate issue(String commonName, Duration validity, KeyPurposeId purpose, List<GeneralName> names) {
        KeyPair pair = newKeyPair();
        Instant now = clock.instant();
        Instant notAfter = now.plus(validity);
        if (notAfter.isAfter(certificate.getNotAfter().toInstant())) {
            // a certificate cannot outlive the CA that vouches for it
            notAfter = certificate.getNotAfter().toInstant();
        }
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            PublicKey pub = pair.getPublic();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(certificate, serial(random),
                    Date.from(now.minus(BACKDATE)), Date.from(notAfter), name(commonName), pub)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose))
                    .addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(names.toArray(GeneralName[]::new)))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pub))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
            return new IssuedCertificate(sign(b, key), pair.getPrivate());
        } catch (CertIOException | GeneralSecurityException e) {
            throw new PkiException("cannot issue a certificate for '" + commonName + "': " + e.getMessage(), e);
        }
    }

    /** A fresh Ed25519 key pair (small keys, fast handshakes for thousands of switches). */
    static KeyPair newKeyPair() {
        try {
            return KeyPairGenerator.getInstance(SIGNATURE).generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new PkiException("this JVM cannot make Ed25519 keys: " + e.getMessage(), e);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer) throws GeneralSecurityException {
        try {
            ContentSigner s = new JcaContentSignerBuilder(SIGNATURE).build(signer);
            return new JcaX509CertificateConverter().getCertificate(builder.build(s));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static X500Name name(String commonName) {
        return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "fabric-manager").addRDN(BCStyle.CN, commonName)
                .build();
    }

    /** A random positive serial of 159 bits (RFC 5280 allows 20 octets; no counter to keep). */
    private static BigInteger serial(SecureRandom random) {
        return new BigInteger(159, random).setBit(158);
    }
}
