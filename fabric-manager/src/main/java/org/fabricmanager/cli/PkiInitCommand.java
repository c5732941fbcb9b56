package org.fabricmanager.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.KeyType;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;

/**
 * {@code pki init}: makes a new fabric CA and the daemon's server certificate in a directory
 * ({@code ca.crt}, {@code ca.key}, {@code daemon.crt}, {@code daemon.key}; keys 0600, directory 0700).
 * Never overwrites an existing CA.
 */
final class PkiInitCommand implements Command {
    @Override
    public String name() {
        return "pki init";
    }

    @Override
    public String summary() {
        return "create the fabric CA and the daemon's certificate (docs/security.md)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager pki init --dir DIR [--ca-name NAME] [--ca-days N] [--days N]
                                               [--daemon-dns NAME,...] [--daemon-ip ADDRESS,...] [--key-type TYPE]
                  Creates a fabric CA and the daemon's TLS certificate in DIR:
                    ca.crt, ca.key (the CA; keep ca.key on the host that issues certificates),
                    daemon.crt, daemon.key (for security.pkiDirectory on the daemon's host).
                  Keys are PKCS#8 PEM with mode 0600. An existing CA in DIR is never overwritten.
                  --dir DIR               the PKI directory (created 0700)
                  --ca-name NAME          the CA's common name (default "fabric-manager CA")
                  --ca-days N             the CA's validity in days (default 3650)
                  --days N                the daemon certificate's validity in days (default 730)
                  --daemon-dns NAME,...   host names agents use to reach the daemon (recorded in its certificate)
                  --daemon-ip ADDR,...    addresses agents use to reach the daemon
                  --key-type TYPE         the certificates' keys: ecdsa-p256 (default: the cheap key of the OpenSSL
                                          TLS engine, accepted by browsers; the CA itself is RSA-3072, whose
                                          signatures the JDK checks fast) or ed25519 (JDK TLS only: BoringSSL does
                                          not sign with it; an Ed25519 CA); every certificate the CA issues gets
                                          the same type""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("dir", "ca-name", "ca-days", "days", "daemon-dns", "daemon-ip", "key-type");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) {
        PkiDirectory dir = new PkiDirectory(Path.of(args.require("dir")));
        int caDays = args.intValue("ca-days", 3650, 1, 36_500);
        int days = args.intValue("days", 730, 1, 36_500);
        List<InetAddress> addresses = new ArrayList<>();
        for (String a : args.listValue("daemon-ip", List.of())) {
            addresses.add(address("pki init", a));
        }
        try {
            CertificateAuthority ca = dir.init(args.valueOr("ca-name", "fabric-manager CA"), Duration.ofDays(caDays),
                    args.listValue("daemon-dns", List.of()), addresses, Duration.ofDays(days), Clock.systemUTC(),
                    args.has("key-type") ? KeyType.parse(args.require("key-type")) : KeyType.DEFAULT);
            console.out().println("pki init: CA '" + ca.certificate().getSubjectX500Principal().getName() + "' valid until "
                    + ca.certificate().getNotAfter().toInstant() + ", issuing " + ca.keyType().option() + " certificates, in " + dir.path());
            console.out().println("  " + dir.caCertificate() + "     trust bundle for the daemon and every agent");
            console.out().println("  " + dir.caKey() + "     issues certificates: keep it off the daemon's host");
            console.out().println("  " + dir.daemonCertificate() + ", " + dir.daemonKey().getFileName()
                    + "     the daemon's (security.pkiDirectory)");
            console.out().println("next: fabric-manager pki issue --dir " + dir.path() + " --pgft SPEC (or --topology FILE, "
                    + "--guid G,...)");
        } catch (PkiException e) {
            throw new UsageException("pki init: " + e.getMessage(), e);
        }
        return ExitCodes.OK;
    }

    /** A literal IP address of a {@code --daemon-ip} option of {@code command}. */
    static InetAddress address(String command, String text) {
        // only literal addresses: a name here would be resolved, silently, by whatever DNS the host has
        if (!text.matches("[0-9.]+|[0-9a-fA-F:.]+")) {
            throw new UsageException(command + ": --daemon-ip: '" + text + "' is not an IP address (host names go in --daemon-dns)");
        }
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new UsageException(command + ": --daemon-ip: '" + text + "' is not an IP address", e);
        }
    }
}
