package org.fabricmanager.pki;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager with exactly one identity: one end of a southbound connection has one certificate,
 * so there is nothing to choose. It replaces the JDK's key-store-backed key manager, which would first
 * encrypt the key into an in-memory PKCS#12 store and decrypt it again (10,000 PBKDF2 iterations each
 * way, tens of milliseconds per context): the simulator builds one context per switch.
 */
public final class FixedKeyManager extends X509ExtendedKeyManager {
    private static final String ALIAS = "fabric";
    private final X509Certificate[] chain;
    private final PrivateKey key;

    public FixedKeyManager(X509Certificate[] chain, PrivateKey key) {
        this.chain = chain.clone();
        this.key = key;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return new String[]{ALIAS};
    }

    @Override
    public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
        return ALIAS;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
        return ALIAS;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return new String[]{ALIAS};
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return ALIAS;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return ALIAS;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return ALIAS.equals(alias) ? chain.clone() : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return ALIAS.equals(alias) ? key : null;
    }
}
