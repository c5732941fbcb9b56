package org.fabricmanager.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Comparator;
import org.fabricmanager.release.BuildInfo;

/**
 * Entry point of {@code bin/fabric-manager}: parses the command line with picocli ({@link CliTree}), runs the command
 * it names, turns bad input into one line on stderr with exit code 2, and prints stack traces only with
 * {@code --verbose}.
 */
public final class Main {
    private final Console console;
    private final CliTree tree = new CliTree(Commands.all());

    public Main(PrintStream out, PrintStream err) {
        this.console = new Console(out, err);
    }

    public static void main(String[] args) {
        int code = new Main(System.out, System.err).run(args);
        System.out.flush();
        if (code != ExitCodes.OK) {
            System.exit(code);
        }
    }

    /** Runs one command line and returns the exit code; never throws. */
    public int run(String... args) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("help") || args[0].equals("-h")) {
            printUsage(args.length == 0 ? console.err() : console.out());
            return args.length == 0 ? ExitCodes.BAD_INPUT : ExitCodes.OK;
        }
        if (args[0].equals("--version")) {
            if (args.length > 1) {
                console.err().println("fabric-manager: --version takes no argument, got '" + args[1] + "'");
                return ExitCodes.BAD_INPUT;
            }
            printVersion(console.out());
            return ExitCodes.OK;
        }
        boolean verbose = Arrays.asList(args).subList(1, args.length).contains("--verbose");
        Command command = null;
        try {
            CliTree.Parsed parsed = tree.parse(args);
            command = parsed.command();
            if (parsed.arguments().flag("help")) {
                console.out().println(command.usage());
                return ExitCodes.OK;
            }
            return command.run(parsed.arguments(), console);
        } catch (UsageException e) {
            console.err().println(e.getMessage());
            if (verbose) {
                e.printStackTrace(console.err());
            }
            return ExitCodes.BAD_INPUT;
        } catch (Exception | OutOfMemoryError | StackOverflowError e) {
            console.err().println((command == null ? CliTree.NAME : command.name()) + ": internal error: " + e);
            if (verbose) {
                e.printStackTrace(console.err());
            } else {
                console.err().println("(run again with --verbose for the stack trace)");
            }
            return ExitCodes.INTERNAL;
        }
    }

    /**
     * The release on the first line, for scripts and bug reports ({@link BuildInfo#describe()}), then
     * the Java runtime it runs on, which operators need as often.
     */
    private static void printVersion(PrintStream stream) {
        stream.println(BuildInfo.current().describe());
        stream.println("Java " + System.getProperty("java.version", "?") + " (" + System.getProperty("java.vendor", "?")
                + "), " + System.getProperty("java.vm.name", "?") + ", " + System.getProperty("os.name", "?") + " "
                + System.getProperty("os.arch", "?"));
    }

    private void printUsage(PrintStream stream) {
        stream.println("usage: fabric-manager <command> [options]   (fabric-manager <command> --help for details)");
        stream.println("       fabric-manager --version");
        stream.println();
        tree.commands().stream().sorted(Comparator.comparing(Command::name))
                .forEach(c -> stream.printf("  %-14s %s%n", c.name(), c.summary()));
    }
}
