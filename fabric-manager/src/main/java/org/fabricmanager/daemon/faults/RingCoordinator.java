package org.fabricmanager.daemon.faults;

import io.micrometer.core.instrument.MeterRegistry;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabricmanager.daemon.config.ConfigException;
import org.fabricmanager.daemon.config.DaemonConfig;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.DetectorListener;
import org.fabricmanager.detector.RingDetector;
import org.fabricmanager.detector.RingParameters;
import org.fabricmanager.detector.StartMode;
import org.fabricmanager.detector.VacantAddress;
import org.fabricmanager.detector.message.MemberStatus;
import org.fabricmanager.detector.netty.NettyRingDetector;
import org.fabricmanager.detector.overlay.Overlay;
import org.fabricmanager.southbound.DetectorConfigReply;
import org.fabricmanager.southbound.Message;
import org.fabricmanager.southbound.Protocol;
import org.fabricmanager.southbound.RingHeartbeats;
import org.fabricmanager.southbound.RingSeat;
import org.fabricmanager.topology.Guids;

/**
 * The ring the daemon configures: member 0 is the daemon's own member (so that it hears every
 * broadcast even when the switch that detected a fault has lost its own connection), then the
 * switches in {@link RingOrder}. Each plan is a new epoch; the daemon's member restarts with it.
 *
 * <p>A cold start is staged: the daemon's member starts first (its observer, the first switch, hears
 * it from its own start) but its emitter, the last switch, is configured last, so the daemon's member
 * keeps a start-up grace until every agent has answered its configuration (or its answer timed out).
 * Switches that answered without a running member (no detector, or it failed to start) stay in the
 * ring's order but will never heartbeat: the ring declares them dead, and the daemon ignores that
 * verdict, watching them through their sessions and PORT_STATUS instead. A switch that did not answer
 * stays watched: a hung agent is exactly what the ring is for. Used on the control thread only.
 */
