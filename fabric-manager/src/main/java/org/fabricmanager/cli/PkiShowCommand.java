package org.fabricmanager.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Stream;
import org.fabricmanager.pki.FabricIdentity;
import org.fabricmanager.pki.KeyType;
import org.fabricmanager.pki.PemFiles;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code pki show}: what a PKI directory holds: the trusted CA(s), the daemon's certificate and a
 * summary of the switch certificates (valid, expiring within 30 days, expired, not signed by a trusted
 * CA, naming another GUID than their file), or one switch's certificate in detail.
 */
final class PkiShowCommand implements Command {
    private static final Duration SOON = Duration.ofDays(30);

    @Override
    public String name() {
        return "pki show";
    }

    @Override
    public String summary() {
        return "show the CA, daemon and switch certificates of a PKI directory";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager pki show --dir DIR [--guid G]
                  Prints the trusted CA(s) of DIR/ca.crt, the daemon's certificate and a summary of the switch
                  certificates (valid, expiring within 30 days, expired, not signed by a trusted CA, naming another
                  GUID than their file name); the daemon's host names and addresses (DNS and IP names); with --guid, that switch's certificate in detail.
                Exit code 3 when a certificate is expired, untrusted or misnamed.""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("dir", "guid");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) throws IOException {
        PkiDirectory dir = new PkiDirectory(Path.of(args.require("dir")));
        Instant now = Instant.now();
        boolean bad = false;
        try {
            List<X509Certificate> cas = PemFiles.readCertificates(dir.caCertificate());
            for (X509Certificate ca : cas) {
                console.out().println("CA       " + describe(ca, now));
            }
            if (args.has("guid")) {
                long guid;
                try {
                    guid = Guids.parseLenient(args.require("guid"));
                } catch (TopologyException e) {
                    throw new UsageException("pki show: --guid: " + e.getMessage(), e);
                }
                if (!Files.exists(dir.switchCertificate(guid))) {
                    throw new UsageException("pki show: no certificate for switch " + Guids.format(guid) + " in "
                            + dir.switchCertificate(guid).getParent());
                }
                X509Certificate c = PemFiles.readCertificate(dir.switchCertificate(guid));
                String problem = problem(c, cas, OptionalLong.of(guid), now);
                console.out().println("switch   " + describe(c, now) + (problem == null ? "" : "  PROBLEM: " + problem));
                return problem == null ? ExitCodes.OK : ExitCodes.MISMATCH;
            }
            if (Files.exists(dir.daemonCertificate())) {
                X509Certificate d = PemFiles.readCertificate(dir.daemonCertificate());
                String problem = !FabricIdentity.isDaemon(d) ? "does not name " + FabricIdentity.DAEMON_URI
                        : problem(d, cas, OptionalLong.empty(), now);
                if (problem == null) {
                    // what agents (and the daemon at start) refuse: not for TLS server authentication
                    problem = FabricIdentity.daemonCertificateProblem(d);
                }
                bad |= problem != null;
                console.out().println("daemon   " + describe(d, now) + (problem == null ? "" : "  PROBLEM: " + problem));
                console.out().println("         names " + hostNames(dir.daemonNames()));
            } else {
                console.out().println("daemon   (no " + PkiDirectory.DAEMON_CERT + ")");
            }
            bad |= switches(dir, cas, now, console);
        } catch (PkiException e) {
            throw new UsageException("pki show: " + e.getMessage(), e);
        }
        return bad ? ExitCodes.MISMATCH : ExitCodes.OK;
    }

