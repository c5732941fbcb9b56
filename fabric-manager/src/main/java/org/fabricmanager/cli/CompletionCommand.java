package org.fabricmanager.cli;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code completion}: a bash completion script for every command and option of this release, made from the
 * commands themselves so that it can never lag behind them. Operators install it once
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
                  After an option that takes a value, file names are completed.""";
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
        console.out().print(script(Commands.all()));
        return ExitCodes.OK;
    }

    /** The script for {@code commands} (two-word commands such as {@code pki init} complete word by word). */
    static String script(List<Command> commands) {
        Set<String> first = new TreeSet<>();
        StringBuilder cases = new StringBuilder();
        StringBuilder values = new StringBuilder();
        for (Command c : commands) {
            String[] words = c.name().split(" ");
            first.add(words[0]);
            Set<String> options = new TreeSet<>();
            c.valueOptions().forEach(o -> options.add("--" + o));
            c.flagOptions().forEach(o -> options.add("--" + o));
            options.add("--help");
            options.add("--verbose");
            cases.append("        '").append(c.name()).append("') opts='").append(String.join(" ", options)).append("' ;;\n");
            for (String o : new TreeSet<>(c.valueOptions())) {
                values.append(" '").append(c.name()).append(" --").append(o).append("'");
            }
        }
        StringBuilder seconds = new StringBuilder();
        for (String w : first) {
            Set<String> next = new TreeSet<>();
            for (Command c : commands) {
                if (c.name().startsWith(w + " ")) {
                    next.add(c.name().substring(w.length() + 1));
                }
            }
            if (!next.isEmpty()) {
                seconds.append("        '").append(w).append("') subs='").append(String.join(" ", next)).append("' ;;\n");
            }
        }
        return """
                # bash completion for fabric-manager (made by `fabric-manager completion`; regenerate after an upgrade)
                _fabric_manager() {
                    local cur prev cmd subs opts i
                    cur="${COMP_WORDS[COMP_CWORD]}"
                    prev="${COMP_WORDS[COMP_CWORD-1]}"
                    COMPREPLY=()
                    if [ "$COMP_CWORD" -eq 1 ]; then
                        COMPREPLY=($(compgen -W '%s --help --version' -- "$cur"))
                        return 0
                    fi
                    cmd="${COMP_WORDS[1]}"
                    subs=''
                    case "$cmd" in
                %s        *) ;;
                    esac
                    if [ -n "$subs" ]; then
                        if [ "$COMP_CWORD" -eq 2 ]; then
                            COMPREPLY=($(compgen -W "$subs" -- "$cur"))
                            return 0
                        fi
                        cmd="$cmd ${COMP_WORDS[2]}"
                    fi
                    # after an option that takes a value: a file name (most values are files or directories)
                    for i in%s; do
                        if [ "$cmd $prev" = "$i" ]; then
                            COMPREPLY=($(compgen -f -- "$cur"))
                            return 0
                        fi
                    done
                    opts=''
                    case "$cmd" in
                %s        *) ;;
                    esac
                    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
                    return 0
                }
                complete -o filenames -F _fabric_manager fabric-manager
                """.formatted(String.join(" ", first), seconds, values, cases);
    }
}
