package org.fabricmanager.daemon.ha;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where the active manager of a term serves: its southbound address (for agents a standby redirects; none with
 * {@code southbound.enabled: false}) and
 * its REST base URL (for operators a standby's REST redirects). The elected member commits it through
 * Raft (state file {@value #FILE}) as soon as it is elected when the configuration fixes both ports (its
 * manager will listen where its standby listens), else once its manager's listeners are bound, so every
 * standby learns the actual addresses; a standby uses it only while its term and node are the leader it
 * knows, never a deposed leader's.
 *
 * @param nodeId     the member that leads
 * @param term       the Raft term it leads
 * @param southbound {@code HOST:PORT} agents connect to, {@code null} for a group without a southbound
 * @param rest       e.g. {@code https://mgmt2:7680}
 */
public record LeaderEndpoints(String nodeId, long term, String southbound, String rest) {
    /** The replicated state file holding the current leader's endpoints. */
    static final String FILE = "ha-leader";
    /** Far above any real content: four short lines. */
    static final int MAX_BYTES = 1024;
    private static final Pattern HOST_PORT = Pattern.compile("[A-Za-z0-9._:\\[\\]-]{1,253}:[0-9]{1,5}");
    private static final Pattern URL = Pattern.compile("https?://[A-Za-z0-9._:\\[\\]-]{1,253}:[0-9]{1,5}");
    private static final Pattern NODE = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public LeaderEndpoints {
        if (nodeId == null || !NODE.matcher(nodeId).matches()) {
            throw new IllegalArgumentException("leader endpoints: bad node id " + nodeId);
        }
        if (term < 1) {
            throw new IllegalArgumentException("leader endpoints: term " + term);
        }
        if (southbound != null && !HOST_PORT.matcher(southbound).matches()) {
            throw new IllegalArgumentException("leader endpoints: southbound '" + southbound + "' is not HOST:PORT");
        }
        if (rest == null || !URL.matcher(rest).matches()) {
            throw new IllegalArgumentException("leader endpoints: rest '" + rest + "' is not http(s)://HOST:PORT");
        }
    }

    byte[] encode() {
        return ("nodeId=" + nodeId + "\nterm=" + term + (southbound == null ? "" : "\nsouthbound=" + southbound) + "\nrest="
                + rest + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The endpoints in {@code content}, or empty for anything this version did not write. */
    static Optional<LeaderEndpoints> decode(byte[] content) {
        if (content == null || content.length > MAX_BYTES) {
            return Optional.empty();
        }
        Map<String, String> fields = new HashMap<>();
        for (String line : new String(content, StandardCharsets.UTF_8).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                fields.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        try {
            return Optional.of(new LeaderEndpoints(fields.get("nodeId"), Long.parseLong(fields.getOrDefault("term", "0")),
                    fields.get("southbound"), fields.get("rest")));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
