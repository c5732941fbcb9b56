package org.fabricmanager.cli;

import java.util.Set;
import picocli.AutoComplete;

/**
 * {@code completion}: a bash completion script for every command and option of this release, made by picocli's
 * {@link AutoComplete} from the model the command line is parsed with ({@link CliTree}), so that it can never lag
 * behind the commands. Operators install it once
 * ({@code fabric-manager completion > /etc/bash_completion.d/fabric-manager}) or source it.
 */
final class CompletionCommand implements Command {
    @Override
    public String name() {
        return "completion";
    }

    @Override
    public String summary() {
        return "print a bash completion script for every command and option";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager completion
                  Prints a bash completion script for this release's commands and options. Install it with
                    fabric-manager completion | sudo tee /etc/bash_completion.d/fabric-manager >/dev/null
                  or load it in the current shell with: source <(fabric-manager completion)
                  After an option that takes a file or a directory, file names are completed.""";
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
        console.out().print(script(new CliTree(Commands.all())));
        return ExitCodes.OK;
    }

    /**
     * picocli's completion script for the model of {@code tree}, and {@code _fabric_manager}, the name the script's
     * function had before picocli made it, for those who call it from their own completion functions: there bash may
     * not be completing, and picocli's {@code compopt} calls would print an error into the command line being typed.
     */
    static String script(CliTree tree) {
        String script = AutoComplete.bash(CliTree.NAME, tree.root());
        return script + "\n# made by `fabric-manager completion`: regenerate after an upgrade\n"
                + "_fabric_manager() {\n    _complete_fabric-manager \"$@\" 2>/dev/null\n}\n";
    }
}
