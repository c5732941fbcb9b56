package org.fabricmanager.cli;

import java.net.InetSocketAddress;
import java.util.function.LongFunction;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.daemon.ha.RehearsalAgents;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.sim.FabricSimulator;
import org.fabricmanager.topology.PgftGenerator;
import org.fabricmanager.topology.PgftSpec;

/** A standby's rehearsal agents: the simulator's agents of the expected fabric, on one event-loop thread. */
final class SimulatedRehearsalAgents implements RehearsalAgents {
    @Override
    public Running start(PgftSpec spec, InetSocketAddress southbound, LongFunction<TlsMaterial> identity,
                         TlsProvider provider) {
        AgentSettings base = AgentSettings.defaults(southbound).withTlsProvider(provider);
        FabricSimulator sim = new FabricSimulator(PgftGenerator.generate(spec), guid -> base.withTls(identity.apply(guid)),
                null, 1, null, 1L);
        sim.start();
        return sim::close;
    }
}
