package org.fabricmanager.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.fabricmanager.netlab.NetlabFabric;
import org.fabricmanager.netlab.NetlabNames;
import org.fabricmanager.netlab.NetlabProcess;

/**
 * {@code netlab down}: stops the lab's running {@code netlab up}, if any (found by its pid file and checked to be that
 * process), then removes every namespace and file of the lab (a running one's, or a crashed one's).
 */
final class NetlabDownCommand implements Command {
    /**
     * How long the running lab has to remove its namespaces after SIGTERM (a 320-switch lab's removal:
     * docs/performance.md, "Real packets: netlab"), and then to die after SIGKILL.
     */
    static final Duration STOP_WAIT = Duration.ofSeconds(120);

    @Override
    public String name() {
        return "netlab down";
    }

    @Override
    public String summary() {
        return "stops a running netlab and removes its namespaces and files (root)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager netlab down --prefix P
                  Stops the running netlab up of prefix P, if there is one (SIGTERM: it removes its lab and exits;
                  SIGKILL if it has not ended within 120 s), then removes every namespace of the netlab of prefix P
                  (P-s..., P-n...) that is left, their cables and bridges, and its directory
                  /run/fabric-manager/netlab-P: what a crashed lab left behind, too.""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("prefix");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of();
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        NetlabNames names = NetlabUpCommand.names("netlab down", args);
        NetlabUpCommand.requireRoot("netlab down");
        int present = NetlabFabric.namespaces(names).size();
        Optional<Long> stopped;
        try {
            stopped = NetlabProcess.of(names).stop(STOP_WAIT);
        } catch (IOException e) {
            throw new UsageException("netlab down: " + e.getMessage(), e);
        }
        stopped.ifPresent(pid -> console.out().printf("netlab %s: stopped its netlab up (pid %d)%n", names.prefix(), pid));
        NetlabFabric.destroy(names);
        NetlabUpCommand.deleteTree(names.directory());
        console.out().printf("netlab %s: removed %d namespaces%n", names.prefix(), present);
        return ExitCodes.OK;
    }
}
