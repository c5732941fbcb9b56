package org.fabricmanager.daemon.faults;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.fabricmanager.southbound.Message.DetectorPeer;

/**
 * Who is where in one ring epoch, as the agents' members learn it: each agent is told its ring window
 * ({@value #WINDOW} members on each side, the walk back over consecutive failures without asking), and asks
 * for any other member's address when it needs it. The directory remembers who asked for whom, so that
 * when a member moves (its agent restarted on another endpoint) only the agents that hold its address are
 * told. Bytes per agent are therefore independent of the ring's size. Used on the control thread only.
 */
public final class RingDirectory {
    /**
     * Members on each side of an agent that its configuration names. The detector's bound covers
     * f = floor(log2 n) - 1 consecutive failures, each walked back over one at a time; 16 covers that for
     * rings of up to 2^17 members, and a longer walk asks for the next address on demand.
     */
    public static final int WINDOW = 16;
    /**
     * Lookups remembered per asking agent. A member asks for its 2 log2 n overlay neighbours at start and for a
     * few more after failures; an agent asking for more than this is not told when those members move (its member
     * then finds them silent and asks again): the directory's memory stays O(n), whatever an agent sends.
     */
    static final int MAX_REMEMBERED_PER_ASKER = 1_024;

    private final long[] guids;
    private final InetSocketAddress[] endpoints;
    private final long[] incarnations;
    private final Map<Long, Integer> indexByGuid = new HashMap<>();
    /** Members whose address an agent asked for (outside its window): member -> the askers' indices. */
    private final Map<Integer, Set<Integer>> askedBy = new HashMap<>();
    /** How many lookups each agent has remembered in {@link #askedBy}. */
    private final int[] remembered;

    /** The epoch's members in ring order with their endpoints (index 0: the daemon). */
    public RingDirectory(List<Long> guids, List<InetSocketAddress> endpoints) {
        if (guids.size() != endpoints.size() || guids.size() < 2) {
            throw new IllegalArgumentException("a ring of " + guids.size() + " members and " + endpoints.size()
                    + " endpoints");
        }
        int n = guids.size();
        this.guids = new long[n];
        this.endpoints = endpoints.toArray(new InetSocketAddress[0]);
        this.incarnations = new long[n];
        this.remembered = new int[n];
        for (int i = 0; i < n; i++) {
            this.guids[i] = guids.get(i);
            indexByGuid.put(this.guids[i], i);
        }
    }

    public int size() {
        return guids.length;
    }

    /** The ring index of {@code guid}, or -1. */
    public int indexOf(long guid) {
        Integer i = indexByGuid.get(guid);
        return i == null ? -1 : i;
    }

    public InetSocketAddress endpoint(int i) {
        return endpoints[i];
    }

    /** The members within {@link #WINDOW} of {@code self} on either side, itself included, ascending by index. */
    public List<DetectorPeer> window(int self) {
        int n = guids.length;
        TreeSet<Integer> members = new TreeSet<>();
        for (int d = -Math.min(WINDOW, n - 1); d <= Math.min(WINDOW, n - 1); d++) {
            members.add(Math.floorMod(self + d, n));
        }
        List<DetectorPeer> out = new ArrayList<>(members.size());
        for (int i : members) {
            out.add(peer(i));
        }
        return out;
    }

    /** True when {@code member} lies in {@code agent}'s window. */
    boolean inWindow(int agent, int member) {
        int n = guids.length;
        int d = Math.floorMod(member - agent, n);
        return Math.min(d, n - d) <= WINDOW;
    }

    /**
     * Answers agent {@code asker}'s lookup: the members of {@code members} that exist, ascending, each at most
     * once; remembers that the asker holds their addresses.
     */
    public List<DetectorPeer> lookup(int asker, int[] members) {
        TreeSet<Integer> wanted = new TreeSet<>();
        for (int m : members) {
            if (m >= 0 && m < guids.length) {
                wanted.add(m);
            }
        }
        List<DetectorPeer> out = new ArrayList<>(wanted.size());
        for (int m : wanted) {
            if (!inWindow(asker, m) && remembered[asker] < MAX_REMEMBERED_PER_ASKER
                    && askedBy.computeIfAbsent(m, k -> new HashSet<>()).add(asker)) {
                remembered[asker]++;
            }
            out.add(peer(m));
        }
        return out;
    }

    /**
     * Member {@code i} now listens at {@code endpoint}.
     *
     * @return the agents (ring indices, not the daemon nor {@code i}) that hold its previous address and must be
     *         told: its window and whoever asked for it; empty when the endpoint did not change
     */
    public int[] moved(int i, InetSocketAddress endpoint) {
        if (endpoint.equals(endpoints[i])) {
            return new int[0];
        }
        endpoints[i] = endpoint;
        TreeSet<Integer> holders = new TreeSet<>(askedBy.getOrDefault(i, Set.of()));
        int n = guids.length;
        for (int d = -Math.min(WINDOW, n - 1); d <= Math.min(WINDOW, n - 1); d++) {
            holders.add(Math.floorMod(i + d, n));
        }
        holders.remove(i);
        holders.remove(0);
        return holders.stream().mapToInt(Integer::intValue).toArray();
    }

    /** True when another member than {@code i} listens at {@code endpoint}. */
    public boolean takenByOther(int i, InetSocketAddress endpoint) {
        for (int j = 0; j < endpoints.length; j++) {
            if (j != i && endpoint.equals(endpoints[j])) {
                return true;
            }
        }
        return false;
    }

    /** Member {@code i} rejoined at {@code incarnation} (from the daemon member's view). */
    public void rejoined(int i, long incarnation) {
        if (incarnation > incarnations[i]) {
            incarnations[i] = incarnation;
        }
    }

    public long guid(int i) {
        return guids[i];
    }

    /** Member {@code i} as the agents are told about it. */
    public DetectorPeer peer(int i) {
        return new DetectorPeer(i, guids[i], incarnations[i], endpoints[i].getAddress(), endpoints[i].getPort());
    }
}
