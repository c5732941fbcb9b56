package org.fabricmanager.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.fabricmanager.opensm.IbsimNet;
import org.fabricmanager.topology.EndNode;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.FabricSwitch;
import org.fabricmanager.topology.Guids;
import org.fabricmanager.topology.Link;

/**
 * The demo's faults on a fabric that ibsim simulates under OpenSM ({@code demo --opensm}): each action is typed at ibsim's
 * console, so that the simulated switches change their ports and send trap 128 to OpenSM as real ones do, and OpenSM's
 * sweep brings the change to the daemon. A cable goes down with {@code Unlink "id"[port]} and up with
 * {@code Link "id"[port] "peer"[port]}; a switch loses power with {@code Unlink "id"} (all its cables) and gets it back
 * with one {@code Link} per cable whose other end is powered and which was not taken down on its own, as
 * {@link FabricSimulator} models power and cables. This class keeps that model, so that ibsim's memory of unlinked ports
 * never decides what comes back.
 *
 * <p>Switches are named by the GUIDs the daemon shows (ibsim's, as OpenSM discovered them), mapped once to ibsim's node
 * ids (the switches' node descriptions). Refused: {@code mode=agent} (no agent of ours runs there), an action on the
 * switch or cable that holds OpenSM's own port (it would cut OpenSM off the subnet), and actions the model's state does
 * not allow (a cable down twice, a switch revived that was not killed). Thread-safe.
 */
public final class IbsimFaults implements SimulatedFaults {
    /** ibsim's console: one command per call. */
    @FunctionalInterface
    public interface Console {
        void type(String command) throws IOException;
    }

    private record Cable(String id, int port, String peer, int peerPort) {
    }

    private final Map<Long, FabricSwitch> byDaemonGuid = new HashMap<>();
    private final Map<Long, String> ids = new HashMap<>();
    private final Map<Long, Map<Integer, Link>> cables = new HashMap<>();
    private final long smSwitch;
    private final Link smCable;
    private final Console console;
    private final IbsimErrorRates errors;
    private final Set<Link> cut = new HashSet<>();
    private final Set<Long> killed = new HashSet<>();

    /**
     * @param fabric   the fabric ibsim was started on ({@link IbsimNet#write}), with its generated GUIDs
     * @param names    the daemon's GUID of each switch -> its name there (ibsim's node id, OpenSM's node description)
     * @param console  ibsim's console
     * @param errors   the error rates of ports, written at that console (the caller closes them)
     * @throws IllegalArgumentException when a name is no switch of {@code fabric}, or a switch of {@code fabric} has no GUID
     */
    public IbsimFaults(Fabric fabric, Map<Long, String> names, Console console, IbsimErrorRates errors) {
        this.console = console;
        this.errors = errors;
        Map<String, FabricSwitch> byId = new HashMap<>();
        for (FabricSwitch s : fabric.switches()) {
            byId.put(IbsimNet.id(s.name(), s.guid()), s);
        }
        for (EndNode n : fabric.nodes()) {
            ids.put(n.guid(), IbsimNet.id(n.name(), n.guid()));
        }
        byId.forEach((id, s) -> ids.put(s.guid(), id));
        names.forEach((guid, name) -> {
            FabricSwitch s = byId.get(name);
            if (s == null) {
                throw new IllegalArgumentException("switch " + Guids.format(guid) + " (" + name + ") is not a switch of "
                        + "the fabric ibsim simulates");
            }
            byDaemonGuid.put(guid, s);
        });
        if (byDaemonGuid.size() != byId.size()) {
            throw new IllegalArgumentException("the daemon names " + byDaemonGuid.size() + " of the " + byId.size()
                    + " switches ibsim simulates");
        }
        for (Link l : fabric.links()) {
            cables.computeIfAbsent(l.a(), k -> new HashMap<>()).put(l.aPort(), l);
            cables.computeIfAbsent(l.b(), k -> new HashMap<>()).put(l.bPort(), l);
        }
        long sm = IbsimNet.smNode(fabric).guid();
        smCable = cables.get(sm).values().iterator().next();
        smSwitch = smCable.a() == sm ? smCable.b() : smCable.a();
    }

    /**
     * A cable to try the endpoints on, as their query ({@code guid=G&port=P}): the first cable between two switches
     * away from OpenSM's own, named by the end of the daemon's lowest GUID.
     */
    public String sampleCable() {
        Set<Long> switches = new HashSet<>();
        byDaemonGuid.values().forEach(s -> switches.add(s.guid()));
        List<Long> guids = new ArrayList<>(byDaemonGuid.keySet());
        guids.sort(Long::compareUnsigned);
        for (long d : guids) {
            long here = byDaemonGuid.get(d).guid();
            for (Map.Entry<Integer, Link> c : new TreeMap<>(cables.getOrDefault(here, Map.of())).entrySet()) {
                long peer = other(c.getValue(), here);
                if (here != smSwitch && peer != smSwitch && switches.contains(peer)) {
                    return "guid=" + Guids.format(d) + "&port=" + c.getKey();
                }
            }
        }
        return "guid=G&port=P";
    }

