package org.fabricmanager.daemon.opensm;

/**
 * Why the daemon refuses a frame of OpenSM's plug-in, as the code of a REFUSED frame: the plug-in acts on the code
 * alone (docs/opensm.md, "The plug-in's protocol"), never on the reason that comes with it.
 */
public enum Refusal {
    /** A hot standby takes the leadership over: the plug-in waits for the socket and asks OpenSM to re-route. */
    MOVING(1),
    /** No tables for this subnet now (a standby, or the routing not done in time): the daemon asks for a pass later. */
    NOT_READY(2),
    /** The subnet cannot be taken as sent: OpenSM routes with its next engine until the fabric changes. */
    INVALID(3),
    /** The frame is above {@code opensm.maxSubnetBytes}: as {@link #INVALID}. */
    TOO_LARGE(4);

    private final int code;

    Refusal(int code) {
        this.code = code;
    }

    /** The code on the wire. */
    public int code() {
        return code;
    }

    /** The refusal of {@code code}, or {@code null} for a code this release does not know. */
    public static Refusal of(int code) {
        for (Refusal r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        return null;
    }
}