    private static boolean switches(PkiDirectory dir, List<X509Certificate> cas, Instant now, Console console)
            throws IOException {
        Path folder = dir.path().resolve(PkiDirectory.SWITCHES);
        if (!Files.isDirectory(folder)) {
            console.out().println("switches (none issued)");
            return false;
        }
        int valid = 0;
        int soon = 0;
        int problems = 0;
        Instant firstExpiry = null;
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".crt")).sorted().toList()) {
                String name = f.getFileName().toString();
                OptionalLong expected;
                try {
                    expected = OptionalLong.of(Guids.parse(name.substring(0, name.length() - 4)));
                } catch (TopologyException e) {
                    expected = OptionalLong.empty();
                }
                X509Certificate c = PemFiles.readCertificate(f);
                String problem = expected.isEmpty() ? "file name is not 0x<guid>.crt" : problem(c, cas, expected, now);
                if (problem != null) {
                    problems++;
                    console.out().println("switch   " + name + ": " + problem);
                    continue;
                }
                valid++;
                Instant end = c.getNotAfter().toInstant();
                if (end.isBefore(now.plus(SOON))) {
                    soon++;
                }
                firstExpiry = firstExpiry == null || end.isBefore(firstExpiry) ? end : firstExpiry;
            }
        }
        console.out().println("switches " + valid + " valid" + (firstExpiry == null ? "" : " (first expiry " + firstExpiry + ")")
                + ", " + soon + " expiring within " + SOON.toDays() + " days, " + problems + " with problems");
        return problems > 0;
    }

    /** Why a certificate is unusable, or {@code null}. */
    private static String problem(X509Certificate c, List<X509Certificate> cas, OptionalLong guid, Instant now) {
        if (now.isAfter(c.getNotAfter().toInstant())) {
            return "expired " + c.getNotAfter().toInstant();
        }
        if (now.isBefore(c.getNotBefore().toInstant())) {
            return "not valid before " + c.getNotBefore().toInstant();
        }
        boolean signed = false;
        for (X509Certificate ca : cas) {
            try {
                c.verify(ca.getPublicKey());
                signed = true;
                break;
            } catch (GeneralSecurityException e) {
                // try the next CA of the bundle
            }
        }
        if (!signed) {
            return "not signed by a CA of " + PkiDirectory.CA_CERT;
        }
        if (guid.isPresent()) {
            OptionalLong named;
            try {
                named = FabricIdentity.switchGuid(c);
            } catch (PkiException e) {
                return e.getMessage();
            }
            if (named.isEmpty()) {
                return "names no switch GUID";
            }
            if (named.getAsLong() != guid.getAsLong()) {
                return "names switch " + Guids.format(named.getAsLong()) + ", not " + Guids.format(guid.getAsLong());
            }
        }
        return null;
    }

    /** The daemon certificate's DNS and IP names: what agents and REST clients check the daemon's address against. */
    private static String hostNames(PkiDirectory.DaemonNames names) {
        List<String> all = new ArrayList<>();
        names.dnsNames().forEach(n -> all.add("DNS:" + n));
        names.addresses().forEach(a -> all.add("IP:" + a.getHostAddress()));
        return all.isEmpty() ? "(none: agents check the daemon by its urn:fabric:daemon name; HTTPS clients that check the host name need DNS or IP names, pki issue --daemon --daemon-dns/--daemon-ip)" : String.join(", ", all);
    }

    private static String describe(X509Certificate c, Instant now) {
        String fingerprint;
        try {
            fingerprint = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()), 0, 8);
        } catch (GeneralSecurityException e) {
            fingerprint = "?";
        }
        String who = c.getSubjectX500Principal().getName();
        OptionalLong guid;
        try {
            guid = FabricIdentity.switchGuid(c);
        } catch (PkiException e) {
            guid = OptionalLong.empty();
        }
        long days = Duration.between(now, c.getNotAfter().toInstant()).toDays();
        return who + (guid.isPresent() ? " [" + FabricIdentity.switchUri(guid.getAsLong()) + "]" : "")
                + (FabricIdentity.isDaemon(c) ? " [" + FabricIdentity.DAEMON_URI + "]" : "")
                + ", " + KeyType.of(c.getPublicKey()).map(KeyType::option)
                        .orElse(c.getPublicKey() instanceof RSAKey rsa
                                ? "rsa-" + rsa.getModulus().bitLength() : c.getPublicKey().getAlgorithm())
                + ", valid until " + c.getNotAfter().toInstant() + " (" + days + " days), sha256 " + fingerprint + "...";
    }
}
