package org.fabricmanager.cli;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.fabricmanager.pki.CertificateAuthority;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.topology.FabricJson;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code pki issue}: issues one certificate per switch (named by GUID, or every switch of a PGFT or a
 * topology file) with the CA of a PKI directory, into its {@code switches/} folder; or re-issues the
 * daemon's. Existing switch certificates are kept unless {@code --renew}.
 */
final class PkiIssueCommand implements Command {
    @Override
    public String name() {
        return "pki issue";
    }

    @Override
    public String summary() {
        return "issue switch certificates naming their GUIDs (or re-issue the daemon's)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager pki issue --dir DIR (--guid G[,G...] | --pgft SPEC | --topology FILE | --daemon)
                                                [--days N] [--renew] [--daemon-dns NAME,...] [--daemon-ip ADDRESS,...]
                                                [--out DIR2]
                  Issues, with the CA in DIR (ca.crt, ca.key), a certificate and key per switch into DIR/switches/:
                  0x<guid>.crt names the switch as urn:fabric:guid:0x<16 hex digits>; 0x<guid>.key is its key (0600).
                  Copy both and DIR/ca.crt to the switch (docs/security.md). Switches that have a certificate already
                  keep it unless --renew (the daemon trusts the CA, so a renewed certificate needs no daemon restart).
                  --guid G,...            these switches (GUIDs as 0x + hex digits)
                  --pgft SPEC             every switch of the canonical PGFT(...)
                  --topology FILE         every switch of a fabric-topology/1 file
                  --daemon                re-issue the daemon's certificate (daemon.crt, daemon.key; restart the daemon);
                                          it keeps the host names and addresses of the one it replaces unless
                                          --daemon-dns or --daemon-ip are given
                  --daemon-dns NAME,...   with --daemon: host names agents and the other managers use to reach it
                  --daemon-ip ADDR,...    with --daemon: addresses agents and the other managers use to reach it
                  --out DIR2              with --daemon: write it (and a copy of ca.crt, no CA key) into DIR2 instead,
                                          the security.pkiDirectory of another management node (docs/operations.md)
                  --days N                validity in days (default 730)
                  --renew                 replace existing switch certificates (new keys)""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("dir", "guid", "pgft", "topology", "days", "daemon-dns", "daemon-ip", "out");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("daemon", "renew");
    }

    @Override
    public int run(Arguments args, Console console) {
        PkiDirectory dir = new PkiDirectory(Path.of(args.require("dir")));
        Duration validity = Duration.ofDays(args.intValue("days", 730, 1, 36_500));
        boolean daemon = args.flag("daemon");
        if (daemon && (args.has("guid") || args.has("pgft") || args.has("topology"))) {
            throw new UsageException("pki issue: --daemon goes alone (no --guid, --pgft or --topology)");
        }
        if (!daemon && (args.has("daemon-dns") || args.has("daemon-ip") || args.has("out"))) {
            throw new UsageException("pki issue: --daemon-dns, --daemon-ip and --out go with --daemon");
        }
        try {
            CertificateAuthority ca = dir.loadCa(Clock.systemUTC());
            if (daemon) {
                return issueDaemon(args, console, dir, ca, validity);
            }
            Map<Long, String> switches = switches(args);
            int issued = 0;
            for (Map.Entry<Long, String> s : switches.entrySet()) {
                if (dir.issueSwitch(ca, s.getKey(), s.getValue(), validity, args.flag("renew"))) {
                    issued++;
                }
            }
            console.out().println("pki issue: " + issued + " certificate" + (issued == 1 ? "" : "s") + " issued, "
                    + (switches.size() - issued) + " kept (already present" + (args.flag("renew") ? "" : "; --renew replaces them")
                    + "), in " + dir.path().resolve(PkiDirectory.SWITCHES));
        } catch (PkiException e) {
            throw new UsageException("pki issue: " + e.getMessage(), e);
        }
        return ExitCodes.OK;
    }

    /** GUID to switch name (null when only the GUID is known), in the order given. */
    /**
     * Re-issues the daemon's certificate in DIR, or issues one for another management node into {@code --out}. The
     * names it carries matter: an agent, and a manager connecting to a peer's Raft port, check that the certificate
     * names the host or address they dialled; so without {@code --daemon-dns}/{@code --daemon-ip} the names of the
     * certificate being replaced are kept rather than dropped.
     */
    private static int issueDaemon(Arguments args, Console console, PkiDirectory dir, CertificateAuthority ca,
                                   Duration validity) {
        PkiDirectory target = args.has("out") ? new PkiDirectory(Path.of(args.require("out"))) : dir;
        List<String> dns = args.listValue("daemon-dns", List.of());
        List<InetAddress> ips = new ArrayList<>();
        for (String a : args.listValue("daemon-ip", List.of())) {
            ips.add(PkiInitCommand.address("pki issue", a));
        }
        if (dns.isEmpty() && ips.isEmpty()) {
            PkiDirectory.DaemonNames kept = target.daemonNames();
            dns = kept.dnsNames();
            ips = kept.addresses();
        }
        var issued = target == dir ? dir.issueDaemon(ca, dns, ips, validity)
                : dir.issueDaemonInto(target, ca, dns, ips, validity);
        String names = Stream.concat(dns.stream(), ips.stream().map(InetAddress::getHostAddress))
                .collect(Collectors.joining(", "));
        console.out().println("pki issue: daemon certificate " + (target == dir ? "re-issued" : "issued") + " for "
                + (names.isEmpty() ? "no host name or address (peers that check one will refuse it)" : names)
                + ", valid until " + issued.certificate().getNotAfter().toInstant() + " (" + target.daemonCertificate()
                + "); restart the daemon to use it");
        return ExitCodes.OK;
    }

    private static Map<Long, String> switches(Arguments args) {
        String which = args.exactlyOneOf("guid", "pgft", "topology");
        Map<Long, String> switches = new LinkedHashMap<>();
        try {
            switch (which) {
                case "guid" -> {
                    for (String g : args.listValue("guid", List.of())) {
                        long guid = Guids.parseLenient(g);
                        if (guid == 0) {
                            throw new UsageException("pki issue: --guid: GUID 0 names no switch");
                        }
                        switches.put(guid, null);
                    }
                }
                case "pgft" -> {
                    for (FabricSwitch s : PgftGenerator.generate(PgftSpec.parse(args.require("pgft"))).switches()) {
                        switches.put(s.guid(), s.name());
                    }
                }
                default -> {
                    for (FabricSwitch s : FabricJson.read(Path.of(args.require("topology"))).switches()) {
                        switches.put(s.guid(), s.name());
                    }
                }
            }
        } catch (TopologyException e) {
            throw new UsageException("pki issue: " + e.getMessage(), e);
        }
        return switches;
    }
}
