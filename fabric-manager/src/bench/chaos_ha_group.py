"""The three managers on Raft of chaos_ha.py: each member as a process, the group seen as the campaign's one daemon,
and the watcher that looks for two managers at once."""
import json
import os
import re
import signal
import subprocess
import threading
import time
import urllib.request

import chaos_lib
from chaos_lib import FM, free_port

MEMBERS = 3
PAUSE_LIMIT_S = 60  # ha.pauseLimitMs (its default): a member frozen longer stops when let run again
RESTART_S = 5  # the unit's RestartSec


class Member:
    def __init__(self, work, spec, index, extra, pki):
        self.id = "n%d" % (index + 1)
        self.work, self.spec, self.extra, self.pki = work, spec, extra, pki
        self.sb, self.rest, self.raft = free_port(), free_port(), free_port()
        self.url = "http://127.0.0.1:%d" % self.rest
        self.state = os.path.join(work, "state-" + self.id)
        self.config = os.path.join(work, "fabric-manager-%s.yaml" % self.id)
        self.proc = None
        self.frozen = False
        self.frozen_at = None
        self.paused_s = 0  # how long it stood still when last let run
        self.out_from = 0

    def write_config(self, peers, election_ms):
        with open(self.config, "w") as f:
            f.write(chaos_lib.daemon_yaml(self.spec, self.state, self.sb, self.rest, self.pki) + """ha:
  enabled: true
  nodeId: %s
  peers: [%s]
  electionTimeoutMs: %d
  pauseLimitMs: %d
""" % (self.id, peers, election_ms, PAUSE_LIMIT_S * 1000) + self.extra)

    def start(self):
        out = os.path.join(self.work, "run.out")
        self.out_from = os.path.getsize(out) if os.path.exists(out) else 0
        # the three members log to the campaign's run.out and run.err (appended whole lines): the ring's verdicts
        # are read from there whichever member was active
        self.proc = subprocess.Popen([FM, "run", "--config", self.config],
                                     stdout=open(os.path.join(self.work, "run.out"), "ab"),
                                     stderr=open(os.path.join(self.work, "run.err"), "ab"), start_new_session=True)

    def rehearsed(self):
        """The ms of this process's rehearsed manager start (docs/operations.md, "Hot standby"), None before it."""
        with open(os.path.join(self.work, "run.out"), "rb") as f:
            f.seek(self.out_from)
            found = re.search(r"hot %s: manager start rehearsed in (\d+) ms" % self.id,
                              f.read().decode("utf-8", "replace"))
        return int(found.group(1)) if found else None

    def running(self):
        """Whether the member runs and is not frozen: only such a member answers."""
        return self.proc is not None and not self.frozen and self.proc.poll() is None

    def freeze(self):
        self.frozen, self.frozen_at = True, time.time()  # before the signal: the watcher no longer asks it
        self.proc.send_signal(signal.SIGSTOP)

    def thaw(self):
        """Lets a frozen member run again; the seconds it stood still."""
        self.proc.send_signal(signal.SIGCONT)
        self.frozen = False
        self.paused_s = time.time() - self.frozen_at
        return self.paused_s

    def stored_version(self):
        """The version of the routing this member's state directory holds (routing.state, docs/formats.md), 0 when
        none: a member applies only committed entries, so what a standby holds is what a successor starts from."""
        return chaos_lib.stored_version(self.state)

    def _get(self, path, timeout=3):
        try:
            with urllib.request.urlopen(self.url + path, timeout=timeout) as r:
                return r.read()
        except (OSError, ValueError):
            return None

    def ha(self):
        body = self._get("/api/v1/ha")
        try:
            return json.loads(body) if body else None
        except ValueError:
            return None

    def status(self):
        body = self._get("/api/v1/status")
        try:
            return json.loads(body) if body else None
        except ValueError:
            return None

    def metric(self, name):
        """The sum of a counter's series in this member's /metrics, 0 when it has none, None when unanswered."""
        body = self._get("/metrics", timeout=5)
        if body is None:
            return None
        total = 0.0
        for line in body.decode("utf-8", "replace").splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                total += float(line.rsplit(" ", 1)[1])
        return total


class HaDaemons(chaos_lib.Daemon):
    """The three members seen as the campaign's one daemon: reads and actions go to the active leader; `start` starts
    every member that is not running, `stop_member` stops one."""

    def __init__(self, work, spec, extra, election_ms, pki):
        super().__init__(work, spec, extra, pki)
        self.members = [Member(work, spec, i, extra, pki) for i in range(MEMBERS)]
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
        order = ([self.current] if self.current is not None else []) + self.members
        for m in order:
            if m.running():
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
            m.thaw()
        chaos_lib.end(m.proc, sig)
        m.proc = None

    def exited(self):
        """The members whose process ended without the campaign stopping it, with their exit status."""
        return [(m, m.proc.returncode) for m in self.members
                if m.proc is not None and not m.frozen and m.proc.poll() is not None]

    def restart_member(self, m):
        """Starts a member whose process ended again, as systemd's Restart=on-failure would."""
        time.sleep(RESTART_S)
        m.paused_s = 0
        m.start()
        self.starts += 1

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


class Watch(threading.Thread):
    """Asks every running member four times a second whether it runs a manager, for the whole campaign. Two members
    running one in the same term, or two managers whose commit counters both rose between two rounds, is a
    violation (kept for the campaign's next check); two running one in different terms (a deposed leader that has
    not heard of its successor yet, such as a frozen leader let run again) is an overlap, counted with its length."""

    PERIOD_S = 0.25

    def __init__(self, members):
        super().__init__(daemon=True, name="leader-watch")
        self.members = members
        self.stopped = threading.Event()
        self.violation = None
        self.rounds = 0
        self.overlaps = []  # (seconds, the members and their terms)
        self.since = None
        self.who = None
        self.commits = {}

    def stop(self):
        self.stopped.set()
        self.join(10)

    def run(self):
        while not self.stopped.wait(self.PERIOD_S):
            active = {}
            for m in list(self.members):
                if m.running():
                    h = m.ha()
                    if h and h.get("active"):
                        active[m.id] = (h.get("term"), m)
            self.rounds += 1
            now = time.time()
            if len(active) < 2:
                if self.since is not None:
                    self.overlaps.append((now - self.since, self.who))
                    self.since = None
                self.commits = {}
                continue
            terms = [t for t, _ in active.values()]
            who = ", ".join("%s term %s" % (i, t) for i, (t, _) in sorted(active.items()))
            if len(set(terms)) < len(terms):
                self.violation = self.violation or "two members run a manager in one term: " + who
            if self.since is None:
                self.since, self.who = now, who
            commits = {i: m.metric("fabric_push_commits_total") for i, (_, m) in active.items()}
            rising = [i for i, c in commits.items()
                      if c is not None and self.commits.get(i) is not None and c > self.commits[i]]
            if len(rising) >= 2:
                self.violation = self.violation or "two managers sent commits at once: " + who
            self.commits = commits
