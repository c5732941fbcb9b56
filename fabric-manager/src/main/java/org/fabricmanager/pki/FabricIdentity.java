package org.fabricmanager.pki;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Who a fabric certificate speaks for, read from its subject alternative names (URIs): a switch is
 * {@code urn:fabric:guid:0x} followed by exactly 16 lower-case hex digits, the daemon is
 * {@code urn:fabric:daemon}. Any other spelling (upper case, fewer digits, two GUIDs) names no one,
 * so that one GUID has exactly one way to be written into a certificate.
 */
public final class FabricIdentity {
    /** Prefix of a switch's URI. */
    public static final String GUID_PREFIX = "urn:fabric:guid:";
    /** The daemon's URI. */
    public static final String DAEMON_URI = "urn:fabric:daemon";
    private static final Pattern GUID_URI = Pattern.compile("urn:fabric:guid:0x[0-9a-f]{16}");
    private static final int SAN_URI = 6;

    private FabricIdentity() {
    }

    /** The URI naming switch {@code guid}. */
    public static String switchUri(long guid) {
        return GUID_PREFIX + String.format(Locale.ROOT, "0x%016x", guid);
    }

    /**
     * The switch GUID a certificate names, empty when it names none.
     *
     * @throws PkiException when it names more than one switch, or a GUID in a non-canonical spelling
     */
    public static OptionalLong switchGuid(X509Certificate certificate) {
        OptionalLong found = OptionalLong.empty();
        for (String uri : uris(certificate)) {
            if (!uri.regionMatches(true, 0, GUID_PREFIX, 0, GUID_PREFIX.length())) {
                continue;
            }
            if (!GUID_URI.matcher(uri).matches()) {
                throw new PkiException("certificate '" + certificate.getSubjectX500Principal().getName() + "': '" + uri
                        + "' is not a switch URI (" + GUID_PREFIX + "0x + 16 lower-case hex digits)");
            }
            if (found.isPresent()) {
                throw new PkiException("certificate '" + certificate.getSubjectX500Principal().getName()
                        + "' names more than one switch GUID");
            }
            found = OptionalLong.of(Long.parseUnsignedLong(uri.substring(GUID_PREFIX.length() + 2), 16));
        }
        return found;
    }

    /** Extended key usage TLS client authentication. */
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    /** Extended key usage TLS server authentication. */
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

    /**
     * Why {@code certificate} cannot serve as a switch's, whatever it names, or {@code null} when it can: a switch
     * certificate is an end entity's (no {@code CA:TRUE}) for TLS client authentication (extended key usage
     * {@code clientAuth}). TLS accepts a client certificate without any extended key usage, and a CA certificate
     * of the fabric CA as a client's, so both are checked here.
     */
    public static String switchCertificateProblem(X509Certificate certificate) {
        return endEntityProblem(certificate, "a switch's",
                "a switch certificate is for client authentication: clientAuth", CLIENT_AUTH);
    }

    /**
     * Why {@code certificate} cannot serve as the daemon's to its agents, whatever it names, or {@code null} when it
     * can: the daemon's certificate is an end entity's (no {@code CA:TRUE}) for TLS server authentication (extended key
     * usage {@code serverAuth}, which {@code pki issue --daemon} gives it). TLS accepts a server certificate without any
     * extended key usage, and a CA certificate of the fabric CA as a server's, so both are checked here.
     */
    public static String daemonCertificateProblem(X509Certificate certificate) {
        return endEntityProblem(certificate, "a daemon's", "a daemon certificate is for TLS server authentication: "
                + "serverAuth, as pki issue --daemon makes it", SERVER_AUTH);
    }

    /**
     * Why {@code certificate} cannot serve as a manager's on the Raft port, whatever it names, or {@code null} when it
     * can: a manager's certificate is an end entity's (no {@code CA:TRUE}) with the extended key usages
     * {@code pki issue --daemon} gives it, {@code serverAuth} and {@code clientAuth} (a member is a TLS server to
     * some peers and a client to others). TLS accepts a certificate without any extended key usage for either end,
     * and a CA certificate of the fabric CA as a peer's, so both are checked here.
     */
    public static String managerCertificateProblem(X509Certificate certificate) {
        return endEntityProblem(certificate, "a manager's", "a manager's certificate is for TLS server and client "
                + "authentication: serverAuth and clientAuth, as pki issue --daemon makes it", SERVER_AUTH, CLIENT_AUTH);
    }

    /**
     * Why {@code certificate} is no end entity's certificate ({@code role}) with every extended key usage of
     * {@code required}, or {@code null}; {@code purpose} says what the usages are for when it has none.
     */
    private static String endEntityProblem(X509Certificate certificate, String role, String purpose,
                                           String... required) {
        if (certificate.getBasicConstraints() != -1) {
            return "it is a CA certificate (CA:TRUE), not " + role;
        }
        List<String> usages;
        try {
            usages = certificate.getExtendedKeyUsage();
        } catch (CertificateParsingException e) {
            return "its extended key usage is unreadable: " + e.getMessage();
        }
        if (usages == null) {
            return "it has no extended key usage (" + purpose + ")";
        }
        for (String usage : required) {
            if (!usages.contains(usage)) {
                return "its extended key usage " + usages + " lacks " + (usage.equals(SERVER_AUTH) ? "serverAuth"
                        : "clientAuth") + " (" + usage + ")";
            }
        }
        return null;
    }

    /** True when the certificate names the daemon. */
    public static boolean isDaemon(X509Certificate certificate) {
        return uris(certificate).contains(DAEMON_URI);
    }

    private static List<String> uris(X509Certificate certificate) {
        Collection<List<?>> names;
        try {
            names = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            throw new PkiException("certificate '" + certificate.getSubjectX500Principal().getName()
                    + "': unreadable subject alternative names: " + e.getMessage(), e);
        }
        if (names == null) {
            return List.of();
        }
        return names.stream()
                .filter(n -> n.size() == 2 && n.get(0) instanceof Integer type && type == SAN_URI && n.get(1) instanceof String)
                .map(n -> (String) n.get(1))
                .toList();
    }
}
