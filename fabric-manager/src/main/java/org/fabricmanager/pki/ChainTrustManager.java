package org.fabricmanager.pki;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.stream.Collectors;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The southbound's check of a peer's chain: the JDK's PKIX trust manager over the fabric CA(s) alone, whose refusals
 * say plainly what is wrong. BoringSSL turns any exception of the trust manager into "General OpenSslEngine problem"
 * and sends the peer an internal-error alert; the exception itself travels as the failure's cause, so a refusal thrown
 * here as {@link UntrustedCertificateException} names the certificate's subject and issuer and the CAs it should have
 * chained to, whichever engine runs. Thread-safe (the delegate is).
 */
final class ChainTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager delegate;
    private final List<X509Certificate> trusted;
    private final String label;

    /**
     * @param trusted the CA certificates a chain must end at
     * @param label   what they are, as a refusal names them ("the fabric CA", "our CA")
     */
    ChainTrustManager(List<X509Certificate> trusted, String label) {
        this.trusted = List.copyOf(trusted);
        this.label = label;
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            for (int i = 0; i < trusted.size(); i++) {
                store.setCertificateEntry("ca-" + i, trusted.get(i));
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            X509ExtendedTrustManager found = null;
            for (TrustManager tm : factory.getTrustManagers()) {
                if (tm instanceof X509ExtendedTrustManager x) {
                    found = x;
                }
            }
            if (found == null) {
                throw new PkiException("the JDK offers no X.509 trust manager");
            }
            this.delegate = found;
        } catch (GeneralSecurityException | IOException e) {
            throw new PkiException("cannot build the trust manager of " + label + ": " + e.getMessage(), e);
        }
    }

    /** A refusal of {@code chain} that says why in an operator's words, with the JDK's reason as its cause. */
    private UntrustedCertificateException refusal(X509Certificate[] chain, CertificateException e) {
        if (chain == null || chain.length == 0) {
            return new UntrustedCertificateException("no certificate was presented", e);
        }
        X509Certificate leaf = chain[0];
        String subject = leaf.getSubjectX500Principal().getName();
        String issuer = leaf.getIssuerX500Principal().getName();
        String cas = trusted.stream().map(c -> "'" + c.getSubjectX500Principal().getName() + "'")
                .collect(Collectors.joining(", "));
        boolean knownIssuer = false;
        for (X509Certificate c : chain) {
            for (X509Certificate ca : trusted) {
                knownIssuer |= c.getIssuerX500Principal().equals(ca.getSubjectX500Principal());
            }
        }
        String what = knownIssuer ? "is not trusted: " + e.getMessage()
                : "does not chain to " + label + " (" + cas + ")";
        return new UntrustedCertificateException("certificate '" + subject + "' (issued by '" + issuer + "') " + what, e);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        try {
            delegate.checkClientTrusted(chain, authType, socket);
        } catch (CertificateException e) {
            throw refusal(chain, e);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        try {
            delegate.checkServerTrusted(chain, authType, socket);
        } catch (CertificateException e) {
            throw refusal(chain, e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        try {
            delegate.checkClientTrusted(chain, authType, engine);
        } catch (CertificateException e) {
            throw refusal(chain, e);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        try {
            delegate.checkServerTrusted(chain, authType, engine);
        } catch (CertificateException e) {
            throw refusal(chain, e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            delegate.checkClientTrusted(chain, authType);
        } catch (CertificateException e) {
            throw refusal(chain, e);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            delegate.checkServerTrusted(chain, authType);
        } catch (CertificateException e) {
            throw refusal(chain, e);
        }
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return delegate.getAcceptedIssuers();
    }
}
