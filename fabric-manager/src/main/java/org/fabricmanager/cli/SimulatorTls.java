package org.fabricmanager.cli;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongFunction;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;

/**
 * Gives each simulated agent of {@code simulate --pki DIR} and {@code demo} its own switch certificate
 * from a PKI directory, issuing the missing ones with the CA key there (a simulator convenience).
 */
final class SimulatorTls {
    private SimulatorTls() {
    }

    /** Per-switch settings: {@code base} with each switch's TLS material. */
    static LongFunction<AgentSettings> settings(String command, Path pkiDirectory, Fabric fabric, AgentSettings base) {
        return settings(command, pkiDirectory, fabric, base, guid -> true);
    }

    /** As above, for the switches {@code runs} accepts only (their certificates alone are read or issued). */
    static LongFunction<AgentSettings> settings(String command, Path pkiDirectory, Fabric fabric, AgentSettings base,
                                                java.util.function.LongPredicate runs) {
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            if (runs.test(s.guid())) {
                switches.put(s.guid(), s.name());
            }
        }
        Map<Long, TlsMaterial> materials;
        try {
            materials = new PkiDirectory(pkiDirectory).switchMaterials(switches, Duration.ofDays(730), Clock.systemUTC());
        } catch (PkiException e) {
            throw new UsageException(command + ": --pki: " + e.getMessage(), e);
        }
        return guid -> base.withTls(materials.get(guid));
    }
}
