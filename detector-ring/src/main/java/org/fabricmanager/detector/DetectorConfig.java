package org.fabricmanager.detector;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Everything one member process needs to join a ring over the network: the ring's size, the addresses
 * of the members it knows (all of them, or only its ring window: the rest is resolved on demand through
 * an {@link AddressResolver}), which member this process is, the algorithm parameters and how to start.
 * The caller spreads consecutive members over different failure domains.
 *
 * @param size        members in the ring, ≥ 2
 * @param addresses   UDP address of the members this process knows, by ring index; always its own
 * @param self        this member's index
 * @param parameters  η, δ, overlay and pause threshold
 * @param startMode   {@link StartMode#BOOTSTRAP} for a cold start of the ring, {@link StartMode#JOIN} otherwise
 * @param ringKey     the epoch's 32-byte key: every datagram is sealed and checked with it (HMAC-SHA-256, see
 *                    {@code docs/detector.md}); {@code null}: datagrams are not authenticated
 * @param fingerprint the ring's 32-bit fingerprint carried in every datagram (members of another ring are
 *                    ignored); the same on every member of one epoch
 * @param deadAtStart members already in the dead set D when this member starts, at incarnation 0, ascending: ring
 *                    slots whose process is not there yet (nobody suspects them, no verdict is raised; one joins
 *                    its slot with {@link StartMode#JOIN}). Every member of a {@link StartMode#BOOTSTRAP} must be
 *                    given the same set, or their view digests differ until anti-entropy merges them
 */
public record DetectorConfig(int size, Map<Integer, InetSocketAddress> addresses, int self, RingParameters parameters,
                             StartMode startMode, byte[] ringKey, int fingerprint, int[] deadAtStart) {
    /** Length of a ring key. */
    public static final int KEY_BYTES = 32;

    /** A ring whose datagrams are not authenticated (experiments, tests on one host). */
    public DetectorConfig(List<InetSocketAddress> members, int self, RingParameters parameters, StartMode startMode) {
        this(members, self, parameters, startMode, null);
    }

    /** A ring whose every member's address is known, in ring order (index i is member i). */
    public DetectorConfig(List<InetSocketAddress> members, int self, RingParameters parameters, StartMode startMode,
                          byte[] ringKey) {
        this(Objects.requireNonNull(members, "members").size(), byIndex(members), self, parameters, startMode, ringKey,
                fingerprint(members, parameters));
    }

    /** A ring in which every member starts alive. */
    public DetectorConfig(int size, Map<Integer, InetSocketAddress> addresses, int self, RingParameters parameters,
                          StartMode startMode, byte[] ringKey, int fingerprint) {
        this(size, addresses, self, parameters, startMode, ringKey, fingerprint, new int[0]);
    }

    public DetectorConfig {
        if (ringKey != null && ringKey.length != KEY_BYTES) {
            throw new IllegalArgumentException("a ring key has " + KEY_BYTES + " bytes, got " + ringKey.length);
        }
        ringKey = ringKey == null ? null : ringKey.clone();
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(startMode, "startMode");
        if (size < 2) {
            throw new IllegalArgumentException("a ring needs at least 2 members, got " + size);
        }
        if (self < 0 || self >= size) {
            throw new IllegalArgumentException("self index " + self + " is not a member (0.." + (size - 1) + ")");
        }
        Map<Integer, InetSocketAddress> copy = new TreeMap<>();
        Set<InetSocketAddress> seen = new HashSet<>();
        for (Map.Entry<Integer, InetSocketAddress> e : Objects.requireNonNull(addresses, "addresses").entrySet()) {
            int i = e.getKey();
            if (i < 0 || i >= size) {
                throw new IllegalArgumentException("address of member " + i + ", outside the ring of " + size);
            }
            if (!seen.add(Objects.requireNonNull(e.getValue(), "address of member " + i))) {
                throw new IllegalArgumentException("member " + i + " repeats address " + e.getValue());
            }
            copy.put(i, e.getValue());
        }
        if (!copy.containsKey(self)) {
            throw new IllegalArgumentException("member " + self + " does not know its own address");
        }
        addresses = Collections.unmodifiableMap(copy);
        deadAtStart = Objects.requireNonNull(deadAtStart, "deadAtStart").clone();
        for (int k = 0; k < deadAtStart.length; k++) {
            int m = deadAtStart[k];
            if (m < 0 || m >= size || m == self || (k > 0 && m <= deadAtStart[k - 1])) {
                throw new IllegalArgumentException("member " + m + " cannot start dead (ring of " + size + ", self "
                        + self + ", ascending and distinct)");
            }
        }
    }

    /** A copy of the members that start dead. */
    @Override
    public int[] deadAtStart() {
        return deadAtStart.clone();
    }

    /** This configuration with {@code members} (ascending) in the dead set from the start. */
    public DetectorConfig withDeadAtStart(int[] members) {
        return new DetectorConfig(size, addresses, self, parameters, startMode, ringKey, fingerprint, members);
    }

    private static Map<Integer, InetSocketAddress> byIndex(List<InetSocketAddress> members) {
        Map<Integer, InetSocketAddress> m = new TreeMap<>();
        for (int i = 0; i < members.size(); i++) {
            m.put(i, members.get(i));
        }
        return m;
    }

    /** A copy of the ring key, or {@code null}. */
    @Override
    public byte[] ringKey() {
        return ringKey == null ? null : ringKey.clone();
    }

    /** The address of member {@code i}, or {@code null} when this configuration does not carry it. */
    public InetSocketAddress address(int i) {
        return addresses.get(i);
    }

    /**
     * A 32-bit fingerprint of a ring (addresses in order and overlay): whoever knows the whole ring (the
     * daemon) computes it and gives it to members that know only their window.
     */
    public static int fingerprint(List<InetSocketAddress> members, RingParameters parameters) {
        int h = 0x9E3779B9 ^ members.size();
        for (InetSocketAddress a : members) {
            h = 31 * h + a.getPort();
            h = 31 * h + (a.getAddress() != null ? a.getAddress().hashCode() : a.getHostString().hashCode());
        }
        return 31 * h + parameters.overlay().ordinal();
    }
}
