package org.fabricmanager.southbound;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.security.cert.Certificate;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.OptionalLong;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.fabricmanager.pki.FabricIdentity;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsContexts;
import org.fabricmanager.pki.TlsFailures;
import org.fabricmanager.topology.Guids;

/**
 * The pipeline handler of a secure daemon that learns who the peer is once its TLS handshake completes: it
 * turns Netty's {@link SslHandshakeCompletionEvent} into a {@link CertificateIdentity} event for the handlers
 * after it (the handshake starts its HELLO timer on a switch's identity, the session refuses the others). A
 * certificate is a switch's when it is valid now and names exactly one GUID ({@link FabricIdentity}).
 */
final class CertificateIdentityHandler extends ChannelInboundHandlerAdapter {

    /** What the TLS handshake proved about the peer. */
    enum Outcome {
        /** The certificate names switch {@link CertificateIdentity#guid()}. */
        SWITCH,
        /** The TLS handshake failed; the {@link SslHandler} closes the connection. */
        HANDSHAKE_FAILED,
        /** The certificate (of a resumed session, whose chain was not checked again) is not valid now. */
        NOT_VALID_NOW,
        /** The certificate names no switch. */
        NO_SWITCH,
        /** The certificate names a switch but is no switch certificate: a CA's, or not for client authentication. */
        NOT_A_SWITCH_CERTIFICATE
    }

    /**
     * The peer's identity, fired as a user event once the TLS handshake completes.
     *
     * @param guid   the switch the certificate names, empty unless {@link Outcome#SWITCH}
     * @param detail the TLS protocol for a switch, otherwise why the peer has no identity
     */
    record CertificateIdentity(Outcome outcome, OptionalLong guid, String detail) {
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            ctx.fireUserEventTriggered(identify(ctx, done));
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    private static CertificateIdentity identify(ChannelHandlerContext ctx, SslHandshakeCompletionEvent event) {
        if (!event.isSuccess()) {
            Throwable cause = event.cause();
            return new CertificateIdentity(Outcome.HANDSHAKE_FAILED, OptionalLong.empty(),
                    cause == null ? null : TlsFailures.byDaemon(cause));
        }
        SslHandler tls = ctx.pipeline().get(SslHandler.class);
        String subject = "?";
        OptionalLong guid;
        X509Certificate peer = null;
        try {
            Certificate[] chain = tls.engine().getSession().getPeerCertificates();
            peer = (X509Certificate) chain[0];
            subject = peer.getSubjectX500Principal().getName();
            // a resumed session (either engine) skipped the chain check: its certificate may have expired since the
            // ticket's full handshake (a ticket lives up to 2 days, renewed up to 7); refuse it as a full handshake would
            peer.checkValidity();
            guid = FabricIdentity.switchGuid(peer);
        } catch (CertificateExpiredException | CertificateNotYetValidException e) {
            return new CertificateIdentity(Outcome.NOT_VALID_NOW, OptionalLong.empty(), (TlsContexts.resumed(tls.engine())
                    ? "resumed " : "") + "TLS session of '" + subject + "': the certificate is not valid now ("
                    + e.getMessage() + ")");
        } catch (SSLPeerUnverifiedException | PkiException | ClassCastException e) {
            guid = OptionalLong.empty();
            subject = subject + " (" + e.getMessage() + ")";
        }
        if (guid.isEmpty()) {
            return new CertificateIdentity(Outcome.NO_SWITCH, guid, "certificate '" + subject
                    + "' names no switch (needs the URI " + FabricIdentity.GUID_PREFIX + "0x<16 hex digits>)");
        }
        String problem = FabricIdentity.switchCertificateProblem(peer);
        if (problem != null) {
            return new CertificateIdentity(Outcome.NOT_A_SWITCH_CERTIFICATE, OptionalLong.empty(), "certificate '"
                    + subject + "' names switch " + Guids.format(guid.getAsLong()) + " but " + problem);
        }
        return new CertificateIdentity(Outcome.SWITCH, guid, tls.engine().getSession().getProtocol());
    }

    /** A TLS failure in an operator's words: a certificate that does not chain to the fabric CA, an alert, the cause. */
    static String rootMessage(Throwable t) {
        return TlsFailures.byDaemon(t);
    }
}
