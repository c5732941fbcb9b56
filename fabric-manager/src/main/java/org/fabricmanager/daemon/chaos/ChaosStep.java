package org.fabricmanager.daemon.chaos;

/**
 * One step of a chaos schedule, as data: what happens to the fabric, the operator's actions, time passing, or a check
 * at the next quiet point. Cables and switches are named by their index in the intact fabric's order ({@link
 * ChaosOracle#cables()}, {@link org.fabricmanager.topology.Fabric#switches()}), so that a schedule is the same list
 * on every run of the same fabric. Each step has a short token ({@code down:3}, {@code pass:400@120}) that {@link
 * #parse} reads back: a schedule printed is a schedule that replays.
 */
public sealed interface ChaosStep {
    /** The step as its token. */
    String token();

    /** A cable unplugged. */
    record CableDown(int cable) implements ChaosStep {
        @Override
        public String token() {
            return "down:" + cable;
        }
    }

    /** A cable plugged back. */
    record CableUp(int cable) implements ChaosStep {
        @Override
        public String token() {
            return "up:" + cable;
        }
    }

    /** A cable unplugged and plugged back {@code downMs} later. */
    record Flap(int cable, int downMs) implements ChaosStep {
        @Override
        public String token() {
            return "flap:" + cable + "/" + downMs;
        }
    }

    /** A switch powered off: its agent's session ends, its table is gone. */
    record PowerOff(int sw) implements ChaosStep {
        @Override
        public String token() {
            return "off:" + sw;
        }
    }

    /** A switch powered back on, holding nothing. */
    record PowerOn(int sw) implements ChaosStep {
        @Override
        public String token() {
            return "on:" + sw;
        }
    }

    /** An operator drains a cable through the daemon's own action (which may refuse it). */
    record Drain(int cable) implements ChaosStep {
        @Override
        public String token() {
            return "drain:" + cable;
        }
    }

    /** An operator undrains a cable drained earlier. */
    record Undrain(int cable) implements ChaosStep {
        @Override
        public String token() {
            return "undrain:" + cable;
        }
    }

    /**
     * {@code ms} of virtual time pass; with {@code computeAt >= 0}, the routing computation under way (if any) finishes
     * {@code computeAt} ms into them.
     */
    record Pass(int ms, int computeAt) implements ChaosStep {
        @Override
        public String token() {
            return "pass:" + ms + (computeAt >= 0 ? "@" + computeAt : "");
        }
    }

    /** The agent of a switch restarts and reconnects; the switch kept its table and its cables. */
    record AgentRestart(int sw) implements ChaosStep {
        @Override
        public String token() {
            return "agent:" + sw;
        }
    }

    /** The daemon crashes and starts again on its state directory; the switches reconnect holding their tables. */
    record Restart() implements ChaosStep {
        @Override
        public String token() {
            return "restart";
        }
    }

    /**
     * The agent of a switch stops answering without closing its session (hung, its host frozen): the switch keeps
     * forwarding by its table, the frames sent to the agent wait unread, and the daemon hears nothing more from it.
     */
    record AgentHangs(int sw) implements ChaosStep {
        @Override
        public String token() {
            return "hang:" + sw;
        }
    }

    /**
     * A hung agent answers again: it reads the frames that waited on a session still open, or reconnects holding its
     * table when the daemon closed the session meanwhile.
     */
    record AgentResumes(int sw) implements ChaosStep {
        @Override
        public String token() {
            return "resume:" + sw;
        }
    }

    /** An operator drains a whole switch through the daemon's own action (which may refuse it). */
    record SwitchDrain(int sw) implements ChaosStep {
        @Override
        public String token() {
            return "sdrain:" + sw;
        }
    }

    /** An operator undrains a switch drained earlier. */
    record SwitchUndrain(int sw) implements ChaosStep {
        @Override
        public String token() {
            return "sundrain:" + sw;
        }
    }

    /** An operator asks the daemon what the failure of a switch ({@code sw}) or of a cable would do. */
    record WhatIf(boolean sw, int index) implements ChaosStep {
        @Override
        public String token() {
            return "whatif:" + (sw ? "s" : "c") + index;
        }
    }

    /**
     * The daemon reads its configuration again ({@code SIGHUP}): variant 0 is the configuration it started with, the
     * others change what a reload applies at run time ({@link ChaosReloads}).
     */
    record Reload(int variant) implements ChaosStep {
        @Override
        public String token() {
            return "reload:" + variant;
        }
    }

    /**
     * An operator asks the daemon to rebalance ({@code POST /api/v1/routing/rebalance}): the fabric routed again in
     * full, or the request refused while it changes.
     */
    record Rebalance() implements ChaosStep {
        @Override
        public String token() {
            return "rebalance";
        }
    }

    /**
     * The active manager of a hot-standby pair crashes and the standby takes over from the state the pair replicated
     * to it; every switch on reconnects to it holding its table.
     */
    record Failover() implements ChaosStep {
        @Override
        public String token() {
            return "failover";
        }
    }

    /** Runs until the next quiet point and has the oracle judge it. */
    record Check() implements ChaosStep {
        @Override
        public String token() {
            return "check";
        }
    }

    /** Reads a step from its token; {@link IllegalArgumentException} naming the token when it is none. */
    static ChaosStep parse(String token) {
        int colon = token.indexOf(':');
        String kind = colon < 0 ? token : token.substring(0, colon);
        String arg = colon < 0 ? "" : token.substring(colon + 1);
        try {
            return switch (kind) {
                case "down" -> new CableDown(Integer.parseInt(arg));
                case "up" -> new CableUp(Integer.parseInt(arg));
                case "flap" -> new Flap(Integer.parseInt(arg.substring(0, arg.indexOf('/'))),
                        Integer.parseInt(arg.substring(arg.indexOf('/') + 1)));
                case "off" -> new PowerOff(Integer.parseInt(arg));
                case "on" -> new PowerOn(Integer.parseInt(arg));
                case "drain" -> new Drain(Integer.parseInt(arg));
                case "undrain" -> new Undrain(Integer.parseInt(arg));
                case "pass" -> arg.contains("@")
                        ? new Pass(Integer.parseInt(arg.substring(0, arg.indexOf('@'))),
                                Integer.parseInt(arg.substring(arg.indexOf('@') + 1)))
                        : new Pass(Integer.parseInt(arg), -1);
                case "check" -> new Check();
                case "restart" -> new Restart();
                case "agent" -> new AgentRestart(Integer.parseInt(arg));
                case "hang" -> new AgentHangs(Integer.parseInt(arg));
                case "resume" -> new AgentResumes(Integer.parseInt(arg));
                case "sdrain" -> new SwitchDrain(Integer.parseInt(arg));
                case "sundrain" -> new SwitchUndrain(Integer.parseInt(arg));
                case "whatif" -> whatIf(token, arg);
                case "reload" -> new Reload(Integer.parseInt(arg));
                case "failover" -> new Failover();
                case "rebalance" -> new Rebalance();
                default -> throw new IllegalArgumentException("unknown step '" + token + "'");
            };
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException("malformed step '" + token + "'", e);
        }
    }

    private static WhatIf whatIf(String token, String arg) {
        if (arg.isEmpty() || (arg.charAt(0) != 's' && arg.charAt(0) != 'c')) {
            throw new IllegalArgumentException("malformed step '" + token + "': whatif:sS or whatif:cC");
        }
        return new WhatIf(arg.charAt(0) == 's', Integer.parseInt(arg.substring(1)));
    }
}
