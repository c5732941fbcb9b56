package org.fabricmanager.cli;

import java.util.Set;
import org.fabricmanager.netlab.NetlabFabric;
import org.fabricmanager.netlab.NetlabNames;

/** {@code netlab down}: removes every namespace and file of a netlab (a running one's, or a crashed one's). */
final class NetlabDownCommand implements Command {
    @Override
    public String name() {
        return "netlab down";
    }

    @Override
    public String summary() {
        return "removes the namespaces and files of a netlab (root)";
    }

    @Override
    public String usage() {
        return """
                usage: fabric-manager netlab down --prefix P
                  Removes every namespace of the netlab of prefix P (P-s..., P-n...), their cables and bridges, and
                  its directory /run/fabric-manager/netlab-P: what a lab interrupted with Ctrl-C removes itself, and
                  what a crashed one left behind. A running lab's agents then find their switches gone.""";
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
        int removed = NetlabFabric.destroy(names);
        NetlabUpCommand.deleteTree(names.directory());
        console.out().printf("netlab %s: removed %d namespaces%n", names.prefix(), removed);
        return ExitCodes.OK;
    }
}
