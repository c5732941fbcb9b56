"""The seeded fault campaign against three managers on Raft (chaos-campaign.py --ha).

Three `fabric-manager run` processes with `ha.enabled` (docs/operations.md, "High availability") and one `simulate`
that knows all three southbound addresses; with --tls, mutual TLS on the southbound and on the Raft port. Beside the
agents lab's faults, while all three members run, a step may stop the leader (SIGTERM), kill it (kill -9), freeze
it (SIGSTOP) or kill a standby. A member stopped or killed stays down, and a frozen one frozen, through the next
steps' faults (the group runs on two) until a later step starts it again or lets it run (SIGCONT). A member frozen
longer than ha.pauseLimitMs (60 s) must then stop with status 1, and is started again 5 s later as systemd would; any
other end of a member's process that no step caused is a violation. Every read and
action goes to the member that says it leads. Besides the agents lab's checks:
  - at every quiet point exactly one member says it leads and runs the manager, and every running member agrees;
  - all along, a watcher asks every running member four times a second whether it runs a manager: two in one term,
    or two whose commit counters rise together, is a violation; a deposed leader still running its manager beside
    the new one (a frozen leader let run again before it heard of its successor) is counted with how long it lasted;
  - a takeover with nothing else in the step moves no entry and sends no block: the new leader continues from the
    stored routing, it never routes from scratch; when the leader went before the routing in force was stored (a
    quiet second after it converged) the new leader routes the changes since the stored one again, and the entries
    that moved are counted, not judged;
  - the time from the leader's stop, kill or freeze to a new leader elected, and to the new leader CONVERGED with
    every live switch's table confirmed, by kind;
  - every running member's resources (RSS, heap after a full GC, threads, file descriptors, its state directory with
    the Raft log, the shared log's bytes) go to resources.csv, a row per member every 10 steps.
"""
import os
import re
import signal
import statistics
import subprocess
import time

import chaos_lib
from chaos_ha_group import PAUSE_LIMIT_S, RESTART_S, HaDaemons, Watch
from chaos_lib import Violation

ROLES_BOUND_S = 60
REHEARSAL_BOUND_S = 120
TAKEOVERS = ("restart", "kill -9", "freeze")
GROUP = TAKEOVERS + ("standby kill", "manager start", "thaw")


