package org.fabricmanager.daemon.ha;

import java.net.InetSocketAddress;
import java.util.function.LongFunction;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.pki.TlsProvider;
import org.fabricmanager.topology.PgftSpec;

/**
 * Switch agents for a standby's rehearsal ({@link AgentRehearsal}): one per switch of the expected fabric, in this
 * JVM, connected to the rehearsal's manager on loopback. The daemon does not know the simulator; {@code run} supplies
 * them.
 */
@FunctionalInterface
public interface RehearsalAgents {
    /**
     * Starts an agent for every switch of {@code spec}, each connecting to {@code southbound} with
     * {@code identity.apply(guid)} as its TLS identity, on {@code provider}'s engine.
     *
     * @return closes every agent it started
     */
    Running start(PgftSpec spec, InetSocketAddress southbound, LongFunction<TlsMaterial> identity, TlsProvider provider);

    /** Agents started for a rehearsal. */
    interface Running extends AutoCloseable {
        /** Stops every agent. */
        @Override
        void close();
    }
}
