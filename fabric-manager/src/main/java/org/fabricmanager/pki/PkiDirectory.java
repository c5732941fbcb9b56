package org.fabricmanager.pki;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.fabricmanager.topology.Guids;

/**
 * The files of a fabric PKI directory, as {@code fabric-manager pki} writes them and the daemon and
 * the simulator read them:
 * <pre>
 * ca.crt                       the fabric CA (or a bundle of CAs during a rotation): trusted by all
 * ca.key                       the CA's key: only needed to issue; keep it off the daemon's host
 * daemon.crt, daemon.key       the daemon's server certificate and key
 * switches/0x&lt;guid&gt;.crt/.key   one certificate and key per switch
 * </pre>
 * Keys are PKCS#8 PEM, mode 0600; the directory and {@code switches/} are created 0700.
 */
public final class PkiDirectory {
    public static final String CA_CERT = "ca.crt";
    public static final String CA_KEY = "ca.key";
    public static final String DAEMON_CERT = "daemon.crt";
    public static final String DAEMON_KEY = "daemon.key";
    public static final String SWITCHES = "switches";

    private final Path dir;

    public PkiDirectory(Path dir) {
        this.dir = dir;
    }

    public Path path() {
        return dir;
    }

    public Path caCertificate() {
        return dir.resolve(CA_CERT);
    }

    public Path caKey() {
        return dir.resolve(CA_KEY);
    }

    public Path daemonCertificate() {
        return dir.resolve(DAEMON_CERT);
    }

    public Path daemonKey() {
        return dir.resolve(DAEMON_KEY);
    }

    public Path switchCertificate(long guid) {
        return dir.resolve(SWITCHES).resolve(Guids.format(guid) + ".crt");
    }

    public Path switchKey(long guid) {
        return dir.resolve(SWITCHES).resolve(Guids.format(guid) + ".key");
    }

    /** True when the directory already holds a CA certificate. */
    public boolean hasCa() {
        return Files.exists(caCertificate());
    }

    /** Creates a new CA and the daemon's certificate, with keys of the default type ({@link KeyType#DEFAULT}). */
    public CertificateAuthority init(String caName, Duration caValidity, List<String> daemonNames,
                                     List<InetAddress> daemonAddresses, Duration validity, Clock clock) {
        return init(caName, caValidity, daemonNames, daemonAddresses, validity, clock, KeyType.DEFAULT);
    }

    /**
     * Creates a new CA and the daemon's certificate, both with keys of {@code keyType}, the type of every
     * certificate the CA issues ({@link CertificateAuthority#keyType()}).
     *
     * @throws PkiException when the directory already has a CA (never overwritten: every certificate it
     *                      issued would stop being trusted)
     */
    public CertificateAuthority init(String caName, Duration caValidity, List<String> daemonNames,
                                     List<InetAddress> daemonAddresses, Duration validity, Clock clock, KeyType keyType) {
        if (hasCa()) {
            throw new PkiException(caCertificate() + " exists already; a new CA would invalidate every certificate it "
                    + "issued (to rotate the CA, init another directory and follow docs/security.md)");
        }
        createPrivateDirectory(dir);
        CertificateAuthority ca = CertificateAuthority.create(caName, caValidity, clock, keyType);
        PemFiles.writePrivateKey(caKey(), ca.key());
        PemFiles.writeCertificates(caCertificate(), List.of(ca.certificate()));
        issueDaemon(ca, daemonNames, daemonAddresses, validity);
        return ca;
    }

    /** (Re-)issues the daemon's certificate and key (of the CA's key type). */
    public IssuedCertificate issueDaemon(CertificateAuthority ca, List<String> names, List<InetAddress> addresses,
                                         Duration validity) {
        IssuedCertificate daemon = ca.issueDaemon(names, addresses, validity);
        PemFiles.writePrivateKey(daemonKey(), daemon.key());
        PemFiles.writeCertificates(daemonCertificate(), List.of(daemon.certificate()));
        return daemon;
    }

    /**
     * Issues a daemon certificate and key into {@code target}, another management node's directory, with
     * {@code ca.crt} copied there from this one: what a hot-standby manager's {@code security.pkiDirectory} needs,
     * and nothing more (no CA key, no switch keys). Each manager gets its own key, so that one node's stolen key
     * can be revoked by re-issuing the others.
     */
    public IssuedCertificate issueDaemonInto(PkiDirectory target, CertificateAuthority ca, List<String> names,
                                             List<InetAddress> addresses, Duration validity) {
        createPrivateDirectory(target.dir);
        PemFiles.writeCertificates(target.caCertificate(), PemFiles.readCertificates(caCertificate()));
        return target.issueDaemon(ca, names, addresses, validity);
    }

    /**
     * The host names and addresses the current {@code daemon.crt} names, so that re-issuing it keeps them; empty
     * lists when there is no such file.
     */
    public DaemonNames daemonNames() {
        if (!Files.exists(daemonCertificate())) {
            return new DaemonNames(List.of(), List.of());
        }
        X509Certificate c = PemFiles.readCertificate(daemonCertificate());
        List<String> dns = new ArrayList<>();
        List<InetAddress> ips = new ArrayList<>();
        try {
            Collection<List<?>> sans = c.getSubjectAlternativeNames();
            for (List<?> n : sans == null ? List.<List<?>>of() : sans) {
                if (n.get(0) instanceof Integer type && type == 2) {
                    dns.add((String) n.get(1));
                } else if (n.get(0) instanceof Integer type && type == 7) {
                    // a literal address as the JDK prints it: parsed without a name lookup
                    ips.add(InetAddress.getByName((String) n.get(1)));
                }
            }
        } catch (CertificateParsingException | UnknownHostException e) {
            throw new PkiException(daemonCertificate() + ": unreadable subject alternative names: " + e.getMessage(), e);
        }
        return new DaemonNames(dns, ips);
    }

