"""The seeded fault campaign against three managers on Raft (chaos-campaign.py --ha).

Three `fabric-manager run` processes with `ha.enabled` (docs/operations.md, "High availability") and one `simulate`
that knows all three southbound addresses. The campaign's steps are those of the agents lab, but a restart or a
`kill -9` hits the active manager (the Raft leader), which is started again at once and rejoins as a standby; a
freeze stops the leader with SIGSTOP until another member has taken over and converged, then lets it run again.
Every read and action goes to the member that says it is the leader. Besides the agents lab's checks:
  - at every quiet point exactly one member says it is the leader, and it is the one that runs the manager;
  - a takeover with nothing else in the step moves no entry (the new leader continues the stored routing): each
    one that does is counted and listed, not fatal;
  - the time from the leader's kill or freeze to the new leader CONVERGED with every switch in sync is recorded,
    and leader changes the campaign did not cause are counted (takeovers).
"""
import json
import os
import signal
import statistics
import subprocess
import time
import urllib.request

import chaos_lib
from chaos_lib import FM, Violation, free_port

MEMBERS = 3
ROLES_BOUND_S = 60


class Member:
    def __init__(self, work, spec, index, extra):
        self.id = "n%d" % (index + 1)
        self.work, self.spec, self.extra = work, spec, extra
        self.sb, self.rest, self.raft = free_port(), free_port(), free_port()
        self.url = "http://127.0.0.1:%d" % self.rest
        self.state = os.path.join(work, "state-" + self.id)
        self.config = os.path.join(work, "fabric-manager-%s.yaml" % self.id)
        self.proc = None
        self.frozen = False

    def write_config(self, peers, election_ms):
        with open(self.config, "w") as f:
            f.write(chaos_lib.daemon_yaml(self.spec, self.state, self.sb, self.rest) + """ha:
  enabled: true
  nodeId: %s
  peers: [%s]
  electionTimeoutMs: %d
""" % (self.id, peers, election_ms) + self.extra)

    def start(self):
        # the three members log to the campaign's run.out and run.err (appended whole lines): the ring's verdicts
        # are read from there whichever member was active
        self.proc = subprocess.Popen([FM, "run", "--config", self.config],
                                     stdout=open(os.path.join(self.work, "run.out"), "ab"),
                                     stderr=open(os.path.join(self.work, "run.err"), "ab"), start_new_session=True)

    def ha(self):
        try:
            with urllib.request.urlopen(self.url + "/api/v1/ha", timeout=3) as r:
                return json.loads(r.read())
        except (OSError, ValueError):
            return None


class HaDaemons(chaos_lib.Daemon):
    """The three members seen as the campaign's one daemon: reads and actions go to the leader; `stop` stops the
    leader (the member the campaign kills), `start` starts every member that is not running."""

    def __init__(self, work, spec, extra, election_ms):
        super().__init__(work, spec, extra)
        self.members = [Member(work, spec, i, extra) for i in range(MEMBERS)]
        peers = ", ".join('"%s=127.0.0.1:%d"' % (m.id, m.raft) for m in self.members)
        for m in self.members:
            m.write_config(peers, election_ms)
        self.sb = None
        self.current = None

    @property
    def connect(self):
        return ",".join("127.0.0.1:%d" % m.sb for m in self.members)

    def leader(self):
        """The member that says it is the leader and runs the manager, or None."""
        if self.current is not None and not self.current.frozen and self.current.proc is not None:
            h = self.current.ha()
            if h and h.get("role") == "LEADER" and h.get("active"):
                return self.current
        for m in self.members:
            if m.proc is None or m.frozen:
                continue
            h = m.ha()
            if h and h.get("role") == "LEADER" and h.get("active"):
                self.current = m
                return m
        return None

    @property
    def proc(self):
        m = self.leader()
        return m.proc if m else None

    @proc.setter
    def proc(self, value):
        pass  # the members keep their own processes

    def start(self):
        for m in self.members:
            if m.proc is None:
                self.starts += 1
                m.start()

    def stop(self, sig):
        m = self.leader()
        if m is not None:
            self.stop_member(m, sig)

    def stop_member(self, m, sig):
        if m.frozen:
            m.proc.send_signal(signal.SIGCONT)
            m.frozen = False
        chaos_lib.end(m.proc, sig)
        m.proc = None

    def stop_all(self):
        for m in self.members:
            if m.proc is not None:
                self.stop_member(m, signal.SIGTERM)

    def _leader_url(self):
        deadline = time.time() + 10
        while time.time() < deadline:
            m = self.leader()
            if m is not None:
                return m.url
            time.sleep(0.2)
        return None

    def get(self, path):
        url = self._leader_url()
        if url is None:
            return None
        self.url = url
        return super().get(path)

    def post(self, path, body):
        url = self._leader_url()
        if url is None:
            return None
        self.url = url
        return super().post(path, body)