class HaCampaign(chaos_lib.Campaign):
    LAST = GROUP

    def __init__(self, args):
        super().__init__(args)
        detector = ""
        if args.detector_ms:
            detector = "faults:\n  detector:\n    deltaMs: %d\n    secondOpinionMs: %d\n" % (
                args.detector_ms, args.detector_ms)
        # the Raft timeout as tolerant of a loaded host as the ring (the default, 500 ms, otherwise)
        self.daemon = HaDaemons(self.work, args.pgft, detector, max(500, args.detector_ms or 0), self.pki)
        self.resources = open(os.path.join(self.work, "resources.csv"), "w")
        self.resources.write("elapsed_s,step,member,role,rss_kb,heap_used_kb,threads,fds,state_bytes,log_bytes\n")
        self.watch = Watch(self.daemon.members)
        self.failover = {}  # kind -> [(s to a new leader elected, s to it CONVERGED)]
        self.takeovers = 0  # leader changes no step of the campaign caused
        self.leader_id = None
        self.cause = None  # the takeover of the step under way: (kind, time it began, the member hit, blocks before)
        self.timed = False  # the takeover under way has been timed
        self.planned = False  # a step on the group is drawn for the burst being drawn
        self.last_tables = None
        self.pure = 0  # takeovers alone in their step, checked to move nothing
        self.rehearsals = {}  # a member's pid -> ms of its process's rehearsed manager start
        self.unstored = []  # per takeover alone whose leader went before its routing was stored: the entries moved
        self.pause_stops = 0  # members frozen beyond ha.pauseLimitMs that stopped when let run, started again

    def start_lab(self):
        super().start_lab()
        self.watch.start()

    def start_switches(self, connect=None):
        super().start_switches(self.daemon.connect)

    def stop_lab(self):
        self.watch.stop()
        self.daemon.stop_all()
        if self.sim is not None:
            self.sim.send_signal(signal.SIGTERM)
            try:
                self.sim.wait(30)
            except Exception:
                self.sim.kill()

    # ---- the steps on the group --------------------------------------------------------------------------

    def base_kinds(self):
        return ["cable down"] * 4 + ["switch off"] * 2 + ["drain"] * 2 + ["rebalance"]

    def more_kinds(self):
        members = self.daemon.members
        if self.planned:
            return []  # one step on the group per burst
        if any(m.frozen for m in members):
            return ["thaw"] * 4
        if any(m.proc is None for m in members):
            return ["manager start"] * 4
        return ["restart", "kill -9"] * 2 + ["freeze", "standby kill"]

    def choose(self):
        event = super().choose()
        if event[0] in GROUP:
            self.planned = True
        return event

    def after_events(self):
        self.planned = False

    def apply_more(self, event):
        kind, d = event[0], self.daemon
        if kind == "standby kill":
            leader = d.leader()
            standbys = [m for m in d.members if m is not leader and m.running()]
            m = self.rng.choice(standbys)
            d.stop_member(m, signal.SIGKILL)
            self.say("killed the standby %s" % m.id)
        elif kind == "manager start":
            for m in d.members:
                if m.proc is None:
                    m.start()
                    d.starts += 1
                    self.say("started %s again" % m.id)
        elif kind == "thaw":
            for m in d.members:
                if m.frozen:
                    paused = m.thaw()
                    self.say("let %s run again after %.0f s" % (m.id, paused))
                    if paused > PAUSE_LIMIT_S + 2:
                        self.restart_paused(m, paused)
        return None

    def restart_paused(self, m, paused):
        """A member frozen beyond ha.pauseLimitMs stops once it runs (its Raft server closes itself) and exits with
        status 1; systemd starts it again (reap)."""
        try:
            m.proc.wait(ROLES_BOUND_S)
        except subprocess.TimeoutExpired:
            raise Violation("%s, frozen %.0f s (ha.pauseLimitMs %d s), still runs %d s after it was let run"
                            % (m.id, paused, PAUSE_LIMIT_S, ROLES_BOUND_S))
        self.reap()

    def reap(self):
        """A member whose process ended with no step stopping it is a crash, unless it stopped with status 1 after a
        pause beyond the limit, or within 2 s of it (the pause the member measures is not exactly the campaign's):
        that one is started again, as systemd would."""
        for m, code in self.daemon.exited():
            if code != 1 or m.paused_s < PAUSE_LIMIT_S - 2:
                raise Violation("%s exited with status %s, no step stopped it" % (m.id, code))
            paused = m.paused_s
            self.pause_stops += 1
            self.daemon.restart_member(m)
            self.say("%s stopped after its pause of %.0f s (status 1) and was started again %d s later"
                     % (m.id, paused, RESTART_S))

    def apply(self, event):
        kind = event[0]
        if kind not in TAKEOVERS:
            return super().apply(event)
        d = self.daemon
        m = d.leader()
        if m is None:
            raise Violation("no leader to %s" % kind)
        blocks = {x.id: x.metric("fabric_push_blocks_total") or 0 for x in d.members if x is not m and x.running()}
        # the routing in force is written a quiet second after it converged (RoutingManager.STORE_QUIET_MS): a
        # leader lost before that leaves its successor the routing before, from which it routes the changes again
        st = m.status()
        in_force = st["routing"]["version"] if st else -1
        stored = max([x.stored_version() for x in d.members if x is not m and x.running()] or [0])
        self.cause, self.timed = (kind, time.time(), m, blocks, stored >= in_force), False
        if kind == "freeze":
            m.freeze()
        else:
            d.stop_member(m, signal.SIGTERM if kind == "restart" else signal.SIGKILL)
        self.say("%s of the leader %s" % ({"restart": "SIGTERM", "kill -9": "kill -9", "freeze": "SIGSTOP"}[kind],
                                           m.id))
        return None

    def describe(self, event):
        if event[0] in TAKEOVERS:
            return "leader " + {"restart": "SIGTERM", "kill -9": "kill -9", "freeze": "freeze"}[event[0]]
        return super().describe(event)

    # ---- the oracle --------------------------------------------------------------------------------------

    def alone(self):
        return bool(self.steps) and " + " not in self.steps[-1]

    def time_takeover(self):
        """From the leader's stop, kill or freeze to another member leading, and to it CONVERGED with every live
        switch connected and its table confirmed (tables.inSync)."""
        kind, began, hit = self.cause[:3]
        live = len(self.live())
        elected = None
        while time.time() < began + chaos_lib.QUIET_BOUND_S:
            for m in self.daemon.members:
                if m is hit or not m.running():
                    continue
                h = m.ha()
                if not h or h.get("role") != "LEADER":
                    continue
                elected = elected or time.time() - began
                st = m.status() if h.get("active") else None
                if st and chaos_lib.settled(st, live):
                    m_ = self.model
                    # a new leader ends discovery at once on the whole fabric, else after discovery.settleMs
                    key = (kind if self.alone() else kind + " in a burst") + (
                        "" if not (m_.down or m_.dead or m_.drained) else ", fabric degraded")
                    self.failover.setdefault(key, []).append((elected, time.time() - began))
                    self.say("%s: elected in %.2f s, CONVERGED with %d tables confirmed in %.2f s"
                             % (key, elected, live, time.time() - began))
                    return
            time.sleep(0.05)
        raise Violation("no new leader CONVERGED within %d s of the %s" % (chaos_lib.QUIET_BOUND_S, kind))

    def quiet(self):
        if self.cause is not None and not self.timed:
            self.timed = True
            self.time_takeover()
        status = super().quiet()
        self.one_leader()
        self.await_rehearsals()
        return status

    def await_rehearsals(self):
        """Waits until every running standby has rehearsed its manager's start in its process, which it does once
        after it starts or is deposed (7-20 s of CPU on this host), so that a takeover is timed on a group at
        rest; a rehearsal that fails (a WARN in the log) only leaves the takeover cold, and is waited for no longer
        than the bound."""
        deadline = time.time() + REHEARSAL_BOUND_S
        for m in self.daemon.members:
            if not m.running() or m.id == self.leader_id or m.proc.pid in self.rehearsals:
                continue
            while time.time() < deadline:
                ms = m.rehearsed()
                if ms is not None:
                    self.rehearsals[m.proc.pid] = ms
                    break
                time.sleep(0.5)
            else:
                self.say("%s has not rehearsed a manager start within %d s" % (m.id, REHEARSAL_BOUND_S))

    def one_leader(self):
        """Exactly one member says it is the leader, it runs the manager, and every running member agrees."""
        deadline = time.time() + ROLES_BOUND_S
        seen = None
        while time.time() < deadline:
            self.reap()
            views = {m.id: m.ha() for m in self.daemon.members if m.running()}
            leaders = [i for i, h in views.items() if h and h.get("role") == "LEADER"]
            agreed = all(h and h.get("leaderId") == (leaders[0] if leaders else None) for h in views.values())
            seen = views
            if len(leaders) == 1 and views[leaders[0]].get("active") and agreed:
                if self.leader_id is not None and leaders[0] != self.leader_id and self.cause is None:
                    self.takeovers += 1
                    self.say("takeover no step caused: %s -> %s" % (self.leader_id, leaders[0]))
                self.leader_id = leaders[0]
                return
            time.sleep(0.5)
        raise Violation("not exactly one active leader agreed by every running member within %d s: %s"
                        % (ROLES_BOUND_S, str(seen)[:600]))

    def read_tables(self):
        tables = super().read_tables()
        self.read = tables
        return tables

    def check(self, event, status):
        if self.watch.violation:
            raise Violation(self.watch.violation)
        try:
            super().check(event, status)
        except Violation:
            leader = self.daemon.leader()
            if leader is not None and leader.id == self.leader_id:
                raise
            # the group elected another leader during the reading (a member started or let run again took the
            # leadership): the step is judged again at the new leader's quiet point
            self.say("the leader changed during the check: judged again at the next quiet point")
            status = self.quiet()
            super().check(event, status)
        if self.cause is not None and self.alone() and self.last_tables is not None:
            moved = chaos_lib.moved(self.read, self.last_tables)
            if not self.cause[4]:
                self.unstored.append(moved)
                self.say("the leader went before its routing in force was stored: %d entries moved" % moved)
                self.last_tables, self.cause = self.read, None
                return
            self.pure += 1
            if moved or self.read.keys() != self.last_tables.keys():
                raise Violation("a takeover (%s) with nothing else changed moved %d entries, now v%d"
                                % (self.cause[0], moved, status["routing"]["version"]))
            leader = self.daemon.leader()
            blocks = leader.metric("fabric_push_blocks_total") if leader else None
            sent = blocks - self.cause[3].get(leader.id, 0) if blocks is not None else 0
            if sent > 0:
                raise Violation("a takeover (%s) with nothing else changed: the new leader %s sent %d blocks to "
                                "switches that held its routing" % (self.cause[0], leader.id, sent))
        self.last_tables = self.read
        self.cause = None

    def sample(self, step):
        for m in self.daemon.members:
            if not m.running():
                continue
            taken = chaos_lib.process_resources(m.proc.pid)
            if taken is None:
                continue
            role = "leader" if m.id == self.leader_id else "standby"
            self.resources.write("%.0f,%d,%s,%s,%d,%d,%d,%d,%d,%d\n" % (
                (time.time() - self.begin, step, m.id, role) + taken
                + (chaos_lib.dir_bytes(m.state), self.log_bytes())))
        self.resources.flush()

    def summary(self):
        stale = len(re.findall(r"STALE_TERM", open(os.path.join(self.work, "run.err"), errors="replace").read()))
        overlaps = self.watch.overlaps
        parts = ["takeovers alone in their step %d (none moved an entry or sent a block)" % self.pure,
                 "leader changes no step caused %d" % self.takeovers,
                 "watcher rounds %d, two managers at once (different terms) %d%s" % (
                     self.watch.rounds, len(overlaps),
                     ", longest %.2f s (%s)" % max(overlaps) if overlaps else ""),
                 "STALE_TERM in the log %d" % stale,
                 "takeovers alone before the routing in force was stored %d, entries moved %s" % (
                     len(self.unstored), self.unstored),
                 "members frozen beyond ha.pauseLimitMs, stopped when let run and started again %d" % self.pause_stops]
        if self.rehearsals:
            r = sorted(self.rehearsals.values())
            parts.append("manager starts rehearsed %d, %d / %d / %d ms (min / median / max)"
                         % (len(r), r[0], statistics.median(r), r[-1]))
        for kind, times in sorted(self.failover.items()):
            el, conv = [t[0] for t in times], [t[1] for t in times]
            parts.append("%s: %d, elected %.2f / %.2f / %.2f s, CONVERGED %.2f / %.2f / %.2f s (min / median / max)"
                         % (kind, len(times), min(el), statistics.median(el), max(el), min(conv),
                            statistics.median(conv), max(conv)))
        return "; ".join(parts)
