package org.fabricmanager.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.fabricmanager.release.BuildInfo;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code man}: the manual page fabric-manager(1) in roff, made from picocli's model of the command line ({@link
 * CliTree}: the commands, their words and summaries) and the commands' own usage texts, so that it always matches the
 * release that prints it. (picocli's own generator writes AsciiDoc, which needs Asciidoctor to become a page.) Installed with
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
        console.out().print(page(new CliTree(Commands.all()), BuildInfo.current().version()));
        return ExitCodes.OK;
    }

    /** The page of every command of {@code tree}: its name and summary from picocli's model, then its usage text. */
    static String page(CliTree tree, String version) {
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
        for (CommandLine leaf : leaves(tree.root())) {
            CommandSpec spec = leaf.getCommandSpec();
            Command c = (Command) spec.userObject();
            String name = spec.qualifiedName(" ").substring(CliTree.NAME.length() + 1);
            b.append(".SS ").append(escape(name)).append("\n")
                    .append(escape(String.join(" ", spec.usageMessage().description()))).append(".\n");
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

    /** The commands under {@code line}, in the order they were added (a group's words in theirs). */
    private static List<CommandLine> leaves(CommandLine line) {
        List<CommandLine> out = new ArrayList<>();
        for (CommandLine sub : line.getSubcommands().values()) {
            if (sub.getSubcommands().isEmpty()) {
                out.add(sub);
            } else {
                out.addAll(leaves(sub));
            }
        }
        return out;
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
