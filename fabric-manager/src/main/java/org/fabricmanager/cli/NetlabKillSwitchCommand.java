package org.fabricmanager.cli;

import java.nio.file.Files;
import java.util.Set;
import org.fabricmanager.agent.linux.Iproute2;
import org.fabricmanager.netlab.NetlabFabric;
import org.fabricmanager.netlab.NetlabNames;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.TopologyException;

/**
 * {@code netlab kill-switch}: a switch of a running netlab dies. By default its bridge and links go away (the cables
 * lose carrier at the other ends, its agent stops); with {@code --silent} its bridge stops forwarding and its agent
 * freezes while its links stay up, a death only the failure detector's ring can see.
 */
final class NetlabKillSwitchCommand implements Command {
    @Override
    public String name() {
        return "netlab kill-switch";
    }

    @Override
    public String summary() {
        return "kills a switch of a running netlab: links gone, or --silent (root)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager netlab kill-switch --prefix P --guid GUID [--silent]
                  Switch GUID of the netlab of prefix P dies: its bridge and links are deleted (the other ends lose
                  carrier) and its namespace removed; its agent in the netlab process stops. With --silent the
                  bridge is set down (it stops forwarding) and the running lab freezes the switch's agent and ring
                  member, while every link stays up.""";
    }

    @Override
    public Set<String> valueOptions() {
        return Set.of("prefix", "guid");
    }

    @Override
    public Set<String> flagOptions() {
        return Set.of("silent");
    }

    @Override
    public int run(Arguments args, Console console) throws Exception {
        NetlabNames names = NetlabUpCommand.names("netlab kill-switch", args);
        long guid;
        try {
            guid = Guids.parseLenient(args.require("guid"));
        } catch (TopologyException e) {
            throw new UsageException("netlab kill-switch: " + e.getMessage(), e);
        }
        NetlabUpCommand.requireRoot("netlab kill-switch");
        String ns = names.switchNamespace(guid);
        if (!NetlabFabric.namespaces(names).contains(ns)) {
            throw new UsageException("netlab kill-switch: no namespace " + ns + " (is the lab " + names.prefix() + " up?)");
        }
        if (args.flag("silent")) {
            Files.createDirectories(names.requests());
            Files.writeString(names.requests().resolve("freeze-" + Long.toHexString(guid)), "");
            Iproute2.Result r = new Iproute2(ns).run("ip", "link", "set", "dev", NetlabNames.BRIDGE, "down");
            if (!r.ok()) {
                throw new UsageException("netlab kill-switch: " + ns + ": " + r.firstLine());
            }
            console.out().printf("netlab %s: switch %s is silent (bridge down, agent frozen, links up)%n", names.prefix(),
                    Guids.format(guid));
        } else {
            NetlabFabric.deleteLinks(ns);
            new Iproute2("").run("ip", "netns", "del", ns);
            console.out().printf("netlab %s: switch %s is dead (links and bridge deleted)%n", names.prefix(),
                    Guids.format(guid));
        }
        return ExitCodes.OK;
    }
}
