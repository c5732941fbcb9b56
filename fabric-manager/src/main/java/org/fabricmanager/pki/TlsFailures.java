package org.fabricmanager.pki;

import java.security.cert.X509Certificate;
import java.util.Locale;

/**
 * A failed southbound TLS handshake in an operator's words, whichever engine ran it. BoringSSL reports any refusal as
 * "General OpenSslEngine problem" on the side that refused and as an alert ({@code TLSV1_ALERT_INTERNAL_ERROR}) on
 * the other; the JDK's engine says "does not chain" on one side and "certificate_unknown" on the other. Either way the
 * refusing side finds the {@link UntrustedCertificateException} of its trust manager among the failure's causes and
 * names the certificate and its issuer, and the refused side reads the alert as what it nearly always is: the peer
 * did not trust its certificate.
 */
public final class TlsFailures {
    /** Causes followed at most: a failure's chain is short, and a cyclic one must not loop. */
    private static final int MAX_DEPTH = 16;

    private TlsFailures() {
    }

    /** What the daemon logs of an agent's failed handshake (the peer's address is logged beside it). */
    public static String byDaemon(Throwable failure) {
        UntrustedCertificateException refused = find(failure);
        if (refused != null) {
            return "the peer's " + refused.getMessage();
        }
        String alert = alert(failure);
        if (alert != null) {
            return "the peer refused the handshake with alert " + alert + ": it most likely does not trust the daemon's "
                    + "certificate (is it configured with another CA than the fabric CA?)";
        }
        return rootMessage(failure);
    }

    /**
     * What an agent logs of its failed handshake with the daemon.
     *
     * @param own the agent's own certificate, named when the daemon refused it ({@code null}: not named)
     */
    public static String byAgent(Throwable failure, X509Certificate own) {
        UntrustedCertificateException refused = find(failure);
        if (refused != null) {
            return "the daemon's " + refused.getMessage();
        }
        String alert = alert(failure);
        if (alert != null) {
            return "the daemon refused our certificate" + (own == null ? "" : " '"
                    + own.getSubjectX500Principal().getName() + "' (issued by '" + own.getIssuerX500Principal().getName()
                    + "')") + " with alert " + alert + ": is it issued by the fabric CA the daemon trusts?";
        }
        return rootMessage(failure);
    }

    /** True when {@code failure} is an alert the peer sent (not a refusal of our own). */
    public static boolean isAlert(Throwable failure) {
        return find(failure) == null && alert(failure) != null;
    }

    /** The trust manager's refusal among the causes of {@code failure}, or {@code null}. */
    static UntrustedCertificateException find(Throwable failure) {
        Throwable c = failure;
        for (int i = 0; c != null && i < MAX_DEPTH; i++, c = c.getCause()) {
            if (c instanceof UntrustedCertificateException u) {
                return u;
            }
            for (Throwable s : c.getSuppressed()) {
                if (s instanceof UntrustedCertificateException u) {
                    return u;
                }
            }
        }
        return null;
    }

    /**
     * The alert the peer sent, as the engine names it ({@code TLSV1_ALERT_INTERNAL_ERROR}, {@code certificate_unknown}),
     * or {@code null} when the failure is not a received alert.
     */
    static String alert(Throwable failure) {
        Throwable c = failure;
        for (int i = 0; c != null && i < MAX_DEPTH; i++, c = c.getCause()) {
            String m = c.getMessage();
            if (m == null) {
                continue;
            }
            int boring = m.indexOf("_ALERT_");
            if (boring >= 0) {
                int start = m.lastIndexOf(':', boring) + 1;
                int end = boring;
                while (end < m.length() && (Character.isLetterOrDigit(m.charAt(end)) || m.charAt(end) == '_')) {
                    end++;
                }
                return m.substring(start, end);
            }
            String jdk = "received fatal alert: ";
            int at = m.toLowerCase(Locale.ROOT).indexOf(jdk);
            if (at >= 0) {
                return m.substring(at + jdk.length()).trim();
            }
        }
        return null;
    }

    /** The innermost cause's class and message. */
    static String rootMessage(Throwable t) {
        Throwable c = t;
        for (int i = 0; c.getCause() != null && c.getCause() != c && i < MAX_DEPTH; i++) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + ": " + c.getMessage();
    }
}
