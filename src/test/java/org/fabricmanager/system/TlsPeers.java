package org.fabricmanager.system;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Raw TLS clients for the system tests: a blocking {@link SSLSocket} that presents whatever
 * certificate a test chooses (or none), so that the bytes after the handshake can be any frame.
 */
final class TlsPeers {
    private TlsPeers() {
    }

    /**
     * Connects and completes (or attempts) a TLS 1.3 handshake.
     *
     * @param chain   the certificate to present ({@code null}: none)
     * @param trusted what the client trusts the server by
     */
    static SSLSocket connect(int port, List<X509Certificate> chain, PrivateKey key, List<X509Certificate> trusted)
            throws IOException, GeneralSecurityException {
        return connect(port, context(chain, key, trusted));
    }

    /** The client context of {@link #connect(int, List, PrivateKey, List)}; built once, it serves many connections. */
    static SSLContext context(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> trusted)
            throws GeneralSecurityException, IOException {
        // JKS, not PKCS12: an in-memory PKCS12 store encrypts the key with 10,000 PBKDF2 iterations
        char[] password = "test".toCharArray();
        KeyStore keys = KeyStore.getInstance("JKS");
        keys.load(null, null);
        if (chain != null) {
            keys.setKeyEntry("me", key, password, chain.toArray(X509Certificate[]::new));
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password);
        KeyStore trust = KeyStore.getInstance("JKS");
        trust.load(null, null);
        int i = 0;
        for (X509Certificate c : trusted) {
            trust.setCertificateEntry("ca" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    /** Connects and completes (or attempts) a TLS 1.3 handshake with {@code context}. */
    static SSLSocket connect(int port, SSLContext context) throws IOException {
        Socket plain = new Socket();
        plain.setTcpNoDelay(true); // as the agents: else Nagle holds the client's last handshake flight for a delayed ACK
        plain.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
        s.setEnabledProtocols(new String[]{"TLSv1.3"});
        s.setSoTimeout(10_000);
        s.startHandshake();
        return s;
    }
}