    @Override
    public void requireSwitch(long guid) {
        fabricSwitch(guid);
    }

    @Override
    public synchronized void kill(long guid, FabricSimulator.KillMode mode) {
        FabricSwitch s = fabricSwitch(guid);
        if (mode != FabricSimulator.KillMode.POWER) {
            throw new UnsupportedOperationException("mode=" + mode.name().toLowerCase() + " has no meaning under OpenSM: "
                    + "its switches run no agent of ours (use mode=power: ibsim unlinks the switch)");
        }
        if (s.guid() == smSwitch) {
            throw new IllegalStateException("switch " + Guids.format(guid) + " holds the cable of OpenSM's own port ("
                    + ids.get(other(smCable, smSwitch)) + "): without it OpenSM would lose the whole subnet");
        }
        if (!killed.add(s.guid())) {
            throw new IllegalStateException("switch " + Guids.format(guid) + " is already killed");
        }
        type("Unlink \"" + ids.get(s.guid()) + "\"");
    }

    @Override
    public synchronized void revive(long guid) {
        FabricSwitch s = fabricSwitch(guid);
        if (!killed.remove(s.guid())) {
            throw new IllegalStateException("switch " + Guids.format(guid) + " is not killed");
        }
        for (Cable c : upCables(s.guid())) {
            type(link(c));
        }
    }

    /**
     * The port's {@code SymbolErrorCounter} set rising at ibsim's console ({@link IbsimErrorRates}), so that OpenSM's
     * performance manager reads errors as from a corrupting cable. A port with no cable is refused; a cable taken
     * down keeps counting, as a real port's counter may.
     */
    @Override
    public void linkErrors(long guid, int port, long perSecond) {
        FabricSwitch s = fabricSwitch(guid);
        cable(guid, port);
        errors.set(ids.get(s.guid()), port, perSecond);
    }

    @Override
    public synchronized void linkDown(long guid, int port) {
        Link l = cable(guid, port);
        if (l.equals(smCable)) {
            throw new IllegalStateException("the cable at " + Guids.format(guid) + "/" + port + " holds OpenSM's own port: "
                    + "without it OpenSM would lose the whole subnet");
        }
        if (!cut.add(l)) {
            throw new IllegalStateException("the cable at " + Guids.format(guid) + "/" + port + " is already down");
        }
        if (!killed.contains(l.a()) && !killed.contains(l.b())) {
            type("Unlink \"" + ids.get(byDaemonGuid.get(guid).guid()) + "\"[" + port + "]");
        }
    }

    @Override
    public synchronized void linkUp(long guid, int port) {
        Link l = cable(guid, port);
        if (!cut.remove(l)) {
            throw new IllegalStateException("the cable at " + Guids.format(guid) + "/" + port + " is not down");
        }
        if (!killed.contains(l.a()) && !killed.contains(l.b())) {
            type(link(cable(byDaemonGuid.get(guid).guid(), l, port)));
        }
    }

    /** The cables of switch {@code s} that are up in the model: not cut, neither end killed. */
    private List<Cable> upCables(long s) {
        List<Cable> out = new ArrayList<>();
        for (Map.Entry<Integer, Link> e : cables.getOrDefault(s, Map.of()).entrySet()) {
            Link l = e.getValue();
            if (!cut.contains(l) && !killed.contains(l.a()) && !killed.contains(l.b())) {
                out.add(cable(s, l, e.getKey()));
            }
        }
        out.sort((a, b) -> Integer.compare(a.port(), b.port()));
        return out;
    }

    private Cable cable(long here, Link l, int port) {
        boolean aEnd = l.a() == here && l.aPort() == port;
        return new Cable(ids.get(here), port, ids.get(aEnd ? l.b() : l.a()), aEnd ? l.bPort() : l.aPort());
    }

    private static String link(Cable c) {
        return "Link \"" + c.id() + "\"[" + c.port() + "] \"" + c.peer() + "\"[" + c.peerPort() + "]";
    }

    private static long other(Link l, long end) {
        return l.a() == end ? l.b() : l.a();
    }

    private FabricSwitch fabricSwitch(long guid) {
        FabricSwitch s = byDaemonGuid.get(guid);
        if (s == null) {
            throw new IllegalArgumentException("no simulated switch " + Guids.format(guid));
        }
        return s;
    }

    private Link cable(long guid, int port) {
        FabricSwitch s = fabricSwitch(guid);
        Link l = cables.getOrDefault(s.guid(), Map.of()).get(port);
        if (l == null) {
            throw new IllegalArgumentException("no cable at " + Guids.format(guid) + "/" + port + " (" + ids.get(s.guid())
                    + " has ports 1.." + s.ports() + ")");
        }
        return l;
    }

    private void type(String command) {
        try {
            console.type(command);
        } catch (IOException e) {
            throw new UncheckedIOException("ibsim's console: " + e.getMessage(), e);
        }
    }
}
