package org.fabricmanager.pki;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The key types of the daemon's and the switches' certificates that {@code fabric-manager pki} makes
 * ({@code --key-type}). ECDSA P-256 is the default: the BoringSSL TLS engine ({@code security.tlsProvider})
 * signs and checks it natively, browsers accept it for the HTTPS status page, and BoringSSL does not offer
 * Ed25519 in TLS at all. Ed25519 is what earlier releases made and is still read and made on request.
 *
 * <p>The CA of an ECDSA P-256 PKI has an RSA-3072 key: the CA's signature on the peer's certificate is the
 * one check that both TLS engines leave to the JDK (its PKIX trust manager), and the JDK checks an RSA
 * signature much faster than an ECDSA one (docs/security.md), once per agent handshake. The CA signs only when
 * certificates are issued. An Ed25519 PKI keeps its Ed25519 CA, as earlier releases made it.
 */
public enum KeyType {
    ECDSA_P256("ecdsa-p256", "EC", "SHA256withECDSA"),
    ED25519("ed25519", "Ed25519", "Ed25519");

    /** What {@code pki init} makes when {@code --key-type} is not given. */
    public static final KeyType DEFAULT = ECDSA_P256;

    private final String option;
    private final String jcaAlgorithm;
    private final String signature;

    KeyType(String option, String jcaAlgorithm, String signature) {
        this.option = option;
        this.jcaAlgorithm = jcaAlgorithm;
        this.signature = signature;
    }

    /** The spelling of {@code --key-type}. */
    public String option() {
        return option;
    }

    /** The JCA signature algorithm a key of this type signs certificates with. */
    String signatureAlgorithm() {
        return signature;
    }

    /** Size of the RSA key of an ECDSA P-256 PKI's CA: 128-bit security, as P-256. */
    static final int CA_RSA_BITS = 3072;

    /** A fresh key pair for the CA of a PKI whose certificates have keys of this type. */
    KeyPair newCaKeyPair() {
        if (this == ED25519) {
            return newKeyPair();
        }
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(CA_RSA_BITS);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new PkiException("this JVM cannot make RSA keys: " + e.getMessage(), e);
        }
    }

    /** A fresh key pair of this type. */
    KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance(jcaAlgorithm);
            if (this == ECDSA_P256) {
                g.initialize(new ECGenParameterSpec("secp256r1"));
            }
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new PkiException("this JVM cannot make " + option + " keys: " + e.getMessage(), e);
        }
    }

    /** The type named by {@code --key-type}. */
    public static KeyType parse(String option) {
        String o = option.trim().toLowerCase(Locale.ROOT);
        for (KeyType t : values()) {
            if (t.option.equals(o)) {
                return t;
            }
        }
        throw new PkiException("unknown key type '" + option + "' (one of "
                + Arrays.stream(values()).map(KeyType::option).collect(Collectors.joining(", ")) + ")");
    }

    /** The type of a key read from a file, empty for one no certificate of {@code pki} has (RSA, other curves). */
    public static Optional<KeyType> of(PrivateKey key) {
        return ofAlgorithm(key.getAlgorithm(), key instanceof ECKey ec ? ec : null);
    }

    /** As {@link #of(PrivateKey)}, for a certificate's public key. */
    public static Optional<KeyType> of(PublicKey key) {
        return ofAlgorithm(key.getAlgorithm(), key instanceof ECKey ec ? ec : null);
    }

    private static Optional<KeyType> ofAlgorithm(String algorithm, ECKey ec) {
        if ("Ed25519".equalsIgnoreCase(algorithm) || "EdDSA".equalsIgnoreCase(algorithm)) {
            return Optional.of(ED25519);
        }
        if ("EC".equals(algorithm) && ec != null && ec.getParams().getCurve().getField().getFieldSize() == 256
                && ec.getParams().getOrder().bitLength() == 256) {
            return Optional.of(ECDSA_P256);
        }
        return Optional.empty();
    }
}
