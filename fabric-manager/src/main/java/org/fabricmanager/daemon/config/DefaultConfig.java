package org.fabricmanager.daemon.config;

/**
 * The default configuration as a commented YAML file: every option with its default value and what
 * it does. Printed by {@code fabric-manager run --print-default-config}; a test checks that it parses
 * back to {@link DaemonConfig#defaults()} and names every option.
 */
public final class DefaultConfig {
    private DefaultConfig() {
    }

    /** The commented YAML text. */
    public static String yaml() {
        DaemonConfig d = DaemonConfig.defaults();
        return """
                # fabric-manager daemon configuration (every option, at its default).
                # Durations are in milliseconds. Unknown keys are rejected.

                southbound:                 # where switch agents connect (docs/protocol.md)
                  enabled: %s               # false = no southbound at all (an OpenSM-only site, docs/opensm.md): no
                                              # port, no TLS files read for it; needs opensm.socket
                  bind: "%s"          # set it to the management-network address the agents reach; the default
                                              # (loopback) takes no remote agent; 0.0.0.0 = every interface (not advised)
                  port: %d                  # TCP port; 0 = pick a free port and print it
                  maxFrameBytes: %d        # largest frame accepted from an agent (1024..16777216)
                  handshakeTimeoutMs: %d    # HELLO..PORT_INFO must complete within this, from the TLS handshake's
                                              # completion (from the TCP connect without TLS)
                  echoIntervalMs: %d         # keepalive ECHO period; RTT shown per switch in REST
                  idleTimeoutMs: %d         # close a session that sent nothing for this long (> echoIntervalMs)
                  ioThreads: %d                # Netty I/O threads for agent connections
                  tlsHandshakesAtOnce: %d      # TLS handshakes in progress at once; other connections wait, unread
                  tlsQueueLength: %d         # connections waiting for a handshake slot; beyond it a connection is
                                              # closed at once (counted as rejected, reason busy; the agent backs off)
                  tlsQueueWaitMs: %d        # a connection whose turn comes after waiting longer is closed unread (busy)
                  tlsHandshakeTimeoutMs: %d # a TLS handshake must complete within this from its admission

                rest:                       # the REST API (docs/rest-api.md)
                  bind: "%s"          # address to listen on; keep it on loopback unless a proxy guards it
                  port: %d                  # TCP port; 0 = pick a free port and print it
                  ioThreads: %d                # Netty I/O threads for HTTP
                  adminToken: null          # bearer token for the POST actions; null = actions refused (403)
                  adminTokenFile: null      # or a file holding the token (mode 0600 or 0400; refused if others
                                              # may read it); not both
                  tls: null                 # HTTPS: {certFile: PEM chain, keyFile: PEM key (mode 0600)}; null = HTTP
                  maxConnections: %d       # connections open at once; more are closed as soon as accepted
                  idleTimeoutMs: %d      # close a connection with no request in progress after this long silent

                fabric:
                  expectedPgft: %s          # e.g. "PGFT(3;8,8,8;1,8,8;1,1,1)"; the discovered fabric is checked
                                              # against it (missing, extra, miswired) and routing starts as soon
                                              # as it is complete; null = no expectation
                  expectedHdft: %s          # e.g. "HDFT(8x8;4;1;1)": a 2-D fat tree, routed with vtftr and its
                                              # virtual-channel rules (docs/vtftr.md); excludes expectedPgft
                  admit: null               # which switches enter the fabric (docs/security.md): expected (the
                                              # default with expectedPgft: its switches, or as many as it has during
                                              # the first discovery), list (admitList only) or any; others wait,
                                              # pending, for POST /api/v1/switches/{guid}/admit
                  admitList: []             # switch GUIDs admitted without an admin
                  unreadyOnMismatch: %s   # a fabric that is not the expected PGFT (MISWIRED) makes /health/ready
                                              # answer 503 with the reason (it is still routed); false = only WARN

                discovery:                  # when the first routing starts
                  settleMs: %d              # ... once no switch or link appeared for this long
                  maxWaitMs: %d            # ... or at the latest this long after the first switch connected

                routing:
                  engine: %s          # routing engine (Dmodc with home planes, repairs as dmodc)
                  threads: %d                  # routing pool size; 0 = number of processors
                  settleMs: %d                # after a fabric change, wait this long to coalesce a burst into one re-route
                  onFault: %s             # repair: move only the entries a change forces (dmodc); recompute: route afresh
                  rebalance:                  # routing in full again after repairs (POST /api/v1/routing/rebalance)
                    quietPeriod: "%s"           # tables repaired and no change for this long (e.g. 30m): route in full
                    refineAfter: "%s"            # a repair converged, no change for this long: its moved entries to the
                                                 # engine's full routing's ports (dmodc-home; off: Dmodc's repair)

                push:                       # table installation (docs/protocol.md, section 6)
                  ackTimeoutMs: %d          # a commit not acknowledged within this is retried (timeout doubles per retry)
                  retries: %d                  # failures in a row before the switch is reported as failing (still retried)
                  maxInFlight: %d            # full tables' worth of batches on the wire at once (a smaller batch takes its
                                              # share); the others wait their turn, so that keepalives and ACKs are not queued
                                              # behind megabytes of blocks

                state:
                  directory: "%s"   # destination indices and stored routing (survives restarts)

                faults:                     # fault reaction (docs/architecture.md, "Fault path")
                  settleMs: %d                # fault events this close together, and during a computation, make one re-route
                                              # (ended after 5 ms once every changed link was reported by both its ends)
                  flapThreshold: %d            # a link going down more than this many times within flapWindowMs ...
                  flapWindowMs: %d         # ... is quarantined (kept down) ...
                  quarantineMs: %d        # ... until it has stayed up this long
                  detector:                 # ring-heartbeat failure detector in every agent and the daemon (docs/detector.md)
                    enabled: %s             # send DETECTOR_CONFIG to the agents and run the daemon's member (false:
                                            # dead switches are found by their sessions and neighbours' reports only)
                    etaMs: %d               # heartbeat period
                    deltaMs: %d             # suspicion timeout (>= 2 etaMs); a dead switch is known about delta later
                    overlay: %s               # broadcast overlay: bmg or hypercube
                    bind: "%s"        # the daemon member's UDP address (concrete: members check senders); with
                                            # remote agents, the management address, as southbound.bind
                    port: %d               # the daemon member's UDP port; 0 = any free one (kept across epochs)
                    agentPort: %d          # UDP port of every agent's member, at the address it connects from
                    startupGraceMs: %d     # cold start: the daemon's member waits this long at most for every agent's
                                            # member to run (ends 2 deltaMs after all agents answered); >= 2 deltaMs
                    secondOpinionMs: %d      # before routing around a switch the ring declares dead, wait this for its
                                            # agent to answer an echo (an answer refutes; a starved agent answers once it
                                            # runs again); a silent death costs deltaMs + this; 0 = off; <= deltaMs

                security:                   # who may speak for a switch (docs/security.md)
                  pkiDirectory: null        # directory made by 'fabric-manager pki init': daemon.crt, daemon.key (0600),
                                              # ca.crt; agents then need a certificate naming their GUID (mutual TLS 1.3)
                  certificate: null         # or name the files one by one (each overrides pkiDirectory's): the daemon's certificate
                  privateKey: null          # the daemon's PKCS#8 private key, mode 0600, owned by the daemon's user
                  trustedCas: null          # the CA bundle agents' certificates must chain to (old + new CA while rotating)
                  insecure: %s             # true = plaintext southbound, any host can impersonate any switch; 'run'
                                              # refuses to start without TLS files unless this is set (or the
                                              # southbound is disabled, without ha)
                  incarnationAheadMs: %d # refuse HELLOs whose incarnation (start time in us) is further ahead of
                                              # the daemon's clock than this (a GUID cannot be held beyond its agent's reach)
                  tlsProvider: %s          # the southbound's TLS engine: auto = OpenSSL (BoringSSL, native, several times
                                              # cheaper per handshake) when it loads and no key or CA is Ed25519, else
                                              # the JDK's; openssl = BoringSSL or refuse to start; jdk = the JDK's

                ha:                         # hot-standby managers on Raft (docs/operations.md, "High availability")
                  enabled: %s              # false = one daemon, no Raft; true = this daemon is one of ha.peers
                  nodeId: null              # this daemon's id among the peers, e.g. n1
                  peers: []                 # every member's Raft address, e.g. ["n1=mgmt1:7690", "n2=mgmt2:7690", "n3=mgmt3:7690"]
                  electionTimeoutMs: %d   # a standby that hears no leader for 1-2x this starts an election
                  snapshotEvery: %d         # committed state writes between two snapshots (the log before one is dropped)
                  pauseLimitMs: %d       # a member whose process stood still longer than this stops when it runs
                                              # again (exit status 1); its restart catches up

                opensm:                     # OpenSM's plug-in routes through this daemon (docs/opensm.md, "The daemon
                                              # as OpenSM's routing engine")
                  socket: null              # the Unix socket to listen on for the plug-in, e.g. /run/fabric-manager/opensm.sock
                  socketMode: "%s"          # the socket file's permissions: "0600" or "0660"
                  allowUsers: []            # users whose processes may connect (peer credentials); [] = root and this user
                  maxSubnetBytes: %d  # a longer subnet report is refused (TOO_LARGE) and its connection closed
                  socketGroup: null         # the socket file's group (null: this user's), e.g. fabric-manager-opensm
                """.formatted(d.southbound().enabled(), d.southbound().bind(), d.southbound().port(), d.southbound().maxFrameBytes(),
                d.southbound().handshakeTimeoutMs(), d.southbound().echoIntervalMs(), d.southbound().idleTimeoutMs(),
                d.southbound().ioThreads(), d.southbound().tlsHandshakesAtOnce(), d.southbound().tlsQueueLength(),
                d.southbound().tlsQueueWaitMs(), d.southbound().tlsHandshakeTimeoutMs(), d.rest().bind(), d.rest().port(), d.rest().ioThreads(),
                d.rest().maxConnections(), d.rest().idleTimeoutMs(),
                d.fabric().expectedPgft() == null ? "null" : "\"" + d.fabric().expectedPgft() + "\"",
                d.fabric().expectedHdft() == null ? "null" : "\"" + d.fabric().expectedHdft() + "\"",
                d.fabric().unreadyOnMismatch(),
                d.discovery().settleMs(), d.discovery().maxWaitMs(), d.routing().engine(), d.routing().threads(),
                d.routing().settleMs(), d.routing().onFault(), d.routing().rebalance().quietPeriod(),
                d.routing().rebalance().refineAfter(), d.push().ackTimeoutMs(), d.push().retries(), d.push().maxInFlight(), d.state().directory(),
                d.faults().settleMs(), d.faults().flapThreshold(), d.faults().flapWindowMs(), d.faults().quarantineMs(),
                d.faults().detector().enabled(), d.faults().detector().etaMs(), d.faults().detector().deltaMs(),
                d.faults().detector().overlay(), d.faults().detector().bind(), d.faults().detector().port(),
                d.faults().detector().agentPort(), d.faults().detector().startupGraceMs(),
                d.faults().detector().secondOpinionMs(), d.security().insecure(),
                d.security().incarnationAheadMs(), d.security().tlsProvider().option(), d.ha().enabled(), d.ha().electionTimeoutMs(), d.ha().snapshotEvery(),
                d.ha().pauseLimitMs(),
                d.opensm().socketMode(), d.opensm().maxSubnetBytes()) + linkHealth(d.linkHealth());
    }

