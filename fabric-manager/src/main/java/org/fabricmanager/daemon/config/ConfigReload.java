package org.fabricmanager.daemon.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a configuration re-read at run time (SIGHUP) may change in a running daemon, and what only a restart
 * applies. Safe at run time: {@code rest.adminToken} and {@code rest.adminTokenFile} (the file is read again at
 * every reload), the settle windows ({@code routing.settleMs},
 * {@code faults.settleMs}) and the flap quarantine ({@code faults.flapThreshold}, {@code flapWindowMs},
 * {@code quarantineMs}): each is read afresh at its next use. Everything else (ports, TLS, the expected
 * fabric, the engine, the state directory, the detector) shapes objects built at start-up.
 *
 * @param effective   the running configuration with the run-time changes applied (and nothing else)
 * @param changed     the options applied, each as {@code name: old -> new} (the token's value never shown)
 * @param needRestart the options that differ but wait for a restart
 */
public record ConfigReload(DaemonConfig effective, List<String> changed, List<String> needRestart) {
    public ConfigReload {
        changed = List.copyOf(changed);
        needRestart = List.copyOf(needRestart);
    }

    /** Compares the running configuration with the one just read. */
    public static ConfigReload plan(DaemonConfig running, DaemonConfig read) {
        List<String> changed = new ArrayList<>();
        List<String> restart = new ArrayList<>();
        Rest rr = running.rest();
        Rest nr = read.rest();
        if (!Objects.equals(rr.adminToken(), nr.adminToken())) {
            changed.add("rest.adminToken: " + (rr.adminToken() == null ? "none" : "set") + " -> "
                    + (nr.adminToken() == null ? "none (actions refused)" : rr.adminToken() == null ? "set" : "another"));
        }
        if (!Objects.equals(rr.adminTokenFile(), nr.adminTokenFile())) {
            changed.add("rest.adminTokenFile: " + (rr.adminTokenFile() == null ? "none" : rr.adminTokenFile()) + " -> "
                    + (nr.adminTokenFile() == null ? "none" : nr.adminTokenFile()));
        }
        if (!rr.bind().equals(nr.bind()) || rr.port() != nr.port() || rr.ioThreads() != nr.ioThreads()
                || !Objects.equals(rr.tls(), nr.tls()) || rr.maxConnections() != nr.maxConnections()
                || rr.idleTimeoutMs() != nr.idleTimeoutMs()) {
            restart.add("rest");
        }
        DaemonConfig.Routing ro = running.routing();
        DaemonConfig.Routing rn = read.routing();
        number(changed, "routing.settleMs", ro.settleMs(), rn.settleMs());
        if (!ro.engine().equals(rn.engine()) || ro.threads() != rn.threads()) {
            restart.add("routing (engine, threads)");
        }
        if (!ro.onFault().equals(rn.onFault())) {
            restart.add("routing.onFault");
        }
        if (!ro.rebalance().equals(rn.rebalance())) {
            restart.add("routing.rebalance");
        }
        DaemonConfig.Faults fo = running.faults();
        DaemonConfig.Faults fn = read.faults();
        number(changed, "faults.settleMs", fo.settleMs(), fn.settleMs());
        number(changed, "faults.flapThreshold", fo.flapThreshold(), fn.flapThreshold());
        number(changed, "faults.flapWindowMs", fo.flapWindowMs(), fn.flapWindowMs());
        number(changed, "faults.quarantineMs", fo.quarantineMs(), fn.quarantineMs());
        section(restart, "faults.detector", fo.detector(), fn.detector());
        section(restart, "southbound", running.southbound(), read.southbound());
        section(restart, "fabric", running.fabric(), read.fabric());
        section(restart, "discovery", running.discovery(), read.discovery());
        section(restart, "push", running.push(), read.push());
        section(restart, "state", running.state(), read.state());
        section(restart, "security", running.security(), read.security());
        section(restart, "ha", running.ha(), read.ha());
        section(restart, "opensm", running.opensm(), read.opensm());
        section(restart, "linkHealth", running.linkHealth(), read.linkHealth());
        DaemonConfig effective = new DaemonConfig(running.southbound(),
                new Rest(rr.bind(), rr.port(), rr.ioThreads(), nr.adminToken(), nr.adminTokenFile(), rr.tls(),
                        rr.maxConnections(), rr.idleTimeoutMs()),
                running.fabric(),
                running.discovery(), new DaemonConfig.Routing(ro.engine(), ro.threads(), rn.settleMs(), ro.onFault(),
                        ro.rebalance()), running.push(),
                running.state(), new DaemonConfig.Faults(fn.settleMs(), fn.flapThreshold(), fn.flapWindowMs(),
                        fn.quarantineMs(), fo.detector()), running.security(), running.ha(), running.opensm(),
                running.linkHealth());
        return new ConfigReload(effective, changed, restart);
    }

    private static void number(List<String> changed, String name, int before, int after) {
        if (before != after) {
            changed.add(name + ": " + before + " -> " + after);
        }
    }

    private static void section(List<String> restart, String name, Object before, Object after) {
        if (!Objects.equals(before, after)) {
            restart.add(name);
        }
    }
}
