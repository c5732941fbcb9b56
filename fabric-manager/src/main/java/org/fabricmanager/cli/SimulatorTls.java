package org.fabricmanager.cli;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import java.util.stream.Collectors;
import org.fabricmanager.agent.AgentSettings;
import org.fabricmanager.pki.PkiDirectory;
import org.fabricmanager.pki.PkiException;
import org.fabricmanager.pki.TlsMaterial;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;

/**
 * Gives each simulated agent of {@code simulate --pki DIR} and {@code demo} its own switch certificate
 * from a PKI directory, issuing the missing ones with the CA key there (a simulator convenience), and
 * says which TLS engine the agents run ({@code --tls-provider}, {@code base.tlsProvider()}).
 */
final class SimulatorTls {
    private SimulatorTls() {
    }

    /**
     * The simulated agents' settings.
     *
     * @param settings per switch: the base settings with that switch's TLS material
     * @param engines  which TLS engine the agents run, for the start-up line (e.g. "OpenSSL (BoringSSL), auto: 768 agents")
     */
    record Agents(LongFunction<AgentSettings> settings, String engines) {
    }

    /** Settings for every switch of {@code fabric}. */
    static Agents agents(String command, Path pkiDirectory, Fabric fabric, AgentSettings base) {
        return agents(command, pkiDirectory, fabric, base, guid -> true);
    }

    /** As above, for the switches {@code runs} accepts only (their certificates alone are read or issued). */
    static Agents agents(String command, Path pkiDirectory, Fabric fabric, AgentSettings base, LongPredicate runs) {
        Map<Long, String> switches = new LinkedHashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            if (runs.test(s.guid())) {
                switches.put(s.guid(), s.name());
            }
        }
        Map<Long, TlsMaterial> materials;
        Map<String, Long> engines = new TreeMap<>();
        try {
            materials = new PkiDirectory(pkiDirectory).switchMaterials(switches, Duration.ofDays(730), Clock.systemUTC());
            for (TlsMaterial m : materials.values()) {
                engines.merge(base.tlsProvider().engine(m).toString(), 1L, Long::sum);
            }
        } catch (PkiException e) {
            throw new UsageException(command + ": --pki: " + e.getMessage(), e);
        }
        String summary = engines.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue() + " agents")
                .collect(Collectors.joining("; "));
        return new Agents(guid -> base.withTls(materials.get(guid)), summary);
    }
}
