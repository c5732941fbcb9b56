package org.fabricmanager.cli;

import java.util.List;
import java.util.Set;
import org.fabricmanager.release.BuildInfo;

/**
 * {@code man}: the manual page fabric-manager(1) in roff, made from the commands' own usage texts so that it
 * always matches the release that prints it. Installed with
 * {@code fabric-manager man | gzip > /usr/local/share/man/man1/fabric-manager.1.gz}.
 */
final class ManCommand implements Command {
    @Override
    public String name() {
        return "man";
    }

    @Override
    public String summary() {
        return "print the manual page fabric-manager(1) (roff)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager man
                  Prints the manual page fabric-manager(1), every command's usage included, as roff. Install it with
                    fabric-manager man | gzip | sudo tee /usr/local/share/man/man1/fabric-manager.1.gz >/dev/null
                  or read it at once with: fabric-manager man | man -l -""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of();
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) {
        console.out().print(page(Commands.all(), BuildInfo.current().version()));
        return ExitCodes.OK;
    }

    static String page(List<Command> commands, String version) {
        StringBuilder b = new StringBuilder();
        b.append(".TH FABRIC-MANAGER 1 \"\" \"fabric-manager ").append(escape(version)).append("\" \"User Commands\"\n");
        b.append(".SH NAME\nfabric-manager \\- centralised fabric manager for fat-tree interconnects\n");
        b.append(".SH SYNOPSIS\n.B fabric-manager\n.I command\n[\\fIoptions\\fR]\n.br\n.B fabric-manager\n")
                .append(".I command\n.B \\-\\-help\n.br\n.B fabric-manager \\-\\-version\n");
        b.append(".SH DESCRIPTION\n")
                .append("fabric-manager discovers a Parallel Generalised Fat-Tree fabric, routes it (Dmodc by default), installs ")
                .append("the forwarding tables in its switches and re-routes around link and switch faults. The daemon (")
                .append("\\fBrun\\fR) serves a REST API, a status page and Prometheus metrics; the other commands route ")
                .append("fabrics offline, simulate switches, query a running daemon or manage its certificates.\n");
        b.append(".SH COMMANDS\n");
        for (Command c : commands) {
            b.append(".SS ").append(escape(c.name())).append("\n").append(escape(c.summary())).append(".\n");
            b.append(".PP\n.nf\n");
            for (String line : c.usage().split("\n", -1)) {
                b.append(escape(line)).append('\n');
            }
            b.append(".fi\n");
        }
        b.append(".SH EXIT STATUS\n")
                .append(".TP\n0\n").append("Success, or a fabric that is intact or degraded as expected.\n")
                .append(".TP\n1\n").append("An internal failure (a bug): one line, and the stack trace with \\fB\\-\\-verbose\\fR.\n")
                .append(".TP\n2\n").append("Bad arguments or bad input, with a one-line message on standard error.\n")
                .append(".TP\n3\n").append("The input was read but does not match what was expected (e.g. not the expected PGFT).\n");
        b.append(".SH ENVIRONMENT\n.TP\n.B FM_JAVA_OPTS\nOptions of the Java virtual machine, e.g. \\-Xmx8g for ")
                .append("65,536-node fabrics.\n");
        b.append(".SH FILES\n.TP\n.I /etc/fabric-manager/fabric-manager.yaml\nThe daemon's configuration (Debian package).\n")
                .append(".TP\n.I /var/lib/fabric-manager\nIts state: destination indices, routing, quarantines and drains.\n");
        b.append(".SH SEE ALSO\n.BR opensm (8),\n.BR ibroute (8);\n")
                .append("the documentation in /opt/fabric-manager/docs (release and Debian package) or the source tree's docs/.\n");
        return b.toString();
    }

    /**
     * A line of text as roff prints it: backslashes escaped, a leading dot or quote kept literal, dashes as
     * minus, characters beyond ASCII as groff's Unicode escapes (the usage texts have arrows and dashes).
     */
    static String escape(String text) {
        StringBuilder b = new StringBuilder(text.length() + 8);
        text.codePoints().forEach(c -> {
            if (c == '\\') {
                b.append("\\e");
            } else if (c == '-') {
                b.append("\\-");
            } else if (c > 126) {
                b.append(String.format("\\[u%04X]", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        String t = b.toString();
        return t.startsWith(".") || t.startsWith("'") ? "\\&" + t : t;
    }
}
