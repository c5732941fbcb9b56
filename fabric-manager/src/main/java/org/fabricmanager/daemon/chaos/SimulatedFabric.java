package org.fabricmanager.daemon.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.fabricmanager.daemon.control.VirtualTimeLoop;
import org.fabricmanager.southbound.LftBatch;
import org.fabricmanager.southbound.Message.CommitAck;
import org.fabricmanager.southbound.Message.PortInfo;
import org.fabricmanager.southbound.Message.PortStatus;
import org.fabricmanager.southbound.PortRecord;
import org.fabricmanager.southbound.RequestFailedException;
import org.fabricmanager.southbound.SouthboundListener;
import org.fabricmanager.topology.Fabric;
import org.fabricmanager.topology.Link;

/**
 * The hardware side of a {@link ChaosSimulation}: which switches are powered on ({@link SimulatedSwitch}, one per
 * run), which cables are unplugged, and what their agents tell the daemon's southbound ({@link SouthboundListener}): HELLO
 * and port reports at power-on, a port's change at each end of a cable a few milliseconds apart, a session's end at
 * power-off. Each commit the daemon sends lands a few milliseconds later (or is lost on the way) and its ack comes in
 * time, late or never, as the seeded {@link Random} says; everything runs on the control loop's virtual clock.
 */
final class SimulatedFabric {
    private final Fabric intact;
    private final ChaosOracle oracle;
    private final VirtualTimeLoop loop;
    private final Random random;
    private SouthboundListener southbound;
    /** The schedule's steps, which this fabric's changes are logged to. */
    private final List<String> steps;
    private final Map<Long, SimulatedSwitch> on = new TreeMap<>();
    /** Switches powered on whose agent hangs: they forward by the table they hold and answer nothing. */
    private final Map<Long, SimulatedSwitch> hung = new TreeMap<>();
    /** The sessions the daemon running holds open, with when each opened and when it last heard from each. */
    private final Map<SimulatedSwitch, Long> opened = new HashMap<>();
    private final Map<SimulatedSwitch, Long> heard = new HashMap<>();
    /** The daemon's keepalive period and the silence after which it closes a session ({@code southbound}). */
    private final long echoIntervalMs;
    private final long idleTimeoutMs;
    private final Map<Long, Long> incarnations = new HashMap<>();
    private final Set<Link> cablesDown = new LinkedHashSet<>();
    private final Map<SimulatedSwitch, List<CompletableFuture<CommitAck>>> unanswered = new HashMap<>();
    private long sessionIds;
    private long timers;
    private int pending;
    private int acksTimedOut;

    SimulatedFabric(Fabric intact, ChaosOracle oracle, VirtualTimeLoop loop, Random random, List<String> steps,
                    long echoIntervalMs, long idleTimeoutMs) {
        this.intact = intact;
        this.echoIntervalMs = echoIntervalMs;
        this.idleTimeoutMs = idleTimeoutMs;
        this.oracle = oracle;
        this.loop = loop;
        this.random = random;
        this.steps = steps;
    }

    /** The daemon the agents talk to, before any switch is powered on. */
    void connect(SouthboundListener daemon) {
        southbound = daemon;
    }

    /** The switches powered on whose agent answers, by GUID, in GUID order: those the daemon can manage. */
    Map<Long, SimulatedSwitch> on() {
        return Collections.unmodifiableMap(on);
    }

    /** The cables unplugged, in the order they were. */
    Set<Link> cablesDown() {
        return Collections.unmodifiableSet(cablesDown);
    }

    /** Events of this fabric still to happen (a port report, a commit landing, an ack). */
    int pending() {
        return pending;
    }

    /** Commits whose ack was lost or came too late: the daemon saw a timeout. */
    int acksTimedOut() {
        return acksTimedOut;
    }

    /** Switches powered on whose agent hangs, by GUID. */
    Set<Long> hung() {
        return Collections.unmodifiableSet(hung.keySet());
    }

    /** Whether switch {@code guid} is powered on, its agent answering or not. */
    boolean powered(long guid) {
        return on.containsKey(guid) || hung.containsKey(guid);
    }

    /** Whether {@code c} is plugged and both its ends answer their agents: traffic the daemon can manage. */
    boolean physicallyUp(Link c) {
        return on.containsKey(c.a()) && on.containsKey(c.b()) && !cablesDown.contains(c);
    }

    /** Whether {@code c} is plugged and both its ends powered on: its ports say up. */
    private boolean wired(Link c) {
        return powered(c.a()) && powered(c.b()) && !cablesDown.contains(c);
    }

    void cableDown(Link c) {
        steps.add("t=" + loop.nowMs() + " cable down " + describe(c));
        cablesDown.add(c);
        reportEnd(c.a(), c.aPort(), c);
        reportEnd(c.b(), c.bPort(), c);
    }