class HaCampaign(chaos_lib.Campaign):
    def __init__(self, args):
        super().__init__(args)
        detector = ""
        if args.detector_ms:
            detector = "faults:\n  detector:\n    deltaMs: %d\n    secondOpinionMs: %d\n" % (
                args.detector_ms, args.detector_ms)
        # the Raft timeout as tolerant of a loaded host as the ring (the default, 500 ms, otherwise)
        self.daemon = HaDaemons(self.work, args.pgft, detector, max(500, args.detector_ms or 0))
        self.failover = {}  # kind -> seconds from the leader's kill or freeze to the new leader converged
        self.takeovers = 0  # leader changes no step of the campaign caused
        self.leader_id = None
        self.cause = None  # the failover of the step under way: (kind, time it began, the member hit)
        self.last_tables = None
        self.moving = []  # takeovers with nothing else changed that moved entries

    def start_switches(self):
        self.sim = subprocess.Popen([FM, "simulate", "--pgft", self.args.pgft, "--connect", self.daemon.connect,
                                     "--commands"], stdin=subprocess.PIPE,
                                    stdout=open(os.path.join(self.work, "simulate.out"), "ab"),
                                    stderr=subprocess.STDOUT, start_new_session=True)

    def stop_lab(self):
        self.daemon.stop_all()
        if self.sim is not None:
            self.sim.send_signal(signal.SIGTERM)
            try:
                self.sim.wait(30)
            except subprocess.TimeoutExpired:
                self.sim.kill()

    def base_kinds(self):
        return ["cable down"] * 4 + ["switch off"] * 2 + ["drain"] * 2 + ["rebalance"] + ["restart", "kill -9"] * 2

    def more_kinds(self):
        return ["freeze", "standby kill"]

    def apply(self, event):
        kind = event[0]
        if kind in ("restart", "kill -9", "freeze"):
            if any(m.frozen for m in self.daemon.members):
                return "skipped"  # the leader was frozen by an earlier event of the burst
            m = self.daemon.leader()
            if m is None:
                raise Violation("no leader to %s" % kind)
            self.cause = (kind, time.time(), m)
        return super().apply(event)

    def apply_more(self, event):
        kind = event[0]
        if kind == "freeze":
            m = self.cause[2]
            m.proc.send_signal(signal.SIGSTOP)
            m.frozen = True
            self.say("froze the leader %s" % m.id)
        elif kind == "standby kill":
            standbys = [m for m in self.daemon.members if m is not self.daemon.leader() and m.proc is not None]
            if standbys:
                m = self.rng.choice(standbys)
                self.daemon.stop_member(m, signal.SIGKILL)
                m.start()
                self.daemon.starts += 1
        return None

    def quiet(self):
        status = super().quiet()
        if self.cause is not None:
            kind, began, hit = self.cause
            self.failover.setdefault(kind, []).append(time.time() - began)
            if hit.frozen:
                hit.proc.send_signal(signal.SIGCONT)
                hit.frozen = False
                status = super().quiet()
        self.one_leader()
        return status

    def one_leader(self):
        """Exactly one member says it is the leader, it runs the manager, and every running member agrees."""
        deadline = time.time() + ROLES_BOUND_S
        seen = None
        while time.time() < deadline:
            views = {m.id: m.ha() for m in self.daemon.members if m.proc is not None}
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
        raise Violation("not exactly one active leader agreed by every member within %d s: %s"
                        % (ROLES_BOUND_S, json.dumps(seen)[:600]))

    def read_tables(self):
        tables = super().read_tables()
        self.read = tables
        return tables

    def check(self, event, status):
        try:
            super().check(event, status)
        except Violation:
            leader = self.daemon.leader()
            if leader is not None and leader.id == self.leader_id:
                raise
            # the group elected another leader during the reading (a standby killed as another came back leaves the
            # leader without a majority for a moment): the step is judged again at the new leader's quiet point
            self.say("the leader changed during the check: judged again at the next quiet point")
            status = self.quiet()
            super().check(event, status)
        pure = self.cause is not None and len(self.steps[-1].split(" + ")) == 1 if self.steps else False
        if pure and self.last_tables is not None and self.read != self.last_tables:
            # counted, not fatal: a leader killed before it stored its last routing leaves its successor the one
            # before (docs/chaos.md), and the campaign goes on to find what else there is
            moved = sum(1 for s in self.read for a, b in zip(self.read[s], self.last_tables.get(s, b"")) if a != b)
            self.moving.append("step %d %s: %d entries, now v%d" % (len(self.steps), self.cause[0], moved,
                                                                     status["routing"]["version"]))
            self.say("a takeover (%s) with nothing else changed moved %d entries" % (self.cause[0], moved))
        self.last_tables = self.read
        self.cause = None

    def summary(self):
        parts = ["takeovers no step caused %d" % self.takeovers,
                 "takeovers that moved entries %d%s" % (len(self.moving), " (%s)" % ", ".join(self.moving)
                                                        if self.moving else "")]
        for kind, times in sorted(self.failover.items()):
            parts.append("%s: %d, to converged %.1f / %.1f / %.1f s (min / median / max)"
                         % (kind, len(times), min(times), statistics.median(times), max(times)))
        return "; ".join(parts)
