package org.fabricmanager.detector;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Everything one member process needs to join a ring over the network: the members' addresses in
 * ring order (index i is member i; the caller spreads consecutive members over different failure
 * domains), which of them this process is, the algorithm parameters and how to start.
 *
 * @param members    UDP address of every member, in ring order; identical on every member
 * @param self       this member's index in {@code members}
 * @param parameters η, δ, overlay and pause threshold
 * @param startMode  {@link StartMode#BOOTSTRAP} for a cold start of the ring, {@link StartMode#JOIN} otherwise
 * @param ringKey    the epoch's 32-byte key: every datagram is sealed and checked with it (HMAC-SHA-256, see
 *                   {@code docs/detector.md}); {@code null}: datagrams are not authenticated
 */
public record DetectorConfig(List<InetSocketAddress> members, int self, RingParameters parameters, StartMode startMode,
                             byte[] ringKey) {
    /** Length of a ring key. */
    public static final int KEY_BYTES = 32;

    /** A ring whose datagrams are not authenticated (experiments, tests on one host). */
    public DetectorConfig(List<InetSocketAddress> members, int self, RingParameters parameters, StartMode startMode) {
        this(members, self, parameters, startMode, null);
    }

    public DetectorConfig {
        if (ringKey != null && ringKey.length != KEY_BYTES) {
            throw new IllegalArgumentException("a ring key has " + KEY_BYTES + " bytes, got " + ringKey.length);
        }
        ringKey = ringKey == null ? null : ringKey.clone();
        members = List.copyOf(Objects.requireNonNull(members, "members"));
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(startMode, "startMode");
        if (members.size() < 2) {
            throw new IllegalArgumentException("a ring needs at least 2 members, got " + members.size());
        }
        if (self < 0 || self >= members.size()) {
            throw new IllegalArgumentException("self index " + self + " is not a member (0.." + (members.size() - 1) + ")");
        }
        Set<InetSocketAddress> seen = new HashSet<>();
        for (int i = 0; i < members.size(); i++) {
            if (!seen.add(members.get(i))) {
                throw new IllegalArgumentException("member " + i + " repeats address " + members.get(i));
            }
        }
    }

    /** A copy of the ring key, or {@code null}. */
    @Override
    public byte[] ringKey() {
        return ringKey == null ? null : ringKey.clone();
    }

    public int size() {
        return members.size();
    }

    /**
     * A 32-bit fingerprint of the ring (addresses in order and overlay), carried in every datagram so
     * that members configured with different rings ignore each other instead of corrupting their views.
     */
    public int fingerprint() {
        int h = 0x9E3779B9 ^ members.size();
        for (InetSocketAddress a : members) {
            h = 31 * h + a.getPort();
            h = 31 * h + (a.getAddress() != null ? a.getAddress().hashCode() : a.getHostString().hashCode());
        }
        return 31 * h + parameters.overlay().ordinal();
    }
}
