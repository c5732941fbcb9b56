package org.fabricmanager.daemon.ha;

import java.security.cert.X509Certificate;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.rpc.SupportedRpcType;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.pki.FabricIdentity;
import org.fabricmanager.pki.FixedKeyManager;
import org.fabricmanager.pki.KeyType;
import org.fabricmanager.pki.ManagerPeerTrust;
import org.fabricmanager.pki.TlsMaterial;

/**
 * The Raft port of one member: Ratis's gRPC transport on {@code host:port}, with mutual TLS when the daemon has
 * TLS material. Then the member presents the daemon's certificate and accepts, as server and as client, only
 * peers whose certificate the fabric CA issued to a manager ({@link ManagerPeerTrust}): a switch's certificate,
 * though signed by the same CA, is refused, and so is one naming the daemon without a manager's key
 * purposes. Ratis serves its server, admin and client services on this one port
 * (no separate admin or client port is configured), so all three sit behind the same TLS.
 */
final class RaftTransport {
    private RaftTransport() {
    }

    /**
     * Sets the transport in {@code props} and returns the parameters carrying the TLS configuration (empty for
     * plaintext, {@code tls == null}).
     *
     * @param refusals told of every peer certificate the port refuses, as server or as client
     *
     * @throws ConfigException when the daemon's certificate cannot serve on the Raft port
     */
    static Parameters configure(RaftProperties props, String host, int port, TlsMaterial tls,
                                ManagerPeerTrust.Refusals refusals) {
        RaftConfigKeys.Rpc.setType(props, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(props, host);
        GrpcConfigKeys.Server.setPort(props, port);
        Parameters parameters = new Parameters();
        if (tls != null) {
            check(tls);
            GrpcTlsConfig config = new GrpcTlsConfig(
                    new FixedKeyManager(tls.chain().toArray(X509Certificate[]::new), tls.key()),
                    new ManagerPeerTrust(tls.trusted(), refusals), true);
            GrpcConfigKeys.TLS.setConf(parameters, config);
        }
        return parameters;
    }

    /**
     * Refuses, before Ratis would fail with a handshake error on every connection, a certificate that cannot do
     * both halves of a member's TLS, and a key the Raft port's engine cannot use.
     */
    private static void check(TlsMaterial tls) {
        X509Certificate cert = tls.certificate();
        String subject = cert.getSubjectX500Principal().getName();
        // certificates issued before the Raft port had TLS name the server purpose only: the peers refuse those, and
        // any daemon certificate that is not a manager's (ManagerPeerTrust), so the member would never be heard. A
        // certificate that names no daemon (a switch's) is left to the peers, which refuse it as not a manager's.
        String problem = FabricIdentity.isDaemon(cert) ? FabricIdentity.managerCertificateProblem(cert) : null;
        if (problem != null) {
            throw new ConfigException("ha: the daemon's certificate '" + subject + "' cannot serve on the Raft port: "
                    + problem + "; the other managers refuse it (a member is a TLS server and client to its peers);"
                    + " re-issue it (fabric-manager pki issue --daemon, docs/operations.md)");
        }
        if (KeyType.of(tls.key()).filter(t -> t == KeyType.ED25519).isPresent()) {
            // Ratis builds its gRPC server on the BoringSSL engine, whatever security.tlsProvider says
            throw new ConfigException("ha: the daemon's key '" + subject + "' is Ed25519, which the Raft port's TLS engine"
                    + " (BoringSSL, chosen by Ratis) cannot use; use a PKI of ECDSA P-256 keys (pki init --key-type"
                    + " ecdsa-p256, docs/security.md)");
        }
    }
}
