package org.fabricmanager.sim;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.fabricmanager.agent.DetectorConfigListener;
import org.fabricmanager.agent.RingAssignment;
import org.fabricmanager.agent.SwitchAgent;
import org.fabricmanager.detector.AddressResolver;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.ProcessHealth;
import org.fabricmanager.detector.RingDetector;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.netty.DatagramRehearsal;
import org.fabricmanager.detector.netty.NettyRingDetector;
import org.fabricmanager.detector.overlay.Overlay;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.topology.Guids;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failure-detector members of simulated agents: when an agent's DETECTOR_CONFIG is complete its
 * member starts on event loops of their own (replacing the member of an older epoch); the agent
 * reports its own port changes to the ring; a killed agent's member stops. Thread-safe.
 *
 * <p>The members do not share the agents' loops: on a switch the detector does not wait for table
 * updates, and in one simulating JVM a burst of LFT blocks after a fault would otherwise delay the
 * heartbeats of hundreds of members at once and make their observers suspect them.
 */
public final class SimulatedDetectors implements DetectorConfigListener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SimulatedDetectors.class);

    private final EventLoopGroup group;
    private final MeterRegistry registry;
    /** The lateness all members of this process share: one loop falling behind makes none of them accuse. */
    private final ProcessHealth process = new ProcessHealth();
    private final Map<Long, RingDetector> members = new HashMap<>();
    /** Whether a member has started: the first one is logged at INFO, the others at DEBUG. */
    private boolean anyStarted;
    /** Starts asked for and not finished; the burst they belong to is summed up at INFO when it reaches 0. */
    private int startsPending;
    private int burstStarts;
    private long burstSince;
    private long burstSlowestNanos;
    private final Map<Long, Long> epochs = new HashMap<>();
    /** The key of each running member's ring: with its epoch, what tells a ring apart from another daemon's. */
    private final Map<Long, byte[]> keys = new HashMap<>();
    /** The key of the ring each agent was last configured with, its member running or still starting. */
    private final Map<Long, byte[]> configuredKeys = new HashMap<>();
    /** Addresses announced (DETECTOR_PEERS) for an epoch whose member had not started yet, by switch. */
    private final Map<Long, PendingPeers> pendingPeers = new HashMap<>();
    /** At most this many pending addresses per switch: a window's worth and its lookups. */
    private static final int MAX_PENDING_PEERS = 1_024;

    private record PendingPeers(long epoch, List<Message.DetectorPeer> peers) {
    }

    /** The address each running member bound (its own entry of the configuration it was started with). */
    private final Map<Long, InetSocketAddress> bound = new HashMap<>();
    /** Fault injection: switches whose member starts this many ms after its configuration arrives. */
    private final Map<Long, Long> startDelays = new HashMap<>();
    /** Bumped by every stop, so that a delayed start asked for before it does not resurrect the member. */
    private final Map<Long, Long> stops = new HashMap<>();
    /**
     * Each agent's UDP port, held by an open socket from {@link #reservePort} until its member first binds it,
     * so that no other process (another simulator) is given the port the agent advertised meanwhile.
     */
    private final Map<Long, DatagramSocket> reserved = new HashMap<>();
    /**
     * Threads that start and stop members, a switch always on the same one so that its starts and stops stay in
     * order. Starting binds a socket and waits twice for the member's event loop, never on an agent's loop. Several
     * threads, because under load each start mostly waits: on one thread a 5,120-switch cold start on a loaded
     * 2-core host took minutes to start its members, and those that started after their neighbours' 30 s start-up
     * grace were declared dead by them (docs/performance.md, "Choices in the code, measured").
     */
    static final int LIFECYCLE_THREADS = 16;
    private final ExecutorService[] lifecycles = new ExecutorService[LIFECYCLE_THREADS];

    /**
     * The datagram path is rehearsed ({@link DatagramRehearsal#untilCompiled}) when the first configuration arrives,
     * and members start once it is compiled: thousands of members started beside an interpreted HMAC-SHA-256 fill
     * their event loops with it, their heartbeats fall seconds behind, and their observers declare them dead (a
     * storm at 5,120 switches on a loaded 2-core host: docs/performance.md, "Choices in the code, measured"). These
     * bounds hold the members back 15 s at most where the JIT never gets there. Not at the simulator's
     * start: the agents' connections and the first push need the cores then.
     */
    static final int REHEARSAL_MAX_DATAGRAMS = 400_000;
    static final long REHEARSAL_MAX_NANOS = TimeUnit.SECONDS.toNanos(15);
    private final AtomicBoolean rehearsed = new AtomicBoolean();
    private final CountDownLatch rehearsal = new CountDownLatch(1);

    private final Supplier<DatagramRehearsal.Outcome> rehearse;

    /** Members run on {@code threads} event loops owned by this object. */
    public SimulatedDetectors(int threads, MeterRegistry registry) {
        this(threads, registry, () -> DatagramRehearsal.untilCompiled(REHEARSAL_MAX_DATAGRAMS, REHEARSAL_MAX_NANOS));
    }

    /** As {@link #SimulatedDetectors(int, MeterRegistry)}, with the rehearsal the members' first start waits for. */
    SimulatedDetectors(int threads, MeterRegistry registry, Supplier<DatagramRehearsal.Outcome> rehearse) {
        this.rehearse = rehearse;
        this.group = new NioEventLoopGroup(threads,
                new DefaultThreadFactory("fm-sim-detector", true));
        this.registry = registry;
        for (int i = 0; i < LIFECYCLE_THREADS; i++) {
            lifecycles[i] = Executors.newSingleThreadExecutor(
                    new DefaultThreadFactory("fm-sim-detectors-" + i, true));
        }
    }

    /** Rehearses the datagram path on a thread of its own, once; {@link #awaitRehearsal} holds the starts until then. */
    private void rehearseOnce() {
        if (!rehearsed.compareAndSet(false, true)) {
            return;
        }
        Thread thread = new Thread(() -> {
            try {
                DatagramRehearsal.Outcome o = rehearse.get();
                if (o.fast()) {
                    LOG.info("failure detector: datagram path compiled after {} rehearsed heartbeats in {} ms ({} ns of"
                            + " CPU each, {} intact); members start now", o.heartbeats(), o.elapsedNanos() / 1_000_000L,
                            o.nanosPerHeartbeat(), o.intact());
                } else {
                    LOG.warn("failure detector: datagram path still slow after {} rehearsed heartbeats in {} ms ({} ns of"
                            + " CPU each, under {} counts as compiled; {} intact); members start anyway and may fall"
                            + " behind their heartbeats on a loaded host", o.heartbeats(), o.elapsedNanos() / 1_000_000L,
                            o.nanosPerHeartbeat(), DatagramRehearsal.COMPILED_NANOS_PER_HEARTBEAT, o.intact());
                }
            } catch (RuntimeException e) {
                LOG.error("failure detector: the datagram path's rehearsal failed; members start anyway", e);
            } finally {
                rehearsal.countDown();
            }
        }, "fm-sim-detector-rehearsal");
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits for the rehearsal (bounded by its own limits); false if interrupted. */
    private boolean awaitRehearsal() {
        try {
            rehearsal.await(REHEARSAL_MAX_NANOS + TimeUnit.SECONDS.toNanos(5),
                    TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The thread that starts and stops switch {@code guid}'s member (the same one every time). */
    private ExecutorService lifecycle(long guid) {
        return lifecycles[(int) Math.floorMod(Long.hashCode(guid * 0x9E3779B97F4A7C15L), (long) LIFECYCLE_THREADS)];
    }

    @Override
    public CompletionStage<Void> configured(SwitchAgent agent, RingAssignment ring) {
        rehearseOnce();
        RingParameters parameters = new RingParameters(Duration.ofMillis(ring.etaMs()), Duration.ofMillis(ring.deltaMs()),
                ring.overlay() == Message.Overlay.HYPERCUBE ? Overlay.HYPERCUBE : Overlay.BMG,
                Duration.ofMillis(ring.pauseMs()))
                // member 0 is the daemon's, the ring's witness: told when this member begins suspecting its emitter
                .withWitness(Protocol.DAEMON_RING_MEMBER);
        StartMode mode = ring.startMode() == Message.StartMode.JOIN ? StartMode.JOIN : StartMode.BOOTSTRAP;
        if (mode == StartMode.BOOTSTRAP) {
            parameters = parameters.withStartupGrace(coldStartGrace(parameters.suspicionTimeout()));
        }
        DetectorConfig whole;
        if (ring.window()) {
            Map<Integer, InetSocketAddress> known = new HashMap<>();
            for (Message.DetectorPeer m : ring.members()) {
                known.put(m.index(), new InetSocketAddress(m.address(), m.port()));
            }
            whole = new DetectorConfig(ring.memberCount(), known, ring.selfIndex(), parameters, mode, ring.ringKey(),
                    ring.fingerprint());
        } else {
            List<InetSocketAddress> addresses = new ArrayList<>(ring.members().size());
            for (Message.DetectorPeer m : ring.members()) {
                addresses.add(new InetSocketAddress(m.address(), m.port()));
            }
            whole = new DetectorConfig(addresses, ring.selfIndex(), parameters, mode, ring.ringKey());
        }
        // ring slots of switches not connected yet start dead, as in every other member's view: nobody suspects them
        DetectorConfig config = whole.withDeadAtStart(ring.deadAtStart());
        // a window's member asks the daemon, over the agent's session, for any other member's address
        AddressResolver resolver = ring.window()
                ? members -> agent.lookupDetectorPeers(ring.epoch(), members)
                : AddressResolver.NONE;
        CompletableFuture<Void> running = new CompletableFuture<>();
        long delayMs;
        long stopsBefore;
        synchronized (this) {
            delayMs = startDelays.getOrDefault(agent.guid(), 0L);
            stopsBefore = stops.getOrDefault(agent.guid(), 0L);
            // the ring the agent runs from now on, in order with its DETECTOR_PEERS (both come on its event loop)
            configuredKeys.put(agent.guid(), ring.ringKey());
        }
        long askedAt = System.nanoTime();
        synchronized (this) {
            if (startsPending++ == 0) {
                burstSince = askedAt;
                burstStarts = 0;
                burstSlowestNanos = 0;
            }
        }
        running.whenComplete((ok, failure) -> startFinished(askedAt, delayMs));
        Runnable startTask = () -> {
            if (!awaitRehearsal()) {
                running.completeExceptionally(new IllegalStateException("the simulator is closing"));
                return;
            }
            synchronized (this) {
                if (stops.getOrDefault(agent.guid(), 0L) != stopsBefore) {
                    running.completeExceptionally(new IllegalStateException("the switch was stopped"));
                    return;
                }
                // a member that was suspected by mistake rejoins the ring by itself: a reconnecting agent
                // keeps its running member of the same ring instead of restarting it. The same ring is the same
                // epoch and key: a restarted daemon (or a standby taking over) numbers its epochs from 1 again
                // with a new key, and a member kept on its epoch number alone sealed with the previous key, so the
                // daemon's member and it dropped each other's datagrams and the daemon suspected a live switch
                // about every δ. Nor is it kept when the configuration moves it: a member configured before its
                // endpoint reached the daemon bound the address the daemon guessed, and must bind the advertised one
                if (members.containsKey(agent.guid()) && Long.valueOf(ring.epoch()).equals(epochs.get(agent.guid()))
                        && MessageDigest.isEqual(ring.ringKey(), keys.get(agent.guid()))
                        && config.address(config.self()).equals(bound.get(agent.guid()))) {
                    running.complete(null);
                    return;
                }
            }
            try {
                start(agent.guid(), config, ring.epoch(), ring.ringKey(), resolver);
                running.complete(null);
            } catch (RuntimeException e) {
                running.completeExceptionally(e);
            }
        };
        try {
            if (delayMs > 0) {
                group.schedule(() -> {
                    try {
                        lifecycle(agent.guid()).execute(startTask);
                    } catch (RejectedExecutionException e) {
                        running.completeExceptionally(new IllegalStateException("the simulator is closing"));
                    }
                }, delayMs, TimeUnit.MILLISECONDS);
            } else {
                lifecycle(agent.guid()).execute(startTask);
            }
        } catch (RejectedExecutionException e) {
            running.completeExceptionally(new IllegalStateException("the simulator is closing"));
        }
        return running;
    }

    /**
     * One start asked for at {@code askedAt} ended (running, refused or failed). When none is left, the burst is
     * summed up once at INFO: a member that starts late is suspected by its observer, so how long the configurations
     * waited for their members is what an operator of a large simulation needs to see.
     */
    private void startFinished(long askedAt, long delayMs) {
        long now = System.nanoTime();
        int started;
        long since;
        long slowest;
        synchronized (this) {
            burstStarts++;
            burstSlowestNanos = Math.max(burstSlowestNanos, now - askedAt - delayMs * 1_000_000L);
            if (--startsPending > 0) {
                return;
            }
            started = burstStarts;
            since = burstSince;
            slowest = burstSlowestNanos;
        }
        if (started > 1) {
            LOG.info("{} failure detector members started in {} ms (the slowest {} ms after its configuration arrived)",
                    started, (now - since) / 1_000_000L, slowest / 1_000_000L);
        }
    }

    /**
     * How long a member of a cold start (BOOTSTRAP) waits for an emitter it has never heard from: members start as
     * their configurations arrive, in no ring order and over seconds (each agent's window waits behind its table
     * blocks; here one thread starts them all), so the SC'16 2δ, meant for members started at once, declared
     * emitters dead that had simply not started yet (a false death and a rejoin after a demo's cold start). An
     * emitter once heard is suspected after δ as always; one that never starts is found after this grace, the time
     * the daemon itself waits for every configuration's answer by default ({@code faults.detector.startupGraceMs}).
     */
    static Duration coldStartGrace(Duration delta) {
        Duration grace = Duration.ofSeconds(30);
        return grace.compareTo(delta.multipliedBy(2)) < 0 ? delta.multipliedBy(2) : grace;
    }

    /**
     * Takes a free UDP port on {@code address} ({@code null}: every local address) for switch {@code guid}'s
     * member and holds it until the member starts; returns the port, which the agent advertises.
     */
    public synchronized int reservePort(long guid, InetAddress address) {
        DatagramSocket old = reserved.remove(guid);
        if (old != null) {
            old.close();
        }
        try {
            DatagramSocket socket = new DatagramSocket(new InetSocketAddress(address, 0));
            reserved.put(guid, socket);
            return socket.getLocalPort();
        } catch (SocketException e) {
            throw new IllegalStateException("no UDP port for switch " + Guids.format(guid) + "'s detector: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public void peers(SwitchAgent agent, long epoch, List<Message.DetectorPeer> peers) {
        RingDetector d;
        synchronized (this) {
            // the running member is the configured ring's only with its key: after a daemon's restart the epoch
            // number repeats, and addresses given to the previous life's member would be lost with it
            d = Long.valueOf(epoch).equals(epochs.get(agent.guid()))
                    && MessageDigest.isEqual(keys.get(agent.guid()), configuredKeys.get(agent.guid()))
                    ? members.get(agent.guid()) : null;
            if (d == null) {
                // the member of this ring is still starting (its start runs on its lifecycle thread): the
                // addresses are applied when it runs, or a move announced meanwhile would be lost
                PendingPeers pending = pendingPeers.get(agent.guid());
                if (pending == null || pending.epoch() != epoch) {
                    pending = new PendingPeers(epoch, new ArrayList<>());
                    pendingPeers.put(agent.guid(), pending);
                }
                if (pending.peers().size() + peers.size() <= MAX_PENDING_PEERS) {
                    pending.peers().addAll(peers);
                }
                return;
            }
        }
        learn(d, peers);
    }

    private static void learn(RingDetector d, List<Message.DetectorPeer> peers) {
        for (Message.DetectorPeer p : peers) {
            try {
                d.learn(p.index(), new InetSocketAddress(p.address(), p.port()));
            } catch (IllegalStateException e) {
                return; // the member stopped meanwhile
            }
        }
    }

    private void start(long guid, DetectorConfig config, long epoch, byte[] key, AddressResolver resolver) {
        stopNow(guid);
        DatagramSocket reservation;
        synchronized (this) {
            reservation = reserved.remove(guid);
        }
        if (reservation != null) {
            reservation.close(); // the member binds the port right away
        }
        RingDetector d = null;
        // the previous member's socket may take a moment to be released
        for (int attempt = 0; d == null; attempt++) {
            try {
                d = NettyRingDetector.start(config, event -> { }, registry, group, resolver, process);
            } catch (RuntimeException e) {
                if (attempt >= 20) {
                    LOG.warn("switch {}: cannot start its failure detector member: {}", Guids.format(guid), e.getMessage());
                    throw e;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while starting the member", ie);
                }
            }
        }
        synchronized (this) {
            if (!anyStarted) {
                anyStarted = true;
                LOG.info("switch {}: failure detector member listening on UDP {}; the simulated switches' members "
                        + "start as their configurations arrive (each logged at DEBUG)", Guids.format(guid),
                        config.address(config.self()));
            }
            epochs.put(guid, epoch);
            keys.put(guid, key);
            bound.put(guid, config.address(config.self()));
            RingDetector previous = members.put(guid, d);
            if (previous != null) {
                previous.close();
            }
            PendingPeers pending = pendingPeers.remove(guid);
            if (pending != null && pending.epoch() == epoch) {
                learn(d, pending.peers());
            }
        }
    }

    /** Stops the member of switch {@code guid} (its agent died), after any start already asked for. */
    public void stop(long guid) {
        synchronized (this) {
            stops.merge(guid, 1L, Long::sum);
        }
        lifecycle(guid).execute(() -> stopNow(guid));
    }

    /**
     * Fault injection: switch {@code guid}'s member starts {@code ms} after its configuration arrives
     * (a slow switch CPU), for configurations arriving from now on; 0 restores prompt starts.
     */
    public void delayStart(long guid, long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("negative start delay " + ms);
        }
        synchronized (this) {
            if (ms == 0) {
                startDelays.remove(guid);
            } else {
                startDelays.put(guid, ms);
            }
        }
    }

    private void stopNow(long guid) {
        RingDetector d;
        synchronized (this) {
            d = members.remove(guid);
            bound.remove(guid);
            keys.remove(guid);
        }
        if (d != null) {
            d.close();
        }
    }

    /** Members running now. */
    public synchronized int running() {
        return members.size();
    }

    @Override
    public void close() {
        for (ExecutorService lifecycle : lifecycles) {
            lifecycle.shutdown();
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        try {
            for (ExecutorService lifecycle : lifecycles) {
                lifecycle.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<RingDetector> all;
        synchronized (this) {
            all = new ArrayList<>(members.values());
            members.clear();
            reserved.values().forEach(DatagramSocket::close);
            reserved.clear();
        }
        for (RingDetector d : all) {
            d.close();
        }
        if (!all.isEmpty()) {
            LOG.info("stopped {} failure detector members", all.size());
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10,
                TimeUnit.SECONDS);
    }
}