    void cableUp(Link c) {
        steps.add("t=" + loop.nowMs() + " cable up " + describe(c));
        cablesDown.remove(c);
        reportEnd(c.a(), c.aPort(), c);
        reportEnd(c.b(), c.bPort(), c);
    }

    /** The switch at one end of {@code c} reports its port as it is now, a few milliseconds later (seeded). */
    private void reportEnd(long guid, int port, Link c) {
        SimulatedSwitch sw = on.get(guid);
        if (sw == null) {
            SimulatedSwitch silent = hung.get(guid);
            if (silent != null) {
                silent.portsChanged.add(port); // told when its agent answers again
            }
            return;
        }
        later(random.nextInt(20), () -> {
            if (on.get(guid) == sw) {
                heard.put(sw, loop.nowMs());
                southbound.portStatusReceived(sw, new PortStatus(1,
                        List.of(record(guid, port))));
            } else if (hung.get(guid) == sw) {
                sw.portsChanged.add(port);
            }
        });
    }

    private PortRecord record(long guid, int port) {
        Long node = oracle.nodeAt(guid, port);
        if (node != null) {
            return PortRecord.toNode(port, node, intact.nodeByGuid(node).orElseThrow().name());
        }
        Link c = oracle.cableAt(guid, port);
        if (c == null || !wired(c)) {
            return PortRecord.down(port);
        }
        long peer = c.a() == guid ? c.b() : c.a();
        int peerPort = c.a() == guid ? c.bPort() : c.aPort();
        return PortRecord.toSwitch(port, peer, peerPort, name(peer));
    }

    /** Powers switch {@code guid} on: a new incarnation holding nothing says HELLO and reports its ports. */
    void powerOn(long guid, boolean logged) {
        var s = intact.switchByGuid(guid).orElseThrow();
        long incarnation = incarnations.merge(guid, 1L, Long::sum);
        SimulatedSwitch sw = new SimulatedSwitch(++sessionIds, guid, s.name(), s.ports(), incarnation, this::commit);
        if (logged) {
            steps.add("t=" + loop.nowMs() + " power on " + s.name());
        }
        on.put(guid, sw);
        introduce(sw);
        for (int p = 1; p <= s.ports(); p++) {
            Link c = oracle.cableAt(guid, p);
            if (c != null && wired(c)) {
                reportEnd(c.a() == guid ? c.b() : c.a(), c.a() == guid ? c.bPort() : c.aPort(), c);
            }
        }
        loop.runPending();
    }

    /**
     * The daemon crashed: the sessions, the reports on their way to it and the acks it waited for are gone; its
     * successor is {@code next}, which every switch on reconnects to, holding its table, with its ports' state.
     */
    void daemonRestarted(SouthboundListener next) {
        pending = 0;
        unanswered.clear();
        opened.clear();
        heard.clear();
        southbound = next;
        for (Map.Entry<Long, SimulatedSwitch> e : on.entrySet()) {
            SimulatedSwitch sw = e.getValue().reconnected(++sessionIds);
            e.setValue(sw);
            introduce(sw);
        }
        loop.runPending();
    }

    private void introduce(SimulatedSwitch sw) {
        opened.put(sw, loop.nowMs());
        heard.put(sw, loop.nowMs());
        southbound.helloReceived(sw, sw.hello());
        List<PortRecord> ports = new ArrayList<>();
        for (int p = 1; p <= sw.hello().portCount(); p++) {
            ports.add(record(sw.guid(), p));
        }
        southbound.portInfoReceived(sw, new PortInfo(1, ports));
    }

    /**
     * The agent of switch {@code guid} restarts: its session ends, and a new run connects holding the table the switch
     * kept forwarding by; its cables stay up.
     */
    void agentRestarted(long guid) {
        SimulatedSwitch old = on.get(guid);
        steps.add("t=" + loop.nowMs() + " agent of " + name(guid) + " restarts");
        endSession(old, "connection lost");
        SimulatedSwitch sw = old.restarted(++sessionIds, incarnations.merge(guid, 1L, Long::sum));
        on.put(guid, sw);
        introduce(sw);
        loop.runPending();
    }

    private void endSession(SimulatedSwitch sw, String reason) {
        for (CompletableFuture<CommitAck> f : unanswered.getOrDefault(sw, List.of())) {
            f.completeExceptionally(new RequestFailedException("session closed", false));
        }
        unanswered.remove(sw);
        opened.remove(sw);
        heard.remove(sw);
        southbound.sessionClosed(sw, reason);
    }