public final class RingCoordinator implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RingCoordinator.class);
    private static final int CHUNK = 256;

    private final DaemonConfig.Detector settings;
    private final long daemonId;
    private final MeterRegistry registry;
    private final InetAddress bind;
    private final SecureRandom random = new SecureRandom();
    private long epoch;
    /** The daemon member's UDP port: the configured one, or one the system chose for the first epoch. */
    private int chosenPort;
    /** The epoch's key: seals every detector datagram; reaches the agents only inside DETECTOR_CONFIG. */
    private byte[] ringKey = new byte[Message.DetectorConfig.KEY_BYTES];
    private RingDetector member;
    private List<Long> guids = List.of();
    /**
     * The epoch's members in DETECTOR_CONFIG chunks, built once: every agent gets the same lists (only
     * the header's own index differs), which keeps n agents' configurations O(n) objects, not O(n²).
     */
    private List<List<Message.DetectorMember>> memberChunks = List.of();
    private final Map<Long, Integer> indexByGuid = new HashMap<>();
    /** Where each member of this epoch listens, for agents told only their window; {@code null} before a plan. */
    private RingDirectory directory;
    /** The epoch's ring fingerprint (every datagram carries it), computed over the whole ring at the plan. */
    private int fingerprint;
    /**
     * Slots of this epoch whose switch has not connected (an expected switch): dead from the start in every member's
     * view, at a placeholder address, until the switch joins; their ring indices ascending in {@link #deadAtStart}.
     */
    private final Set<Long> vacant = new HashSet<>();
    private int[] deadAtStart = new int[0];
    /** Why a vacant slot is not watched, as {@code GET /api/v1/faults} shows it. */
    static final String VACANT = "not connected yet: its ring slot waits for it, dead from the start (no verdict)";
    /** Switches this epoch left out of the ring on purpose (an endpoint shared with an earlier member). */
    private final Set<Long> leftOut = new HashSet<>();
    /** Switches of this epoch whose answer to the configuration is still awaited. */
    private final Set<Long> awaiting = new HashSet<>();
    /**
     * Switches of this epoch whose answer did not come within the wait and has not come since: the ring
     * watches them (a hung agent is what it is for) but their member may still be starting.
     */
    private final Set<Long> unconfirmed = new HashSet<>();
    /** Switches of this epoch without a running member, with why. */
    private final Map<Long, String> unwatched = new LinkedHashMap<>();

    public RingCoordinator(DaemonConfig.Detector settings, long daemonId, MeterRegistry registry) {
        this.settings = settings;
        this.daemonId = daemonId;
        this.registry = registry;
        try {
            this.bind = InetAddress.getByName(settings.bind());
        } catch (UnknownHostException e) {
            throw new ConfigException("option faults.detector.bind: unknown host '" + settings.bind() + "'");
        }
    }

    /**
     * Starts a new epoch: the daemon's member (BOOTSTRAP) and the given switches in ring order.
     *
     * @param switchGuids switches in ring order
     * @param endpoints   where each switch's member listens (as its agent said, or its session's address and
     *                    {@code faults.detector.agentPort} for an agent that never says); none for a switch whose
     *                    agent will say but has not yet (it gets a placeholder until {@link #moved})
     * @param listener    receives the daemon member's events (on its own thread)
     * @return the switches in the ring: all but those whose endpoint an earlier switch (or the daemon) has,
     *         which are left unwatched with the reason (two members on one address would confuse the ring)
     */
    public List<Long> plan(List<Long> switchGuids, Map<Long, InetSocketAddress> endpoints, DetectorListener listener) {
        return plan(switchGuids, endpoints, Set.of(), listener);
    }

    /**
     * As above, with slots for switches not connected yet: {@code vacantGuids} (some of {@code switchGuids}, without
     * an endpoint) are members that start dead in every view, so nobody suspects them; one that connects later joins
     * its slot in this epoch ({@link #filled}, {@link #moved}).
     *
     * @return the connected switches in the ring (not the vacant slots)
     */
    public List<Long> plan(List<Long> switchGuids, Map<Long, InetSocketAddress> endpoints, Set<Long> vacantGuids,
                           DetectorListener listener) {
        close();
        epoch++;
        // a new key per epoch: datagrams of an earlier epoch (a replay, a member left out) fail their tag
        random.nextBytes(ringKey);
        List<Long> g = new ArrayList<>(switchGuids.size() + 1);
        List<InetSocketAddress> a = new ArrayList<>(switchGuids.size() + 1);
        g.add(daemonId);
        a.add(new InetSocketAddress(bind, daemonPort()));
        Map<InetSocketAddress, Long> taken = new HashMap<>();
        taken.put(a.get(0), daemonId);
        Map<Long, String> shared = new LinkedHashMap<>();
        List<Integer> dead = new ArrayList<>();
        for (long guid : switchGuids) {
            if (vacantGuids.contains(guid)) {
                dead.add(g.size());
                g.add(guid);
                a.add(VacantAddress.of(g.size() - 1));
                continue;
            }
            InetSocketAddress endpoint = endpoints.get(guid);
            if (endpoint == null) {
                // its agent has not said yet where its member listens (it does, right after its PORT_INFO): a
                // placeholder no datagram goes to until the endpoint moves it (joinRing -> moved). A guess (the
                // session's address and the default port) was the same for every such agent behind one address,
                // and all but the first were left out of the epoch for good (DetectorProcessesIT, once in four runs)
                g.add(guid);
                a.add(VacantAddress.of(g.size() - 1));
                continue;
            }
            Long other = taken.putIfAbsent(endpoint, guid);
            if (other != null) {
                shared.put(guid, "its detector endpoint " + endpoint + " is also "
                        + (other == daemonId ? "the daemon's" : "switch " + Guids.format(other) + "'s"));
                continue;
            }
            g.add(guid);
            a.add(endpoint);
        }
        // the daemon's member is the ring's witness: agents' members tell it when they begin suspecting their emitter
        // (docs/protocol.md, 3.12), so that the second opinion and the routing without the suspect start half a δ early
        RingParameters p = parameters().withStartupGrace(Duration.ofMillis(settings.startupGraceMs()))
                .withWitness(Protocol.DAEMON_RING_MEMBER);
        deadAtStart = dead.stream().mapToInt(Integer::intValue).toArray();
        member = NettyRingDetector.start(new DetectorConfig(a, 0, p, StartMode.BOOTSTRAP, ringKey)
                .withDeadAtStart(deadAtStart), listener, registry);
        fingerprint = DetectorConfig.fingerprint(a, p);
        directory = new RingDirectory(g, a);
        guids = List.copyOf(g);
        List<List<Message.DetectorMember>> chunks = new ArrayList<>();
        for (int start = 0; start < g.size(); start += CHUNK) {
            int end = Math.min(g.size(), start + CHUNK);
            List<Message.DetectorMember> members = new ArrayList<>(end - start);
            for (int i = start; i < end; i++) {
                members.add(new Message.DetectorMember(g.get(i), epoch, a.get(i).getAddress(), a.get(i).getPort()));
            }
            chunks.add(List.copyOf(members));
        }
        memberChunks = List.copyOf(chunks);
        indexByGuid.clear();
        for (int i = 0; i < g.size(); i++) {
            indexByGuid.put(g.get(i), i);
        }
        List<Long> members = new ArrayList<>(g.subList(1, g.size()));
        members.removeAll(vacantGuids);
        awaiting.clear();
        awaiting.addAll(members);
        unconfirmed.clear();
        unwatched.clear();
        unwatched.putAll(shared);
        vacant.clear();
        for (long guid : g) {
            if (vacantGuids.contains(guid)) {
                vacant.add(guid);
                unwatched.put(guid, VACANT);
            }
        }
        leftOut.clear();
        leftOut.addAll(shared.keySet());
        shared.forEach((guid, why) -> LOG.warn("failure detector: switch {} left out of the ring: {}",
                Guids.format(guid), why));
        return List.copyOf(members);
    }

    /**
     * Records a switch's answer to its configuration of {@code epoch} (stale epochs are ignored), in time
     * or late (after the wait had answered NO_ANSWER). When it was the last answer awaited, the daemon's
     * member ends its start-up grace.
     *
     * @return true when this answer completed the epoch's start
     */
    public boolean answered(long epoch, long guid, DetectorConfigReply reply) {
        if (epoch != this.epoch || member == null || !indexByGuid.containsKey(guid)) {
            return false;
        }
        // No answer proves nothing: the agent may be hung (then the ring's verdict is right) or slow (its
        // member heartbeats later); only an agent that says it runs no member makes the verdict meaningless.
        if (reply.outcome() == DetectorConfigReply.Outcome.NO_DETECTOR) {
            unwatched.put(guid, "no failure detector: " + reply.detail());
            unconfirmed.remove(guid);
        } else if (reply.running()) {
            unwatched.remove(guid);
            unconfirmed.remove(guid);
        } else {
            unconfirmed.add(guid); // no answer (yet): a late one, or the next configuration's, may still confirm it
        }
        if (awaiting.remove(guid) && awaiting.isEmpty()) {
            member.endStartupGrace();
            return true;
        }
        return false;
    }

    /** The incarnation of member {@code guid} in the daemon member's view (0: never restarted), -1 without a ring. */
    public long incarnation(long guid) {
        Integer index = indexByGuid.get(guid);
        if (member == null || index == null) {
            return -1;
        }
        for (MemberStatus s : member.snapshot().members()) {
            if (s.member() == index) {
                return s.incarnation();
            }
        }
        return 0;
    }

    /** Whether member {@code guid} has not answered this epoch's configuration yet (the ring's cold start). */
    public boolean awaitingAnswer(long guid) {
        return awaiting.contains(guid);
    }

    /** Members of this epoch that have not answered their configuration yet. */
    public int awaitingAnswers() {
        return awaiting.size();
    }

    /**
     * Members of this epoch whose answer did not come within the wait and has not come since: watched, but
     * perhaps not running yet (the ring runs for all of them only when this and {@link #awaitingAnswers()} are 0).
     */
    public int unconfirmedAnswers() {
        return unconfirmed.size();
    }

    /** True when the switch said it runs no ring member in this epoch (the ring's verdicts on it mean nothing). */
    public boolean unwatched(long guid) {
        return unwatched.containsKey(guid);
    }

    /** Members of this epoch without a running ring member, with why, in the order they answered. */
    public Map<Long, String> unwatchedSwitches() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(unwatched));
    }

    private RingParameters parameters() {
        return RingParameters.of(Duration.ofMillis(settings.etaMs()), Duration.ofMillis(settings.deltaMs()),
                Overlay.parse(settings.overlay()));
    }

    /** True once a ring was planned. */
    public boolean active() {
        return member != null;
    }

    public long epoch() {
        return epoch;
    }

    /** Members including the daemon. */
    public int size() {
        return guids.size();
    }

    /** The switch (or the daemon's id) at ring index {@code i}. */
    public long guid(int i) {
        return guids.get(i);
    }

    public long daemonId() {
        return daemonId;
    }

    /** True when {@code guid} is a member of the current epoch. */
    public boolean contains(long guid) {
        return indexByGuid.containsKey(guid);
    }

    /**
     * The configured port, or with {@code faults.detector.port: 0} a free one, chosen once and kept for later
     * epochs (taken by the member right after it is chosen; chosen anew only if it was lost).
     */
    private int daemonPort() {
        if (settings.port() != 0) {
            return settings.port();
        }
        if (chosenPort != 0) {
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(bind, chosenPort))) {
                return chosenPort;
            } catch (SocketException e) {
                LOG.warn("failure detector: the daemon member's UDP port {} is taken now; choosing another", chosenPort);
            }
        }
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(bind, 0))) {
            chosenPort = probe.getLocalPort();
            return chosenPort;
        } catch (SocketException e) {
            throw new IllegalStateException("no free UDP port on " + bind + " for the daemon's detector member", e);
        }
    }

    /** True when {@code guid}'s slot in this epoch waits for its switch (it never connected since the plan). */
    public boolean vacant(long guid) {
        return vacant.contains(guid);
    }

    /**
     * The switch of a vacant slot connected: it joins the running epoch (JOIN above the incarnation its slot is dead
     * at); it counts as watched once it answers that its member runs.
     */
    public void filled(long guid) {
        if (vacant.remove(guid)) {
            unwatched.put(guid, "connected late: joining its ring slot");
        }
    }

    /** The DETECTOR_CONFIG chunks for switch {@code guid} (a member), txids left 0. */
    public List<Message.DetectorConfig> configFor(long guid, boolean join) {
        int self = indexByGuid.get(guid);
        RingParameters p = parameters();
        List<Message.DetectorConfig> chunks = new ArrayList<>(memberChunks.size());
        for (int c = 0; c < memberChunks.size(); c++) {
            chunks.add(new Message.DetectorConfig(0, epoch, settings.etaMs(), settings.deltaMs(),
                    (int) p.pauseThreshold().toMillis(),
                    p.overlay() == Overlay.HYPERCUBE ? Message.Overlay.HYPERCUBE : Message.Overlay.BMG,
                    Message.Transport.UDP, join ? Message.StartMode.JOIN : Message.StartMode.BOOTSTRAP, guids.size(),
                    self, c * CHUNK, memberChunks.get(c), ringKey));
        }
        return chunks;
    }

    /**
     * The DETECTOR_WINDOW for switch {@code guid} (a member), txid left 0: the same bytes for every ring size
     * (docs/protocol.md, section 3.12).
     */
    public Message.DetectorWindow windowFor(long guid, boolean join) {
        return windowFor(guid, join, false);
    }

    /**
     * As above; {@code slots}: the agent takes the members that start dead (its HELLO set
     * {@code FEATURE_DETECTOR_SLOTS}), and the window names the slots vacant at this epoch's plan (appended, 4 bytes
     * each; none when no slot is vacant, so the bytes do not grow with the ring). A cold start needs them (every
     * member starts with the same dead set); a JOIN uses them only to skip vacant slots when it looks for a running
     * member to admit it (one δ per vacant successor otherwise), and then takes the view it is admitted with, in
     * which a slot filled since is alive at a higher incarnation.
     */
    public Message.DetectorWindow windowFor(long guid, boolean join, boolean slots) {
        int self = indexByGuid.get(guid);
        RingParameters p = parameters();
        RingHeartbeats heartbeats = new RingHeartbeats(settings.etaMs(), settings.deltaMs(),
                (int) p.pauseThreshold().toMillis(),
                p.overlay() == Overlay.HYPERCUBE ? Message.Overlay.HYPERCUBE : Message.Overlay.BMG, Message.Transport.UDP);
        RingSeat seat = new RingSeat(guids.size(), self,
                join ? Message.StartMode.JOIN : Message.StartMode.BOOTSTRAP, slots ? withoutSelf(deadAtStart, self) : new int[0]);
        return new Message.DetectorWindow(0, epoch, fingerprint, heartbeats, seat, directory.window(self), ringKey);
    }

    private static int[] withoutSelf(int[] members, int self) {
        return Arrays.stream(members).filter(m -> m != self).toArray();
    }

    /**
     * Answers switch {@code guid}'s DETECTOR_LOOKUP of {@code epoch}: the members asked for, or none when the
     * epoch is not the current one (its member is about to be replaced) or the switch is no member.
     */
    public Message.DetectorPeers lookup(int txid, long epoch, long guid, int[] members) {
        Integer asker = indexByGuid.get(guid);
        if (epoch != this.epoch || asker == null || directory == null) {
            return new Message.DetectorPeers(txid, this.epoch, List.of());
        }
        return new Message.DetectorPeers(txid, epoch, directory.lookup(asker, members));
    }

    /**
     * Member {@code guid} (restarted, joining the running ring) now listens at {@code endpoint}: the daemon's
     * member learns it at once; the switches that hold its previous address are returned with the update each
     * must be sent (no new epoch, the key stays). An endpoint another member has is refused (the member keeps
     * its previous one and the ring declares it dead, as for any member that does not heartbeat).
     *
     * @return switch GUID -> DETECTOR_PEERS update; empty when nothing moved
     */
    public Map<Long, Message.DetectorPeers> moved(long guid, InetSocketAddress endpoint) {
        Integer i = indexByGuid.get(guid);
        if (i == null || directory == null || member == null || endpoint.equals(directory.endpoint(i))) {
            return Map.of();
        }
        if (directory.takenByOther(i, endpoint)) {
            LOG.warn("failure detector: switch {} rejoins at {}, another member's endpoint: it keeps {} in this epoch",
                    Guids.format(guid), endpoint, directory.endpoint(i));
            return Map.of();
        }
        int[] holders = directory.moved(i, endpoint);
        member.learn(i, endpoint);
        Message.DetectorPeers update = new Message.DetectorPeers(0, epoch, List.of(directory.peer(i)));
        Map<Long, Message.DetectorPeers> out = new LinkedHashMap<>();
        for (int h : holders) {
            out.put(directory.guid(h), update);
        }
        LOG.info("failure detector: switch {} listens at {} (a restarted agent, a switch taking its vacant slot, or an endpoint that came after the plan); {} members told (epoch {} kept)", Guids.format(guid),
                endpoint, holders.length, epoch);
        return out;
    }

    /** Member {@code index} rejoined at {@code incarnation} (the daemon member's event). */
    public void rejoined(int index, long incarnation) {
        if (directory != null && index >= 0 && index < directory.size()) {
            directory.rejoined(index, incarnation);
        }
    }

    /** True when this epoch left {@code guid} out of the ring on purpose (its endpoint was another member's). */
    public boolean leftOut(long guid) {
        return leftOut.contains(guid);
    }

    /** The daemon member's dead set size now (0 without a ring). */
    public int deadCount() {
        return member == null ? 0 : member.snapshot().deadMembers().length;
    }

    /** How long a configuration's answer is waited for: the daemon member's grace would end anyway. */
    public long answerTimeoutMs() {
        return settings.startupGraceMs();
    }

    @Override
    public void close() {
        if (member != null) {
            member.close();
            member = null;
        }
        awaiting.clear();
        unconfirmed.clear();
        unwatched.clear();
        vacant.clear();
    }
}