    private static String linkHealth(LinkHealthSection h) {
        return """

                linkHealth:                 # gray links: a link that errors without going down (docs/operations.md,
                                              # "Gray links"), judged from both ends' port counters
                  policy: %s              # off; advise = LINK_SUSPECT events and the alert only; isolate = the
                                              # daemon drains a bad link itself (within the guards below) and gives it
                                              # back after probationMs healthy
                  pollIntervalMs: %d       # each switch's port counters are read this often (whole seconds): the
                                              # judgements' pace, and the age of GET /api/v1/switches/{guid}/ports
                  windowMs: %d            # error and packet counts are taken over this sliding window
                  loadPacketsPerSecond: %d  # a link with fewer packets a second is idle: its errors are set against
                                              # this many packets a second instead of its own (few errors idle: healthy)
                  minErrors: %d              # fewer errors of a counter in the window never count (noise)
                  suspectPpm:               # errors per million packets (same end, same direction) from which a
                                              # link is suspect, per counter
                    rxErrors: %d             # receive errors (an OpenSM switch: with remote physical and
                                              # constraint errors)
                    txErrors: %d             # transmit errors
                    rxDrops: %d             # receive drops (OpenSM: switch relay errors, VL15 drops)
                    txDrops: %d             # transmit discards
                  badPpm:                   # ... from which it is bad (each at least its suspectPpm)
                    rxErrors: %d            # receive errors
                    txErrors: %d            # transmit errors
                    rxDrops: %d            # receive drops
                    txDrops: %d            # transmit discards
                  badAfter: %d               # judgements in a row over badPpm before a link is bad (one per report of
                                              # either end, every 10 s)
                  healthyAfter: %d           # clean judgements in a row before a suspect or bad link is healthy again
                  maxIsolated: %d            # most links isolated by the policy at once (others: advice, loudly)
                  maxIsolatedPercent: %d     # ... and at most this share of the switch-to-switch links, in percent
                  settleMs: %d            # no isolation until the fabric has been converged this long
                  probationMs: %d        # an isolated link healthy this long is given back
                """.formatted(h.policy(), h.pollIntervalMs(), h.windowMs(), h.loadPacketsPerSecond(), h.minErrors(),
                h.suspectPpm().rxErrors(), h.suspectPpm().txErrors(), h.suspectPpm().rxDrops(), h.suspectPpm().txDrops(),
                h.badPpm().rxErrors(), h.badPpm().txErrors(), h.badPpm().rxDrops(), h.badPpm().txDrops(), h.badAfter(),
                h.healthyAfter(), h.maxIsolated(), h.maxIsolatedPercent(), h.settleMs(), h.probationMs());
    }
}
