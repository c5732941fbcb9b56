package org.fabricmanager.pki;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The trust of one hot-standby manager in another on the Raft port: the peer's chain must pass the JDK's
 * PKIX checks against the fabric CA(s) alone (signature, validity, the TLS client or server key purpose, and the
 * host name when the connecting side asked for it), and its certificate must name the daemon
 * ({@value FabricIdentity#DAEMON_URI}) and no switch, and carry both TLS key purposes a manager's certificate is
 * issued with (PKIX accepts one that carries none). The second check is why a plain CA trust manager is not
 * enough: the fabric CA also signs every switch's certificate, and a switch (or whoever stole its key) must
 * never vote or append to the managers' log. Every refusal is reported to a {@link Refusals} (counted and logged
 * rate-limited by the daemon), since a Raft port on the management network is a target like the southbound.
 */
public final class ManagerPeerTrust extends X509ExtendedTrustManager {
    /** Why a peer's certificate was refused. */
    public enum Refusal {
        /** The chain did not pass PKIX against the fabric CA(s): another CA, self-signed, expired, wrong key purpose. */
        UNTRUSTED,
        /**
         * A valid fabric certificate that is not a manager's: a switch's, one naming no one, or one naming the daemon
         * without the key purposes of a manager's (none, one of the two) or a CA's.
         */
        NOT_A_MANAGER;

        /** The meter tag: lower case, dashes. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** Told of every refused peer, on the TLS engine's thread: must be quick and thread-safe. */
    @FunctionalInterface
    public interface Refusals {
        /** Nobody is told (tests of the checks alone). */
        Refusals NONE = (kind, chain, why) -> { };

        void refused(Refusal kind, X509Certificate[] chain, CertificateException why);
    }

    /** One of the JDK trust manager's checks, for the overloads below to share the refusal handling. */
    @FunctionalInterface
    private interface PkixCheck {
        void run() throws CertificateException;
    }

    private final X509ExtendedTrustManager pkix;
    private final Refusals refusals;

    /** Trusts daemon certificates issued by one of {@code trustedCas}; refusals are reported to nobody. */
    public ManagerPeerTrust(List<X509Certificate> trustedCas) {
        this(trustedCas, Refusals.NONE);
    }

    /** Trusts daemon certificates issued by one of {@code trustedCas} and reports every refusal to {@code refusals}. */
    public ManagerPeerTrust(List<X509Certificate> trustedCas, Refusals refusals) {
        this.pkix = pkix(trustedCas);
        this.refusals = refusals;
    }

    private static X509ExtendedTrustManager pkix(List<X509Certificate> cas) {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                store.setCertificateEntry("ca-" + i, cas.get(i));
            }
            TrustManagerFactory f = TrustManagerFactory.getInstance("PKIX");
            f.init(store);
            for (TrustManager t : f.getTrustManagers()) {
                if (t instanceof X509ExtendedTrustManager x) {
                    return x;
                }
            }
            throw new PkiException("the JDK offers no X509ExtendedTrustManager for PKIX");
        } catch (GeneralSecurityException | IOException e) {
            throw new PkiException("cannot build the managers' trust manager: " + e.getMessage(), e);
        }
    }

    /**
     * Refuses {@code chain} unless its first certificate names the daemon and no switch, and is a manager's as
     * {@code pki issue --daemon} makes it ({@link FabricIdentity#managerCertificateProblem}): the JDK's PKIX checks
     * take a certificate without extended key usages for either TLS end.
     *
     * @throws CertificateException naming the certificate's subject and what it names instead
     */
    static void requireManager(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("no certificate presented");
        }
        X509Certificate leaf = chain[0];
        String subject = leaf.getSubjectX500Principal().getName();
        try {
            if (FabricIdentity.switchGuid(leaf).isPresent()) {
                throw new CertificateException("'" + subject + "' is a switch's certificate, not a manager's: a switch "
                        + "may not join the managers' Raft group");
            }
        } catch (PkiException e) {
            throw new CertificateException(e.getMessage(), e);
        }
        if (!FabricIdentity.isDaemon(leaf)) {
            throw new CertificateException("'" + subject + "' does not name " + FabricIdentity.DAEMON_URI
                    + ": not a manager's certificate");
        }
        String problem = FabricIdentity.managerCertificateProblem(leaf);
        if (problem != null) {
            throw new CertificateException("'" + subject + "' names " + FabricIdentity.DAEMON_URI + " but " + problem
                    + ": not a manager's certificate");
        }
    }

    /** The PKIX check, then the manager check; either refusal is reported before it is thrown. */
    private void check(X509Certificate[] chain, PkixCheck pkixCheck) throws CertificateException {
        try {
            pkixCheck.run();
        } catch (CertificateException e) {
            refusals.refused(Refusal.UNTRUSTED, chain, e);
            throw e;
        }
        try {
            requireManager(chain);
        } catch (CertificateException e) {
            refusals.refused(Refusal.NOT_A_MANAGER, chain, e);
            throw e;
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        check(chain, () -> pkix.checkClientTrusted(chain, authType, socket));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        check(chain, () -> pkix.checkServerTrusted(chain, authType, socket));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        check(chain, () -> pkix.checkClientTrusted(chain, authType, engine));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        check(chain, () -> pkix.checkServerTrusted(chain, authType, engine));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain, () -> pkix.checkClientTrusted(chain, authType));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain, () -> pkix.checkServerTrusted(chain, authType));
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
