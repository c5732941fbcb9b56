package org.fabricmanager.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** picocli's model of the command line, and its errors in the CLI's one style (one line naming command and option). */
class CliTreeTest {
    private final CliTree tree = new CliTree(Commands.all());

    @Test
    void everyCommandIsASubcommandWithItsOptionsTyped() {
        CommandLine root = tree.root();
        assertThat(tree.commands()).hasSameSizeAs(Commands.all());
        for (Command c : tree.commands()) {
            CommandLine line = root;
            for (String word : c.name().split(" ")) {
                line = line.getSubcommands().get(word);
                assertThat(line).as(c.name()).isNotNull();
            }
            CommandSpec spec = line.getCommandSpec();
            assertThat(spec.userObject()).isSameAs(c);
            for (String o : c.valueOptions()) {
                assertThat(spec.findOption("--" + o).type()).as(c.name() + " --" + o)
                        .isEqualTo(CliTree.FILE_OPTIONS.contains(o) ? Path.class : String.class);
            }
            for (String o : c.flagOptions()) {
                assertThat(spec.findOption("--" + o).type()).as(c.name() + " --" + o).isEqualTo(boolean.class);
            }
            assertThat(spec.findOption("--help").usageHelp()).isTrue();
            assertThat(spec.findOption("--verbose")).isNotNull();
        }
        assertThat(root.getSubcommands().get("pki").getSubcommands()).containsOnlyKeys("init", "issue", "show");
        assertThat(root.getSubcommands().get("route").getCommandSpec().findOption("--topology").type()).isEqualTo(Path.class);
    }

    @Test
    void parsesValuesAndFlagsForTheCommand() {
        CliTree.Parsed p = tree.parse("topology", "--check", "f.json", "--all", "--format=json");
        assertThat(p.command().name()).isEqualTo("topology");
        assertThat(p.arguments().value("check")).hasValue("f.json");
        assertThat(p.arguments().value("format")).hasValue("json");
        assertThat(p.arguments().flag("all")).isTrue();
        assertThat(p.arguments().flag("verbose")).isFalse();
        assertThat(tree.parse("pki", "show", "--dir", "d").command().name()).isEqualTo("pki show");
        assertThat(tree.parse("trace", "--src", "-3").arguments().value("src")).as("a negative number is a value")
                .hasValue("-3");
        assertThat(CliTree.arguments(new RouteCommand(), List.of("--threads", "2")).intValue("threads", 1)).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "route --bogus|route: unknown option --bogus (see --help)",
        "route --bogus=1|route: unknown option --bogus (see --help)",
        "route stray|route: unexpected argument 'stray' (see --help)",
        "route -h|route: unexpected argument '-h' (see --help)",
        "route --threads 1 --threads 2|route: option --threads given twice",
        "route --topology|route: option --topology needs a value",
        "switches --url --json|switches: option --url needs a value",
        "topology --all=yes|topology: option --all takes no value",
        "pki show --guid|pki show: option --guid needs a value",
        "pki|fabric-manager pki: needs one of init, issue, show (fabric-manager pki <word> --help)",
        "netlab sideways|fabric-manager netlab: needs one of down, kill-switch, up (fabric-manager netlab <word> --help)",
        "bogus|fabric-manager: unknown command 'bogus' (commands: agent, ",
    })
    void refusesInOneLineNamingTheCommandAndOption(String line, String message) {
        assertThatThrownBy(() -> tree.parse(line.split(" "))).isInstanceOf(UsageException.class)
                .hasMessageStartingWith(message).hasMessageNotContaining("\n");
        CliRun run = CliRun.of(line.split(" "));
        assertThat(run.exitCode()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err()).startsWith(message);
        assertThat(run.out()).isEmpty();
    }
}
