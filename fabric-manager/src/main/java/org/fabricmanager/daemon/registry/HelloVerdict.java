package org.fabricmanager.daemon.registry;

/**
 * What the registry makes of a HELLO for a GUID: a new switch, or one that already has a session,
 * which the newcomer may take over only from a run at least as recent.
 *
 * @param existing the switch holding the GUID's session, or {@code null} for {@link Kind#NEW}
 */
public record HelloVerdict(Kind kind, ManagedSwitch existing) {

    /** The cases of a HELLO. */
    public enum Kind {
        /** No session holds the GUID. */
        NEW,
        /** The same agent run reconnects (equal incarnation) while its old connection still looks open. */
        RECONNECT,
        /** A restarted agent (higher incarnation) supersedes the session of its previous run. */
        RESTART,
        /** An older run than the session's: a second device configured with the same GUID; refused. */
        OLDER
    }

    /** True when the HELLO takes over an existing session. */
    public boolean takesOver() {
        return kind == Kind.RECONNECT || kind == Kind.RESTART;
    }
}
