package org.fabricmanager.daemon.api;

import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/fabric/graph}: the fabric as the status page draws it. Switches by level (1 = leaves,
 * 0 = not placed: no leaf reaches it, or it joined after the last routing) and group (the pod below the top
 * level; consecutive blocks of switches at the top level and in two-level fabrics), each with its
 * {@link SwitchState}; the groups with their worst state and counts (what the page draws when drawing every
 * switch would be unreadable); and the switch-to-switch cables that are not up. Switches that left the
 * fabric keep the place they had, so a dead switch stays where it was.
 *
 * @param version        the routing version in force (0: not routed yet)
 * @param engine         the routing engine
 * @param daemonState    the daemon's state
 * @param switchCount    switches listed
 * @param states         switches per state (every state present, 0 included)
 * @param topLevel       the highest level
 * @param switches       every switch, by level, group, then GUID
 * @param groups         every (level, group) that has switches
 * @param links          cables per state ({@code up}, {@code failed}, {@code quarantined}, {@code drained})
 * @param downLinks      the cables not up, failed ones first, at most {@link #MAX_DOWN_LINKS}
 * @param downLinksTotal the cables not up in all (more than listed when truncated)
 */
public record FabricGraph(long version, String engine, DaemonState daemonState, int switchCount,
                          Map<SwitchState, Integer> states, int topLevel, List<Node> switches, List<Group> groups,
                          Map<String, Integer> links, List<Cable> downLinks, int downLinksTotal) {

    /** Most cables listed in {@link #downLinks}, so the answer stays small when a whole pod loses power. */
    public static final int MAX_DOWN_LINKS = 1000;

    /** One switch: where the page draws it and how it colours it. */
    public record Node(String guid, String name, int level, int group, SwitchState state) {
    }

    /** The switches of one level in one group: how many, per state, and the worst. */
    public record Group(int level, int group, String label, int switches, SwitchState worst,
                        Map<SwitchState, Integer> states) {
    }

    /**
     * A cable between two switches and its state: {@code failed} (a port down or an end gone), {@code quarantined} or
     * {@code drained} (by an operator, or with a switch at its end).
     */
    public record Cable(String a, String aName, int aPort, String b, String bName, int bPort, String state) {
    }
}
