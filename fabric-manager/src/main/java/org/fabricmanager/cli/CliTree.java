package org.fabricmanager.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The command line as picocli's model: {@code fabric-manager} with a subcommand per {@link Command} (a two-word
 * command such as {@code pki init} under its first word), each with the options it declares, typed (flags boolean,
 * files and directories {@link Path}, the rest text the command validates), {@code --help} and {@code --verbose}.
 * picocli parses a command line against it; its errors become the one-line {@link UsageException}s of the hand parser
 * this replaced, naming the command and the option. The bash completion script ({@link CompletionCommand}) and the
 * manual page ({@link ManCommand}) are made from the same model.
 */
final class CliTree {
    /** Options that take a file or a directory in every command that has them: completed as file names. */
    static final Set<String> FILE_OPTIONS = Set.of("topology", "lft", "lft-out", "out", "previous", "config", "dir",
            "check", "token-file", "state-dir", "svg", "work", "pki", "json-out", "ca");
    static final String NAME = "fabric-manager";

    private final List<Command> commands;
    private final CommandLine root;

    CliTree(List<Command> commands) {
        this.commands = List.copyOf(commands);
        CommandSpec top = CommandSpec.create().name(NAME);
        top.usageMessage().description("centralised fabric manager for fat-tree interconnects");
        top.addOption(OptionSpec.builder("--help").usageHelp(true).description("list the commands").build());
        top.addOption(OptionSpec.builder("--version").versionHelp(true).description("print the release and the Java runtime")
                .build());
        this.root = configure(new CommandLine(top));
        Map<String, CommandLine> groups = new LinkedHashMap<>();
        for (Command c : this.commands) {
            String[] words = c.name().split(" ", 2);
            CommandLine leaf = configure(new CommandLine(leaf(c, words[words.length - 1])));
            if (words.length == 1) {
                root.addSubcommand(words[0], leaf);
            } else {
                groups.computeIfAbsent(words[0], w -> {
                    CommandSpec group = CommandSpec.create().name(w);
                    group.usageMessage().description(w + " commands");
                    CommandLine line = configure(new CommandLine(group));
                    root.addSubcommand(w, line);
                    return line;
                }).addSubcommand(words[1], leaf);
            }
        }
    }

    private static CommandLine configure(CommandLine line) {
        // a value given twice is refused by the command's name (below), not by picocli's message
        // no @file expansion: an argument is what the operator typed
        return line.setOverwrittenOptionsAllowed(true).setAbbreviatedOptionsAllowed(false).setExpandAtFiles(false)
                .setPosixClusteredShortOptionsAllowed(false).setUnmatchedArgumentsAllowed(false);
    }

    private static CommandSpec leaf(Command c, String word) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(c).name(word);
        spec.usageMessage().description(c.summary());
        for (String o : new TreeSet<>(c.valueOptions())) {
            boolean file = FILE_OPTIONS.contains(o);
            spec.addOption(OptionSpec.builder("--" + o).arity("1").type(file ? Path.class : String.class)
                    .paramLabel(file ? "FILE" : o.toUpperCase().replace('-', '_')).build());
        }
        for (String o : new TreeSet<>(c.flagOptions())) {
            spec.addOption(OptionSpec.builder("--" + o).arity("0").type(boolean.class).build());
        }
        spec.addOption(OptionSpec.builder("--help").usageHelp(true).description("print this command's usage").build());
        spec.addOption(OptionSpec.builder("--verbose").arity("0").type(boolean.class)
                .description("print the stack trace of an error").build());
        return spec;
    }

    /** The whole model, for the completion script. */
    CommandLine root() {
        return root;
    }

    /** The commands in the order they were given (the manual page's order). */
    List<Command> commands() {
        return commands;
    }

    /** A command line parsed: the command it names and its options. */
    record Parsed(Command command, Arguments arguments) {
    }

    /**
     * Parses {@code args} (a command's words first); throws a {@link UsageException} naming the command and the option
     * for anything the command does not accept.
     */
    Parsed parse(String... args) {
        ParseResult result;
        try {
            result = root.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(message(e, args), e);
        }
        ParseResult last = result;
        while (last.subcommand() != null) {
            last = last.subcommand();
        }
        Object user = last.commandSpec().userObject();
        if (!(user instanceof Command command)) {
            throw new UsageException(needsWord(last.commandSpec()));
        }
        return new Parsed(command, arguments(command, last));
    }

    /** The options of one command's arguments (without the command's words), as {@code run} gets them. */
    static Arguments arguments(Command command, List<String> args) {
        List<String> line = new ArrayList<>(List.of(command.name().split(" ")));
        line.addAll(args);
        return new CliTree(List.of(command)).parse(line.toArray(String[]::new)).arguments();
    }

    private static Arguments arguments(Command command, ParseResult result) {
        Map<String, String> values = new LinkedHashMap<>();
        Set<String> flags = new LinkedHashSet<>();
        for (OptionSpec o : result.matchedOptions()) {
            String name = o.longestName().substring(2);
            if (o.usageHelp() || o.arity().max() == 0) {
                flags.add(name);
                continue;
            }
            List<String> given = o.originalStringValues();
            if (given.size() > 1) {
                throw new UsageException(command.name() + ": option --" + name + " given twice");
            }
            values.put(name, given.get(0));
        }
        return new Arguments(command.name(), values, flags);
    }

    /** picocli's error for the command line {@code args} as the one line the CLI has always printed. */
    private String message(CommandLine.ParameterException e, String... args) {
        CommandSpec spec = e.getCommandLine().getCommandSpec();
        if (!(spec.userObject() instanceof Command command)) {
            if (spec.parent() == null) {
                List<String> unmatched = e instanceof CommandLine.UnmatchedArgumentException u ? u.getUnmatched() : List.of();
                return NAME + ": unknown command '" + (unmatched.isEmpty() ? "" : unmatched.get(0)) + "' (commands: "
                        + String.join(", ", new TreeSet<>(commands.stream().map(Command::name).toList())) + ")";
            }
            return needsWord(spec);
        }
        String name = command.name();
        // a flag with a value attached (--all=1): picocli names no option for it
        for (String a : args) {
            int eq = a.indexOf('=');
            OptionSpec flag = a.startsWith("--") && eq > 2 ? spec.findOption(a.substring(0, eq)) : null;
            if (flag != null && flag.arity().max() == 0) {
                return name + ": option " + flag.longestName() + " takes no value";
            }
        }
        if (e instanceof CommandLine.MissingParameterException m && !m.getMissing().isEmpty()
                && m.getMissing().get(0) instanceof OptionSpec o) {
            return name + ": option " + o.longestName() + " needs a value";
        }
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String token = u.getUnmatched().get(0);
            if (token.startsWith("--") && token.length() > 2) {
                int eq = token.indexOf('=');
                return name + ": unknown option " + (eq < 0 ? token : token.substring(0, eq)) + " (see --help)";
            }
            return name + ": unexpected argument '" + token + "' (see --help)";
        }
        return name + ": " + e.getMessage();
    }

    /** A group's word alone, or with a word it does not have ({@code pki}, {@code pki bogus}). */
    private static String needsWord(CommandSpec group) {
        return NAME + " " + group.name() + ": needs one of " + String.join(", ", new TreeSet<>(group.subcommands().keySet()))
                + " (" + NAME + " " + group.name() + " <word> --help)";
    }
}
