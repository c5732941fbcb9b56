package org.fabricmanager.daemon.config;

import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.List;
import org.fabricmanager.pki.FabricIdentity;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.TlsEngine;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.southbound.SouthboundSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the {@code security} section into the southbound's settings: loads the daemon's certificate,
 * key (refused when others may read it) and trust bundle, checks that the certificate is the daemon's
 * and is valid now, and builds the TLS context. Without TLS files it returns plaintext settings and logs,
 * at every start, the WARN saying who can then impersonate a switch. Problems are
 * {@link ConfigException}s naming the option and the file.
 */
public final class SouthboundSecurity {
    private static final Logger LOG = LoggerFactory.getLogger(SouthboundSecurity.class);

    private SouthboundSecurity() {
    }

    /** The southbound settings of {@code config}, with TLS when it is configured. */
    public static SouthboundSettings settings(DaemonConfig config) {
        Southbound sb = config.southbound();
        Security security = config.security();
        SslContext context = null;
        if (security.tlsConfigured()) {
            TlsMaterial material = material(security);
            String problem = FabricIdentity.daemonCertificateProblem(material.certificate());
            if (problem != null) {
                // agents would refuse it after every handshake: say so once, here
                throw new ConfigException("option security: " + security.certificatePath() + " ('"
                        + material.certificate().getSubjectX500Principal().getName() + "') cannot serve the southbound: "
                        + problem + "; agents refuse it (re-issue it: fabric-manager pki issue --daemon)");
            }
            TlsEngine engine;
            try {
                engine = security.tlsProvider().engine(material);
                context = TlsContexts.server(material, engine);
            } catch (PkiException e) {
                throw new ConfigException("option security.tlsProvider: " + e.getMessage(), e);
            }
            LOG.info("southbound: mutual TLS with {} (trusting {}), engine {}", security.certificatePath(),
                    security.trustedCasPath(), engine);
            if (security.pkiDirectory() != null && Files.exists(Path.of(security.pkiDirectory()).resolve(PkiDirectory.CA_KEY))) {
                LOG.warn("security: {} holds the CA's private key ({}); whoever reads it can mint a certificate for any "
                        + "switch: keep it on the host that issues certificates, not on the daemon's", security.pkiDirectory(),
                        PkiDirectory.CA_KEY);
            }
        } else {
            // Logged before the bind: with port 0 the port is not known yet (the "started" line names it).
            LOG.warn("security: the southbound runs WITHOUT TLS ({}): any host that can reach {} can claim any "
                    + "switch's GUID, receive its forwarding tables and make the daemon re-route with false port reports; "
                    + "configure security.pkiDirectory (fabric-manager pki init, docs/security.md)",
                    security.insecure() ? "security.insecure: true" : "no TLS files configured",
                    sb.port() == 0 ? sb.bind() + " on the port chosen at start" : sb.bind() + ":" + sb.port());
        }
        return new SouthboundSettings(sb.bind(), sb.port(), sb.maxFrameBytes(), sb.handshakeTimeoutMs(), sb.echoIntervalMs(),
                sb.idleTimeoutMs(), sb.ioThreads(), context, security.incarnationAheadMs()).withTlsAdmission(sb.tlsAdmission());
    }

    /** The CA bundle the southbound trusts ({@code security}'s trusted CAs file); session-ticket keys are derived for it. */
    public static List<X509Certificate> trusted(Security security) {
        try {
            return PemFiles.readCertificates(security.trustedCasPath());
        } catch (PkiException e) {
            throw new ConfigException("option security: " + e.getMessage(), e);
        }
    }

    /** Loads and checks the daemon's TLS files (the southbound's, and the Raft port's with ha). */
    public static TlsMaterial material(Security security) {
        TlsMaterial m;
        try {
            m = TlsMaterial.load(security.certificatePath(), security.privateKeyPath(), security.trustedCasPath());
        } catch (PkiException e) {
            throw new ConfigException("option security" + (security.pkiDirectory() != null ? ".pkiDirectory" : "") + ": "
                    + e.getMessage(), e);
        }
        X509Certificate cert = m.certificate();
        if (!FabricIdentity.isDaemon(cert)) {
            throw new ConfigException("option security: " + security.certificatePath() + " is not a daemon certificate (no "
                    + FabricIdentity.DAEMON_URI + " name; is it a switch's?)");
        }
        Date now = new Date();
        if (now.after(cert.getNotAfter()) || now.before(cert.getNotBefore())) {
            throw new ConfigException("option security: " + security.certificatePath() + " is valid only from "
                    + cert.getNotBefore().toInstant() + " to " + cert.getNotAfter().toInstant() + " (re-issue it: "
                    + "fabric-manager pki issue --daemon)");
        }
        return m;
    }
}
