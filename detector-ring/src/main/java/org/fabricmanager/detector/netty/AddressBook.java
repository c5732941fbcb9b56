package org.fabricmanager.detector.netty;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabricmanager.detector.AddressResolver;
import org.fabricmanager.detector.DetectorConfig;
import org.fabricmanager.detector.message.RingMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the ring members that one member deals with are: their addresses, from its configuration and then
 * learned; when each unknown one was last asked of the {@link AddressResolver}, so that a lookup is repeated at
 * most every δ; and the messages that wait for their receiver's address (at most {@value #MAX_WAITING_PER_MEMBER}
 * per member, {@value #MAX_WAITING_MEMBERS} members; beyond, a message is dropped like a lost datagram). What it
 * keeps per member is by their slot ({@link MemberSlots}), so its memory grows with the members it deals with, not
 * with the ring. Not thread-safe: the member's event loop.
 */
final class AddressBook {
    private static final Logger LOG = LoggerFactory.getLogger(AddressBook.class);
    /** Messages kept per member whose address is being resolved. */
    static final int MAX_WAITING_PER_MEMBER = 8;
    /** Members whose address may be awaited at once. */
    static final int MAX_WAITING_MEMBERS = 128;

    private final DetectorConfig config;
    private final AddressResolver resolver;
    /** Members in the ring. */
    private final int ringSize;
    /** The members this one deals with: its configuration's, those it sent to or heard from, those it asked for. */
    private final MemberSlots peers;
    /** By slot: the member's address as far as known, from the configuration, then learned; {@code null}: unknown. */
    private InetSocketAddress[] peerAddress;
    /** By slot: when the member's address was last asked for (0: never), so a lookup is repeated at most every δ. */
    private long[] peerAsked;
    /** The inverse of the addresses, so that learning an address costs O(1), not O(n). */
    private final Map<InetSocketAddress, Integer> memberByAddress = new HashMap<>();
    /** Messages waiting for their receiver's address. */
    private final Map<Integer, ArrayDeque<RingMessage>> waiting = new HashMap<>();

    AddressBook(DetectorConfig config, AddressResolver resolver) {
        this.config = config;
        this.resolver = resolver;
        this.ringSize = config.size();
        this.peers = new MemberSlots(config.addresses().size() + 32);
        this.peerAddress = new InetSocketAddress[config.addresses().size() + 32];
        this.peerAsked = new long[peerAddress.length];
        config.addresses().forEach((i, a) -> {
            setAddress(i, a);
            memberByAddress.put(a, i);
        });
    }

    /** Member {@code m}'s address as far as known, {@code null} when unknown. */
    InetSocketAddress address(int m) {
        int slot = peers.find(m);
        return slot < 0 ? null : peerAddress[slot];
    }

    /**
     * Records that member {@code m} is at {@code address} (a member that held it before has moved away: its
     * address is asked for again when needed).
     *
     * @return the messages that waited for it, in their order; empty when none did
     */
    Collection<RingMessage> learn(int m, InetSocketAddress address) {
        Integer previousHolder = memberByAddress.get(address);
        if (previousHolder != null && previousHolder != m) {
            setAddress(previousHolder, null);
        }
        InetSocketAddress previous = address(m);
        if (previous != null) {
            memberByAddress.remove(previous);
        }
        setAddress(m, address);
        memberByAddress.put(address, m);
        ArrayDeque<RingMessage> held = waiting.remove(m);
        return held == null ? List.of() : held;
    }

    /** Keeps {@code message} until member {@code to}'s address is learned, and asks for it. */
    void hold(int to, RingMessage message) {
        ArrayDeque<RingMessage> held = waiting.get(to);
        if (held == null && waiting.size() < MAX_WAITING_MEMBERS) {
            held = new ArrayDeque<>();
            waiting.put(to, held);
        }
        if (held != null) {
            if (held.size() == MAX_WAITING_PER_MEMBER) {
                held.poll(); // the newest view matters most; the ring tolerates lost datagrams
            }
            held.add(message);
        }
        resolve(to);
    }

    /** Asks for member {@code m}'s address unless it was asked for less than δ ago. */
    void resolve(int m) {
        long now = System.nanoTime() | 1;
        long last = asked(m);
        if (last != 0 && now - last < config.parameters().suspicionTimeout().toNanos()) {
            return;
        }
        setAsked(m, now);
        try {
            resolver.resolve(new int[] {m});
        } catch (RuntimeException e) {
            LOG.warn("member {}: cannot ask for member {}'s address: {}", config.self(), m, e.toString());
        }
    }

    /**
     * Asks at once for the members a failure-free broadcast reaches from here (self ± 2^j, the neighbours of
     * both overlays while nobody is dead) and the ring's witness, so that the first broadcast or notice does not
     * wait for lookups.
     */
    void prefetchOverlayPeers() {
        int n = ringSize;
        int[] ask = new int[64];
        int count = 0;
        int witness = config.parameters().witness();
        if (witness >= 0 && witness < n && address(witness) == null) {
            // the witness is told of every suspicion this member starts: a notice must not wait for a lookup
            setAsked(witness, System.nanoTime() | 1);
            ask[count++] = witness;
        }
        for (long step = 1; step < n && count + 2 <= ask.length; step <<= 1) {
            for (long peer : new long[] {config.self() + step, config.self() - step + n}) {
                int p = (int) (peer % n);
                if (address(p) == null && asked(p) == 0) {
                    setAsked(p, System.nanoTime() | 1);
                    ask[count++] = p;
                }
            }
        }
        if (count > 0) {
            resolver.resolve(Arrays.copyOf(ask, count));
        }
    }

    /** The number of members whose address is known (the window, then whatever was learned). */
    int knownAddresses() {
        int known = 0;
        for (int slot = 0; slot < peers.size(); slot++) {
            known += peerAddress[slot] == null ? 0 : 1;
        }
        return known;
    }

    /** The members anything is kept about (configured, asked for, sent to or heard from). */
    int size() {
        return peers.size();
    }

    private void setAddress(int m, InetSocketAddress address) {
        int slot = slotOf(m); // first: it may grow the array, and a[slotOf(m)] = x would write the old one
        peerAddress[slot] = address;
    }

    private void setAsked(int m, long nanos) {
        int slot = slotOf(m);
        peerAsked[slot] = nanos;
    }

    /** When member {@code m}'s address was last asked for, 0 when never. */
    private long asked(int m) {
        int slot = peers.find(m);
        return slot < 0 ? 0 : peerAsked[slot];
    }

    /** Member {@code m}'s slot, given one (and room in the per-slot arrays) if it had none. */
    private int slotOf(int m) {
        int slot = peers.add(m);
        if (slot == peerAddress.length) {
            int grown = Math.min(ringSize, slot * 2);
            peerAddress = Arrays.copyOf(peerAddress, grown);
            peerAsked = Arrays.copyOf(peerAsked, grown);
        }
        return slot;
    }
}