    /** The host names and addresses a daemon certificate names (besides {@value FabricIdentity#DAEMON_URI}). */
    public record DaemonNames(List<String> dnsNames, List<InetAddress> addresses) {
        public DaemonNames {
            dnsNames = List.copyOf(dnsNames);
            addresses = List.copyOf(addresses);
        }
    }

    /** Loads the CA that issues (its certificate is the first of {@code ca.crt} whose key is {@code ca.key}). */
    public CertificateAuthority loadCa(Clock clock) {
        if (!Files.exists(caKey())) {
            throw new PkiException(caKey() + ": no such file; issuing needs the CA's key (run 'fabric-manager pki init "
                    + "--dir " + dir + "' for a new PKI)");
        }
        PrivateKey key = PemFiles.readPrivateKey(caKey(), true);
        for (X509Certificate c : PemFiles.readCertificates(caCertificate())) {
            if (matches(c.getPublicKey(), key)) {
                return new CertificateAuthority(c, key, clock);
            }
        }
        throw new PkiException(caKey() + " is not the key of any certificate in " + caCertificate());
    }

    /**
     * Issues switch {@code guid}'s certificate and key (of the CA's key type).
     *
     * @param replace replace an existing certificate (rotation); otherwise an existing one is kept
     * @return true when one was written
     */
    public boolean issueSwitch(CertificateAuthority ca, long guid, String name, Duration validity, boolean replace) {
        if (!replace && Files.exists(switchCertificate(guid)) && Files.exists(switchKey(guid))) {
            return false;
        }
        createPrivateDirectory(dir.resolve(SWITCHES));
        IssuedCertificate issued = ca.issueSwitch(guid, name, validity);
        PemFiles.writePrivateKey(switchKey(guid), issued.key());
        PemFiles.writeCertificates(switchCertificate(guid), List.of(issued.certificate()));
        return true;
    }

    /**
     * The TLS material of every switch of {@code switches} (GUID to name), issuing, with the CA's key,
     * the certificates missing from {@code switches/}: a simulator's convenience. A real switch receives
     * its certificate from {@code pki issue} instead.
     */
    public Map<Long, TlsMaterial> switchMaterials(Map<Long, String> switches, Duration validity,
                                                         Clock clock) {
        CertificateAuthority ca = null;
        Map<Long, TlsMaterial> materials = new HashMap<>(switches.size() * 2);
        List<X509Certificate> trusted = PemFiles.readCertificates(caCertificate());
        for (Map.Entry<Long, String> s : switches.entrySet()) {
            long guid = s.getKey();
            if (!Files.exists(switchCertificate(guid)) || !Files.exists(switchKey(guid))) {
                if (ca == null) {
                    ca = loadCa(clock);
                }
                issueSwitch(ca, guid, s.getValue(), validity, true);
            }
            materials.put(guid, new TlsMaterial(PemFiles.readCertificates(switchCertificate(guid)),
                    PemFiles.readPrivateKey(switchKey(guid), true), trusted));
        }
        return materials;
    }

    /** The daemon's TLS material: {@code daemon.crt}, {@code daemon.key} (0600) and the trust bundle {@code ca.crt}. */
    public TlsMaterial daemonMaterial() {
        return TlsMaterial.load(daemonCertificate(), daemonKey(), caCertificate());
    }

    /** Switch {@code guid}'s TLS material, if the directory has its certificate. */
    public Optional<TlsMaterial> switchMaterial(long guid) {
        if (!Files.exists(switchCertificate(guid))) {
            return Optional.empty();
        }
        return Optional.of(TlsMaterial.load(switchCertificate(guid), switchKey(guid), caCertificate()));
    }

    /** True when {@code key} is the private half of {@code pub}: a probe signature checks. */
    private static boolean matches(PublicKey pub, PrivateKey key) {
        return signatureCheck(pub, key);
    }

    private static boolean signatureCheck(PublicKey pub, PrivateKey key) {
        try {
            String alg = switch (key.getAlgorithm()) {
                case "EC" -> "SHA256withECDSA";
                case "RSA" -> "SHA256withRSA";
                default -> key.getAlgorithm(); // Ed25519, EdDSA
            };
            Signature s = Signature.getInstance(alg);
            s.initSign(key);
            byte[] probe = "fabric-manager key check".getBytes(StandardCharsets.US_ASCII);
            s.update(probe);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(alg);
            v.initVerify(pub);
            v.update(probe);
            return v.verify(sig);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static void createPrivateDirectory(Path d) {
        try {
            if (!Files.isDirectory(d)) {
                Files.createDirectories(d);
                if (d.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
                }
            }
        } catch (IOException e) {
            throw new PkiException(d + ": cannot create the directory: " + e.getMessage(), e);
        }
    }
}
