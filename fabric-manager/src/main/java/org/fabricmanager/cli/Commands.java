package org.fabricmanager.cli;

import java.util.List;

/** The subcommands of {@code bin/fabric-manager}; add a command here to make it reachable. */
final class Commands {
    private Commands() {
    }

    static List<Command> all() {
        return List.of(
                new TopologyCommand(),
                new DemoCommand(),
                new RunCommand(),
                new SimulateCommand(),
                new DetectorSimCommand(),
                new RouteCommand(),
                new BenchCommand(),
                new TraceCommand(),
                new QualityCommand(),
                new CompareCommand(),
                new StatusCommand(),
                new SwitchesCommand(),
                new EventsCommand(),
                new FaultsCommand(),
                new PortsCommand(),
                new WhatIfCommand(),
                new DrainCommand(true),
                new DrainCommand(false),
                new RebalanceCommand(),
                new ChaosCommand(),
                new PkiInitCommand(),
                new PkiIssueCommand(),
                new PkiShowCommand(),
                new CompletionCommand(),
                new ManCommand(),
                new AgentCommand(),
                new NetlabUpCommand(),
                new NetlabDownCommand(),
                new NetlabKillSwitchCommand());
    }
}
