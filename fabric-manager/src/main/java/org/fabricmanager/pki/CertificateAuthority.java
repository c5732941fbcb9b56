package org.fabricmanager.pki;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
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
 * The fabric CA: a self-signed certificate that may sign end-entity certificates only (path length 0),
 * and the issuing of the two kinds of end-entity certificates the southbound knows: a switch's (client
 * authentication only, naming its GUID as {@code urn:fabric:guid:0x...}) and the daemon's (server
 * authentication only, naming {@code urn:fabric:daemon} and optionally the host names and addresses agents
 * use). The key usages keep the roles apart: the TLS engines refuse a switch certificate offered by a server
 * and the daemon's offered by a client. Certificates have keys of a {@link KeyType}: ECDSA P-256 under an
 * RSA-3072 CA unless asked otherwise (why RSA: {@link KeyType}), or Ed25519 under an Ed25519 CA, as earlier
 * releases made them; the CA signs with its key's own algorithm. Keys are
 * made and certificates signed by the JDK's providers; BouncyCastle only assembles the certificate structures.
 */
public final class CertificateAuthority {
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

    /** Makes a new CA named {@code commonName}, valid for {@code validity}, with a key of the default type. */
    public static CertificateAuthority create(String commonName, Duration validity, Clock clock) {
        return create(commonName, validity, clock, KeyType.DEFAULT);
    }

    /**
     * Makes a new CA named {@code commonName}, valid for {@code validity}, whose certificates get keys of
     * {@code keyType} (the CA's own key: {@link KeyType#newCaKeyPair}).
     */
    public static CertificateAuthority create(String commonName, Duration validity, Clock clock, KeyType keyType) {
        KeyPair pair = keyType.newCaKeyPair();
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

    /**
     * The type of key this CA's certificates get: Ed25519 for an Ed25519 CA, ECDSA P-256 for any other (RSA,
     * ECDSA), so that an Ed25519 PKI stays whole and the TLS engine can be chosen from the trust bundle alone
     * ({@link TlsProvider}).
     */
    public KeyType keyType() {
        return KeyType.of(key).filter(t -> t == KeyType.ED25519).orElse(KeyType.ECDSA_P256);
    }

    /**
     * Issues switch {@code guid}'s certificate (subject CN = its name, or its GUID when it has none), with a
     * key of the CA's {@link #keyType()}.
     */
    public IssuedCertificate issueSwitch(long guid, String switchName, Duration validity) {
        String cn = switchName == null || switchName.isBlank() ? Guids.format(guid) : switchName;
        return issue(cn, validity, List.of(new GeneralName(GeneralName.uniformResourceIdentifier,
                FabricIdentity.switchUri(guid))), KeyPurposeId.id_kp_clientAuth);
    }

    /**
     * Issues the daemon's certificate, with a key of the CA's {@link #keyType()}.
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
        // client too: a hot-standby manager opens the Raft connections to its peers with this certificate
        return issue("fabric-manager daemon", validity, names, KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth);
    }

    private IssuedCertificate issue(String commonName, Duration validity, List<GeneralName> names, KeyPurposeId... purposes) {
        KeyPair pair = keyType().newKeyPair();
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
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes))
                    .addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(names.toArray(GeneralName[]::new)))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(pub))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
            return new IssuedCertificate(sign(b, key), pair.getPrivate());
        } catch (CertIOException | GeneralSecurityException e) {
            throw new PkiException("cannot issue a certificate for '" + commonName + "': " + e.getMessage(), e);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer) throws GeneralSecurityException {
        try {
            ContentSigner s = new JcaContentSignerBuilder(signatureAlgorithm(signer)).build(signer);
            return new JcaX509CertificateConverter().getCertificate(builder.build(s));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    /** The algorithm a CA key signs with: its key type's, or SHA-256 with RSA for an RSA CA made elsewhere. */
    private static String signatureAlgorithm(PrivateKey signer) {
        return KeyType.of(signer).map(KeyType::signatureAlgorithm)
                .orElse("RSA".equals(signer.getAlgorithm()) ? "SHA256withRSA" : "SHA256withECDSA");
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
