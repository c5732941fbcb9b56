package org.fabricmanager.daemon.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.nio.file.Path;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.southbound.Protocol;

/**
 * Who may speak for a switch ({@code docs/security.md}). Mutual TLS needs the daemon's certificate,
 * its key and the trusted fabric CA(s): {@code pkiDirectory} names a directory made by
 * {@code fabric-manager pki init} ({@code daemon.crt}, {@code daemon.key}, {@code ca.crt}), and
 * {@code certificate}, {@code privateKey}, {@code trustedCas} name (or override) the files one by one.
 * Without them the daemon runs only when {@code insecure} is set, and then warns at every start.
 *
 * @param insecure             run the southbound in plaintext (any host can impersonate any switch)
 * @param pkiDirectory         directory of {@code daemon.crt}, {@code daemon.key}, {@code ca.crt}, or {@code null}
 * @param certificate          the daemon's certificate (chain) PEM, or {@code null} for {@code pkiDirectory/daemon.crt}
 * @param privateKey           the daemon's PKCS#8 key PEM (mode 0600), or {@code null} for {@code pkiDirectory/daemon.key}
 * @param trustedCas           the CA bundle agents' certificates must chain to, or {@code null} for {@code pkiDirectory/ca.crt}
 * @param incarnationAheadMs   a HELLO whose incarnation (start time in µs) lies more than this ahead of the daemon's clock is refused
 * @param tlsProvider          the southbound's TLS engine: auto (BoringSSL when it loads and the keys are not
 *                             Ed25519, else the JDK's), openssl or jdk ({@link TlsProvider})
 */
public record Security(boolean insecure, String pkiDirectory, String certificate, String privateKey, String trustedCas,
                       int incarnationAheadMs, TlsProvider tlsProvider) {
    public Security {
        DaemonConfig.check("security.incarnationAheadMs", incarnationAheadMs, 1_000, 604_800_000);
        if (tlsProvider == null) {
            tlsProvider = TlsProvider.AUTO;
        }
        boolean anyFile = pkiDirectory != null || certificate != null || privateKey != null || trustedCas != null;
        if (insecure && anyFile) {
            throw new ConfigException("option security.insecure: true together with TLS files (security.pkiDirectory, "
                    + "certificate, privateKey, trustedCas); remove one or the other");
        }
        if (pkiDirectory == null && anyFile && (certificate == null || privateKey == null || trustedCas == null)) {
            throw new ConfigException("option security." + (certificate == null ? "certificate" : privateKey == null
                    ? "privateKey" : "trustedCas") + " is needed when security.pkiDirectory is not set");
        }
    }

    @JsonCreator
    public static Security of(@JsonProperty("insecure") Boolean insecure, @JsonProperty("pkiDirectory") String pkiDirectory,
                              @JsonProperty("certificate") String certificate,
                              @JsonProperty("privateKey") String privateKey,
                              @JsonProperty("trustedCas") String trustedCas,
                              @JsonProperty("incarnationAheadMs") Integer incarnationAheadMs,
                              @JsonProperty("tlsProvider") String tlsProvider) {
        TlsProvider provider;
        try {
            provider = tlsProvider == null || tlsProvider.isBlank() ? TlsProvider.AUTO : TlsProvider.parse(tlsProvider);
        } catch (PkiException e) {
            throw new ConfigException("option security.tlsProvider: " + e.getMessage(), e);
        }
        return new Security(insecure != null && insecure, blankToNull(pkiDirectory), blankToNull(certificate),
                blankToNull(privateKey), blankToNull(trustedCas),
                incarnationAheadMs != null ? incarnationAheadMs : (int) Protocol.DEFAULT_INCARNATION_AHEAD_MS, provider);
    }

    /** A plaintext southbound, as {@code security.insecure: true}. */
    public static Security plaintext() {
        return new Security(true, null, null, null, null, (int) Protocol.DEFAULT_INCARNATION_AHEAD_MS, TlsProvider.AUTO);
    }

    /** Mutual TLS with the files of a {@code fabric-manager pki} directory. */
    public static Security pki(Path directory) {
        return new Security(false, directory.toString(), null, null, null, (int) Protocol.DEFAULT_INCARNATION_AHEAD_MS,
                TlsProvider.AUTO);
    }

    /** This section with another TLS engine setting. */
    public Security withTlsProvider(TlsProvider provider) {
        return new Security(insecure, pkiDirectory, certificate, privateKey, trustedCas, incarnationAheadMs, provider);
    }

    /** True when TLS files are configured. */
    public boolean tlsConfigured() {
        return pkiDirectory != null || certificate != null;
    }

    /** The daemon's certificate file, or {@code null} without TLS. */
    public Path certificatePath() {
        return file(certificate, PkiDirectory.DAEMON_CERT);
    }

    /** The daemon's key file, or {@code null} without TLS. */
    public Path privateKeyPath() {
        return file(privateKey, PkiDirectory.DAEMON_KEY);
    }

    /** The trusted CA bundle, or {@code null} without TLS. */
    public Path trustedCasPath() {
        return file(trustedCas, PkiDirectory.CA_CERT);
    }

    private Path file(String explicit, String inDirectory) {
        if (explicit != null) {
            return Path.of(explicit);
        }
        return pkiDirectory == null ? null : Path.of(pkiDirectory).resolve(inDirectory);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
