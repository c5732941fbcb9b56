package org.fabricmanager.cli;

import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.linux.Cabling;
import org.fabricmanager.agent.linux.LinuxAgentConfig;
import org.fabricmanager.agent.linux.LinuxSwitch;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsMaterial;

/**
 * {@code agent}: the switch agent of one Linux switch (a bridge with static FDB entries, docs/linux-agent.md),
 * in the foreground until interrupted or until the switch's links are gone.
 */
final class AgentCommand implements Command {
    @Override
    public String name() {
        return "agent";
    }

    @Override
    public String summary() {
        return "the agent of one Linux switch: tables to the bridge's static FDB (root or CAP_NET_ADMIN)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager agent --config FILE
                  Runs the agent of one Linux switch: it connects to the daemon (mutual TLS), reports its ports'
                  link state from the kernel and their neighbours from the cabling file, and applies each table
                  to the bridge's static forwarding database (docs/linux-agent.md, the configuration keys there).""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("config");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        LinuxAgentConfig config;
        Cabling cabling;
        TlsMaterial tls = null;
        try {
            // the configuration and the cabling are checked whole before any ip or bridge process starts
            config = LinuxAgentConfig.load(Path.of(args.require("config")));
            cabling = cabling(config.cabling());
            if (config.tls() != null) {
                tls = TlsMaterial.load(config.tls().certificate(), config.tls().key(), config.tls().ca());
            }
        } catch (IOException | PkiException e) {
            throw new UsageException("agent: " + e.getMessage(), e);
        }
        AgentSettings settings = AgentSettings.defaults(config.managers().get(0)).withManagers(config.managers())
                .withTls(tls);
        NioEventLoopGroup loop = new NioEventLoopGroup(1, new DefaultThreadFactory("fm-agent", true));
        CountDownLatch gone = new CountDownLatch(1);
        LinuxSwitch sw;
        try {
            sw = LinuxSwitch.start(config.switchSpec(), cabling, settings,
                    new AgentDependencies(loop.next(), null, new Random()), s -> gone.countDown(), a -> { });
        } catch (IOException e) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new UsageException("agent: " + e.getMessage(), e);
        }
        console.out().printf("agent: %s, %d ports cabled, daemon %s%n", sw, cabling.cabledPorts(config.switchSpec().guid()),
                config.managers().get(0));
        console.out().flush();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            sw.close();
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }, "fm-agent-shutdown"));
        gone.await();
        console.err().println("agent: the switch's links are gone; stopping");
        return ExitCodes.INTERNAL;
    }

    /** The cabling file; its errors begin with the configuration's key, as the configuration's do. */
    private static Cabling cabling(Path file) throws IOException {
        try {
            return Cabling.read(file);
        } catch (IOException e) {
            throw new IOException("cabling " + e.getMessage(), e);
        }
    }
}