    /**
     * The agent of switch {@code guid} hangs: it reads nothing and answers nothing, its session stays open, the switch
     * forwards by its table. The daemon's transport closes the session once it heard nothing for its idle timeout:
     * since the last thing the agent sent, an ack or a report, or its answer to the last keepalive echo (the daemon
     * sends one every echo period from the session's start).
     */
    void agentHangs(long guid) {
        SimulatedSwitch sw = on.remove(guid);
        hung.put(guid, sw);
        int which = sw.hang();
        long now = loop.nowMs();
        long since = opened.getOrDefault(sw, now);
        long lastEcho = since + (now - since) / echoIntervalMs * echoIntervalMs;
        long silentSince = Math.max(lastEcho, heard.getOrDefault(sw, since));
        long closeIn = Math.max(0, silentSince + idleTimeoutMs - now);
        steps.add("t=" + now + " agent of " + name(guid) + " hangs (silent since t=" + silentSince + ")");
        later(closeIn, () -> {
            if (sw.hungIn(which) && opened.containsKey(sw)) {
                steps.add("t=" + loop.nowMs() + " the daemon closes the silent session of " + name(guid));
                endSession(sw, "nothing received for " + idleTimeoutMs + " ms");
            }
        });
        loop.runPending();
    }

    /**
     * The hung agent of switch {@code guid} answers again: on its session, if the daemon still holds it open, it
     * reads the frames that waited and reports the ports that changed meanwhile; else it reconnects holding its table.
     */
    void agentResumes(long guid) {
        SimulatedSwitch sw = hung.remove(guid);
        boolean open = opened.containsKey(sw);
        steps.add("t=" + loop.nowMs() + " agent of " + name(guid) + " answers again"
                + (open ? " on its session" : ", reconnects"));
        List<Runnable> frames = sw.resume(open);
        if (open) {
            on.put(guid, sw);
            heard.put(sw, loop.nowMs());
            frames.forEach(Runnable::run);
            if (!sw.portsChanged.isEmpty()) {
                southbound.portStatusReceived(sw, new PortStatus(1,
                        sw.portsChanged.stream().map(p -> record(guid, p)).toList()));
            }
        } else {
            SimulatedSwitch next = sw.reconnected(++sessionIds);
            on.put(guid, next);
            introduce(next);
        }
        sw.portsChanged.clear();
        loop.runPending();
    }

    void powerOff(long guid) {
        SimulatedSwitch sw = on.remove(guid);
        steps.add("t=" + loop.nowMs() + " power off " + name(guid));
        endSession(sw, "connection lost");
        for (Link c : oracle.cables()) {
            if ((c.a() == guid || c.b() == guid) && !cablesDown.contains(c)) {
                reportEnd(c.a() == guid ? c.b() : c.a(), c.a() == guid ? c.bPort() : c.aPort(), c);
            }
        }
        loop.runPending();
    }


    /** A commit reaches a simulated switch: applied (or lost on the way), acknowledged in time, late or never. */
    private void commit(SimulatedSwitch to, LftBatch batch, long timeoutMs, CompletableFuture<CommitAck> answer) {
        unanswered.computeIfAbsent(to, k -> new ArrayList<>()).add(answer);
        int fate = random.nextInt(100);
        long arrive = 1 + random.nextInt(5);
        long ackAfter = fate < 85 ? random.nextInt(20) : random.nextInt(3_000);
        to.received.add("t=" + loop.nowMs() + " sent v" + batch.version() + (fate < 3 ? ", frame lost" : fate < 6
                ? ", ack lost" : arrive + ackAfter > timeoutMs ? ", ack too late" : ", acked in " + (arrive + ackAfter)
                + " ms"));
        later(arrive, () -> {
            if (hung.get(to.guid()) == to) {
                // unread in its socket until the agent answers again; the daemon's wait ends at its timeout
                to.hold(() -> {
                    CommitAck ack = to.apply(batch);
                    answer.complete(ack);
                });
                later(timeoutMs - arrive, () -> {
                    if (answer.completeExceptionally(new RequestFailedException("no ack within " + timeoutMs
                            + " ms", true))) {
                        acksTimedOut++;
                    }
                });
                return;
            }
            if (on.get(to.guid()) != to) {
                return;
            }
            CommitAck ack = fate < 3 ? null : to.apply(batch); // under 3: the frame is lost, nothing applied
            boolean ackLost = fate < 6;
            if (ackLost || arrive + ackAfter > timeoutMs) {
                acksTimedOut++;
                later(timeoutMs - arrive, () -> answer.completeExceptionally(
                        new RequestFailedException("no ack within " + timeoutMs + " ms", true)));
            } else {
                later(ackAfter, () -> {
                    if (on.get(to.guid()) == to) {
                        heard.put(to, loop.nowMs());
                    }
                    answer.complete(ack);
                    if (to.hasLateBlock()) {
                        later(5_000, to::landLateBlock);
                    }
                });
            }
        });
    }

    /** Runs {@code action} in {@code ms} of virtual time, on the control loop's clock. */
    private void later(long ms, Runnable action) {
        pending++;
        loop.scheduleDeferred("sim " + timers++, ms, () -> {
            pending--;
            action.run();
        });
    }


    String describe(Link c) {
        return name(c.a()) + "/" + c.aPort() + " - " + name(c.b()) + "/" + c.bPort();
    }

    String name(long guid) {
        return intact.switchByGuid(guid).map(s -> s.name()).orElse(Long.toHexString(guid));
    }
}
