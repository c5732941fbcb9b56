package org.fabricmanager.netlab;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.fabricmanager.agent.AgentDependencies;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.agent.linux.Cabling;
import org.fabricmanager.agent.linux.LinuxSwitch;
import org.fabricmanager.sim.FaultSettings;
import org.fabricmanager.sim.SimulatedDetectors;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux agents of a netlab, all in this process, each programming only its own switch's namespace: one event
 * loop per switch (an install waits for iproute2, and must not hold up another switch's echoes), a failure-detector
 * member per switch, and a watch on the lab's request directory, where {@code netlab kill-switch --silent} asks for
 * a switch's agent to freeze (it stops answering without closing its connection, and its ring member stops).
 */
public final class NetlabSwitches implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NetlabSwitches.class);
    /** How often the request directory is looked at. */
    private static final long REQUEST_POLL_MS = 20;

    private final NetlabNames names;
    private final EventLoopGroup loops;
    private final SimulatedDetectors detectors;
    private final Map<Long, LinuxSwitch> switches = new LinkedHashMap<>();
    private final Map<Long, FaultSettings> taps = new LinkedHashMap<>();
    private final ScheduledExecutorService requests = Executors.newSingleThreadScheduledExecutor(
            new DefaultThreadFactory("fm-netlab-requests", true));

    /**
     * Starts an agent for every switch of {@code fabric}: first every switch's bridge and port monitor are set up,
     * then all the agents connect, so that the daemon's first routing covers the whole fabric (agents that connected
     * one by one while the others were set up made the daemon route and push again for each).
     *
     * @param settings the agent settings of each switch (its certificate)
     * @param registry where the ring members' meters go; {@code null}: the switches run no ring member
     */
    public NetlabSwitches(NetlabNames names, Fabric fabric, Cabling cabling, LongFunction<AgentSettings> settings,
                          MeterRegistry registry) throws IOException {
        this.names = names;
        this.loops = new NioEventLoopGroup(fabric.switches().size(), new DefaultThreadFactory("fm-netlab-agent", true));
        this.detectors = registry == null ? null : new SimulatedDetectors(2, registry);
        Random random = new Random(1);
        Files.createDirectories(names.requests());
        int i = 0;
        for (FabricSwitch s : fabric.switches()) {
            FaultSettings tap = new FaultSettings();
            taps.put(s.guid(), tap);
            LinuxSwitch.Spec spec = new LinuxSwitch.Spec(s.guid(), s.name(), s.ports(), names.switchNamespace(s.guid()),
                    NetlabNames.BRIDGE, NetlabNames.PORT_PREFIX);
            InetAddress from = InetAddress.getByAddress(new byte[]{127, 2, (byte) (i / 250), (byte) (i % 250 + 1)});
            i++;
            AgentDependencies deps = new AgentDependencies(loops.next(), null, new Random(random.nextLong()), tap, null);
            LinuxSwitch sw = LinuxSwitch.prepare(spec, cabling, settings.apply(s.guid()), deps, gone -> stopMember(s.guid()),
                    agent -> {
                        agent.bindFrom(from);
                        if (detectors != null) {
                            agent.detectorListener(detectors);
                            agent.detectorPort(detectors.reservePort(s.guid(), from));
                        }
                    });
            switches.put(s.guid(), sw);
        }
        // every bridge is set up before any agent connects: the daemon then discovers the whole fabric at once
        switches.values().forEach(LinuxSwitch::start);
        requests.scheduleWithFixedDelay(this::takeRequests, REQUEST_POLL_MS, REQUEST_POLL_MS, TimeUnit.MILLISECONDS);
    }

    /** The switches, in the fabric's order. */
    public List<LinuxSwitch> switches() {
        return new ArrayList<>(switches.values());
    }

    /** Freezes switch {@code guid}'s agent and ring member (a silent death; its links stay up). */
    public void freeze(long guid) {
        FaultSettings tap = taps.get(guid);
        if (tap == null) {
            LOG.warn("netlab {}: no switch {} to freeze", names.prefix(), Long.toHexString(guid));
            return;
        }
        stopMember(guid);
        tap.freeze();
        LOG.info("netlab {}: froze the agent of switch {}", names.prefix(), Long.toHexString(guid));
    }

    private void stopMember(long guid) {
        if (detectors != null) {
            detectors.stop(guid);
        }
    }

    private void takeRequests() {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(names.requests(), "freeze-*")) {
            for (Path f : files) {
                String hex = f.getFileName().toString().substring("freeze-".length());
                Files.deleteIfExists(f);
                try {
                    freeze(Long.parseUnsignedLong(hex, 16));
                } catch (NumberFormatException e) {
                    LOG.warn("netlab {}: ignoring request {}", names.prefix(), f);
                }
            }
        } catch (IOException e) {
            LOG.debug("netlab {}: requests: {}", names.prefix(), e.getMessage());
        }
    }

    /** Stops every agent, its ring member and the loops; the namespaces stay (see {@link NetlabFabric#destroy}). */
    @Override
    public void close() {
        requests.shutdownNow();
        for (LinuxSwitch sw : switches.values()) {
            sw.close();
        }
        if (detectors != null) {
            detectors.close();
        }
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
