"""The parts of the seeded fault campaigns (chaos-campaign.py): the model of the fabric, the daemon as a process,
and the campaign against simulated switches; chaos_opensm.py runs the same campaign against OpenSM under ibsim."""
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zlib

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FM = os.path.join(REPO, "bin", "fabric-manager")
TOKEN = "chaos-campaign-token-0123456789"
QUIET_BOUND_S = 90
UNSETTLED_TRIES = 3  # readings begun again in one check before the daemon's unrest is a violation


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Model:
    """The fabric as the campaign made it: the intact cabling, minus what it took down, powered off or drained."""

    def __init__(self, topology):
        self.switches = {s["guid"]: s for s in topology["switches"]}
        self.level = {g: int(s["name"][1:s["name"].index("-")]) for g, s in self.switches.items()}
        self.nodes = {n["guid"]: n["index"] for n in topology["nodes"]}
        self.peer = {}  # (switch, port) -> (guid, port); a node's end has port 0
        self.cables = []  # switch-to-switch cables as (a, aPort, b, bPort)
        for link in topology["links"]:
            a, ap, b, bp = link["a"], link["aPort"], link["b"], link["bPort"]
            self.peer[(a, ap)] = (b, bp)
            if b in self.switches:
                self.peer[(b, bp)] = (a, ap)
                self.cables.append((a, ap, b, bp))
        self.cable_at = {}  # (switch, port) -> the index of its switch-to-switch cable
        self.cables_of = {g: [] for g in self.switches}  # switch -> indices of its cables
        for c, (a, ap, b, bp) in enumerate(self.cables):
            self.cable_at[(a, ap)] = c
            self.cable_at[(b, bp)] = c
            self.cables_of[a].append(c)
            self.cables_of[b].append(c)
        self.node_port = {}  # node index -> (leaf, port)
        for (s, p), (g, _) in self.peer.items():
            if g in self.nodes:
                self.node_port[self.nodes[g]] = (s, p)
        self.down = set()  # cables (by index) taken down
        self.drained = set()  # cables drained
        self.dead = set()  # switches powered off
        self.cut = set()  # switches on but out of reach (under OpenSM: no path of cables from its own port)

    def gone(self, s):
        return s in self.dead or s in self.cut

    def cable_live(self, c):
        a, _, b, _ = self.cables[c]
        return c not in self.down and c not in self.drained and not self.gone(a) and not self.gone(b)

    def reach(self, start):
        """The switches joined to `start` by cables up (drained or not) between powered switches."""
        seen, stack = {start}, [start]
        while stack:
            u = stack.pop()
            for c in self.cables_of[u]:
                a, _, b, _ = self.cables[c]
                if c in self.down or a in self.dead or b in self.dead:
                    continue
                v = b if u == a else a
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return seen

    def next_hop(self, s, port):
        """Where port `port` of live switch `s` leads in the live fabric: ('node', index), ('switch', guid), None."""
        far = self.peer.get((s, port))
        if far is None:
            return None
        g, _ = far
        if g in self.nodes:
            return ("node", self.nodes[g])
        c = self.cable_at.get((s, port))
        return ("switch", g) if c is not None and self.cable_live(c) else None

    def routable(self):
        """For each live switch, the node indices it reaches by an up*/down* path of the live fabric, as a bit set."""
        live = [s for s in self.switches if not self.gone(s)]
        up = {s: [] for s in live}
        down = {s: [] for s in live}
        for c, (a, _, b, _) in enumerate(self.cables):
            if self.cable_live(c):
                lo, hi = (a, b) if self.level[a] < self.level[b] else (b, a)
                up[lo].append(hi)
                down[hi].append(lo)
        own = {s: 0 for s in live}
        for i, (leaf, _) in self.node_port.items():
            if leaf in own:
                own[leaf] |= 1 << i
        below = {}  # switch -> nodes reached going down only
        for s in sorted(live, key=lambda g: self.level[g]):
            bits = own[s]
            for d in down[s]:
                bits |= below[d]
            below[s] = bits
        reached = {}  # switch -> nodes reached going up, then down
        for s in sorted(live, key=lambda g: -self.level[g]):
            bits = below[s]
            for u in up[s]:
                bits |= reached[u]
            reached[s] = bits
        return reached


def end(proc, sig):
    """Sends `sig` to a daemon's process and waits for it, killing it after 60 s."""
    proc.send_signal(sig)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def make_pki(work):
    """A fabric CA and a daemon certificate naming 127.0.0.1 in WORK/pki, for every manager of the campaign (the Raft
    port checks that a peer's certificate names the address dialled); simulate issues the switches' with it."""
    pki = os.path.join(work, "pki")
    subprocess.run([FM, "pki", "init", "--dir", pki, "--daemon-ip", "127.0.0.1"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return pki


def daemon_yaml(spec, state, sb, rest, pki=None):
    """A daemon's configuration for the campaign: on loopback, plaintext or with the PKI of make_pki (mutual TLS),
    a 2 s settle window."""
    security = "  insecure: true" if pki is None else '  pkiDirectory: "%s"' % pki
    return """fabric:
  expectedPgft: "%s"
discovery:
  settleMs: 2000
  maxWaitMs: 30000
state:
  directory: "%s"
security:
%s
southbound:
  bind: "127.0.0.1"
  port: %d
rest:
  bind: "127.0.0.1"
  port: %d
  adminToken: "%s"
""" % (spec, state, security, sb, rest, TOKEN)


def process_resources(pid):
    """A JVM's RSS (kB), heap used after a full GC (kB, -1 unread), threads and file descriptors, or None if gone."""
    try:
        status = open("/proc/%d/status" % pid).read()
        rss = int([l for l in status.splitlines() if l.startswith("VmRSS")][0].split()[1])
        threads = int([l for l in status.splitlines() if l.startswith("Threads")][0].split()[1])
        fds = len(os.listdir("/proc/%d/fd" % pid))
    except (OSError, IndexError):
        return None
    heap = -1  # bin/fabric-manager execs the JVM: the daemon's pid is the JVM's
    subprocess.run(["jcmd", str(pid), "GC.run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run(["jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "used" in line and "total" in line:
            heap = int(line.split("used")[1].split("K")[0].strip())
            break
    return rss, heap, threads, fds


def dir_bytes(path):
    """The bytes of the files under `path` (a file removed during the walk, such as a Raft log segment, counts 0)."""
    total = 0
    for dp, _, fs in os.walk(path):
        for f in fs:
            try:
                total += os.path.getsize(os.path.join(dp, f))
            except OSError:
                pass
    return total


def moved(tables, before):
    """The entries in which two readings of every switch's table differ (a switch absent from `before` counts none)."""
    return sum(1 for s in tables for a, b in zip(tables[s], before.get(s, b"")) if a != b)


def stored_version(state):
    """The version of the routing a state directory holds, 0 when none: routing.state's (a 32-byte header, its body's
    CRC-32C at offset 24, then gzip of the fingerprint as str16 and the version as u64), or routing.delta's when it
    names that routing as its base (gzip of base version u64, base CRC u32, fingerprint str16, version u64;
    RoutingStateStore and RoutingDelta)."""
    def read(name, size):
        with open(os.path.join(state, name), "rb") as f:
            header = f.read(32)
            return header, zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(f.read(4096), size)
    try:
        header, body = read("routing.state", 512)
        n = struct.unpack(">H", body[:2])[0]
        version = struct.unpack(">Q", body[2 + n:10 + n])[0]
    except (OSError, zlib.error, struct.error):
        return 0
    try:
        _, delta = read("routing.delta", 1024)
        base, crc = struct.unpack(">QI", delta[:12])
        n = struct.unpack(">H", delta[12:14])[0]
        if (base, crc) == (version, struct.unpack(">I", header[24:28])[0]):
            return struct.unpack(">Q", delta[14 + n:22 + n])[0]
    except (OSError, zlib.error, struct.error):
        pass
    return version


class Daemon:
    def __init__(self, work, spec, extra="", pki=None):
        self.work, self.spec = work, spec
        self.sb, self.rest = free_port(), free_port()
        self.url = "http://127.0.0.1:%d" % self.rest
        with open(os.path.join(work, "fabric-manager.yaml"), "w") as f:
            f.write(daemon_yaml(spec, os.path.join(work, "state"), self.sb, self.rest, pki) + extra)
        self.proc = None
        self.starts = 0
        self.token = TOKEN

    def start(self):
        self.starts += 1
        out = open(os.path.join(self.work, "run.out"), "ab")
        err = open(os.path.join(self.work, "run.err"), "ab")
        self.proc = subprocess.Popen([FM, "run", "--config", os.path.join(self.work, "fabric-manager.yaml")],
                                     stdout=out, stderr=err, start_new_session=True)

    def stop(self, sig):
        if self.proc is None:
            return
        end(self.proc, sig)
        self.proc = None

    def get(self, path):
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as r:
                return json.loads(r.read())
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            return None

    def post(self, path, body):
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode() if body is not None else b"",
                                     method="POST", headers={"Authorization": "Bearer " + self.token,
                                                             "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return None


class Violation(Exception):
    pass


def settled(status, live):
    """Whether a status says CONVERGED with every one of the `live` switches connected and in sync."""
    return status["state"] == "CONVERGED" and status["switches"]["connected"] == live \
        and status["tables"]["inSync"] == live


class Unsettled(Exception):
    """The daemon left the quiet point a check began at while the check read the tables: not a violation, the step
    is judged again at the next quiet point."""


class Campaign:
    """The campaign against `fabric-manager simulate`; a subclass replaces the lab (its start and stop, what a
    cable or a switch's power does, how tables are read back) and may add events of its own."""

    LAST = ("restart", "kill -9")  # the events that come last in a burst, one at most

    def __init__(self, args, daemon_yaml=""):
        if getattr(args, "detector_ms", None):
            # a ring tolerant of a host too loaded for 100 ms heartbeats: the campaign is about correctness
            delta = args.detector_ms
            daemon_yaml += "faults:\n  detector:\n    deltaMs: %d\n    secondOpinionMs: %d\n" % (delta, delta)
        self.args = args
        self.rng = random.Random(args.seed)
        self.work = os.path.abspath(args.workdir)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.model = None
        self.pki = make_pki(self.work) if getattr(args, "tls", False) else None
        self.daemon = Daemon(self.work, args.pgft, daemon_yaml, self.pki)
        self.sim = None
        self.steps = []
        self.last_read = None  # the tables read at the last check
        self.restart_stored = None  # for a restart under way: whether the routing in force was stored when it stopped
        self.restarts_judged = 0  # restarts alone from the routing in force, none moved an entry
        self.restarts_unstored = []  # restarts alone from an older stored routing: the entries each moved
        self.intact_tables = None
        self.counts = {}
        self.resources = open(os.path.join(self.work, "resources.csv"), "w")
        self.resources.write("elapsed_s,step,rss_kb,heap_used_kb,threads,fds,state_bytes,log_bytes\n")
        self.begin = time.time()
        self.single_loss = False
        self.repair_version = 0
        self.log_seen = 0  # bytes of run.err read for verdicts
        self.refuted = 0  # ring verdicts an agent's echo refuted
        self.rejudged = 0  # checks begun again at the next quiet point (Unsettled)
        self.checks = 0  # checks that walked a sample of the destinations

    def say(self, text):
        print("%7.1f s  %s" % (time.time() - self.begin, text), flush=True)

    # ---- the lab: simulated switches ---------------------------------------------------------------------

    def intact_model(self):
        topo = os.path.join(self.work, "intact.json")
        subprocess.run([FM, "topology", "--pgft", self.args.pgft, "--format", "json", "--out", topo], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(topo) as f:
            return Model(json.load(f))

    def start_lab(self):
        self.model = self.intact_model()
        self.daemon.start()
        self.start_switches()

    def stop_lab(self):
        self.daemon.stop(signal.SIGTERM)
        if self.sim is not None:
            self.sim.send_signal(signal.SIGTERM)
            try:
                self.sim.wait(30)
            except subprocess.TimeoutExpired:
                self.sim.kill()

    def set_cable(self, c, up):
        a, ap, _, _ = self.model.cables[c]
        self.command("link %s %s %d" % ("up" if up else "down", a, ap))  # the simulator acts at both ends

    def set_power(self, s, on):
        self.command("revive %s" % s if on else "kill %s power" % s)

    def may_cut(self, c):
        """Whether the campaign may take cable `c` down or drain it."""
        return True

    def may_power_off(self, s):
        return self.model.level[s] > 1

    def base_kinds(self):
        """The events every lab takes, with their weights."""
        return ["cable down"] * 4 + ["switch off"] * 2 + ["drain"] * 2 + ["rebalance", "restart", "kill -9"]

    def more_kinds(self):
        """Events of a subclass's lab, with their weights."""
        return []

    def apply_more(self, event):
        return None

    def after_events(self):
        """Brings the model up to date with what the lab does by itself after the events."""

    def lab_ready(self, status):
        return True

    def read_tables(self):
        """Each live switch's table as its switch applied it: the port of every destination node, by index."""
        out = {}
        for s in self.live():
            lft = self.daemon.get("/api/v1/switches/%s/lft" % s)
            if lft is None or "entries" not in lft:
                raise Violation("no table read back for live switch %s: %s" % (s, lft))
            # a switch whose row a routing left unchanged keeps the version it applied last: in sync all the same
            if not lft["inSync"]:
                self.judge_out_of_sync(s, lft)
            out[s] = bytes(lft["entries"])  # ports 1-254, 255 for none: a byte each keeps 5,120 tables small
        return out

    def judge_out_of_sync(self, switch, lft):
        """A live switch's table read out of sync after a CONVERGED status. Reading thousands of tables takes minutes,
        and a starved host can make agents reconnect meanwhile: when the daemon's status no longer says CONVERGED with
        every live switch in sync, the daemon left its quiet point itself (Unsettled); when it still does, it is wrong
        about this switch (a Violation)."""
        live = len(self.live())
        st = self.daemon.get("/api/v1/status")
        if st is None or not settled(st, live):
            raise Unsettled("%s holds v%s of v%s; the daemon now says %s, %s of %d in sync"
                            % (switch, lft["appliedVersion"], lft["version"], st and st["state"],
                               st and st["tables"]["inSync"], live))
        raise Violation("CONVERGED but %s is not in sync (holds v%s of v%s)"
                        % (switch, lft["appliedVersion"], lft["version"]))

    def summary(self):
        """What the lab adds to the campaign's last line."""
        return ""

    def live(self):
        return [s for s in self.model.switches if not self.model.gone(s)]


    def start_switches(self, connect=None):
        tls = ["--pki", self.pki] if self.pki else []
        self.sim = subprocess.Popen([FM, "simulate", "--pgft", self.args.pgft, "--connect",
                                     connect or "127.0.0.1:%d" % self.daemon.sb, "--commands"] + tls,
                                    stdin=subprocess.PIPE, stdout=open(os.path.join(self.work, "simulate.out"), "ab"),
                                    stderr=subprocess.STDOUT, start_new_session=True)

    def command(self, line):
        self.sim.stdin.write((line + "\n").encode())
        self.sim.stdin.flush()

    # ---- events ----------------------------------------------------------------------------------------

    def choose(self):
        m, r = self.model, self.rng
        live_cables = [c for c in range(len(m.cables)) if m.cable_live(c) and self.may_cut(c)]
        kinds = self.base_kinds() + self.more_kinds()
        if m.down:
            kinds += ["cable up"] * 5
        if m.dead and "switch off" in kinds:
            kinds += ["switch on"] * 3
        if m.drained:
            kinds += ["undrain"] * 3
        kind = r.choice(kinds)
        if kind == "cable down" and live_cables:
            return ("cable down", r.choice(live_cables))
        if kind == "cable up":
            mendable = sorted(c for c in m.down if m.cables[c][0] not in m.dead and m.cables[c][2] not in m.dead)
            return ("cable up", r.choice(mendable)) if mendable else ("rebalance", None)
        if kind == "switch off":
            alive = sorted(s for s in m.switches if s not in m.dead and self.may_power_off(s))
            return ("switch off", r.choice(alive)) if alive else ("rebalance", None)
        if kind == "switch on":
            return ("switch on", r.choice(sorted(m.dead)))
        if kind == "drain" and live_cables:
            return ("drain", r.choice(live_cables))
        if kind == "undrain":
            return ("undrain", r.choice(sorted(m.drained)))
        if kind in ("restart", "kill -9") or kind in self.more_kinds():
            return (kind, None)
        return ("rebalance", None)

    def describe(self, event):
        kind, what = event
        if kind in ("cable down", "cable up", "drain", "undrain"):
            a, ap, b, bp = self.model.cables[what]
            return "%s %s:%d-%s:%d" % (kind, self.model.switches[a]["name"], ap, self.model.switches[b]["name"], bp)
        if kind in ("switch off", "switch on"):
            return "%s %s" % (kind, self.model.switches[what]["name"])
        return kind

    def apply(self, event):
        kind, what = event
        m = self.model
        if kind in ("cable down", "cable up"):
            up = kind == "cable up"
            (m.down.discard if up else m.down.add)(what)
            self.set_cable(what, up)
        elif kind == "switch off":
            m.dead.add(what)
            self.set_power(what, False)
        elif kind == "switch on":
            m.dead.discard(what)
            self.set_power(what, True)
        elif kind in ("drain", "undrain"):
            a, ap, _, _ = m.cables[what]
            code = self.daemon.post("/api/v1/" + kind, {"guid": a, "port": ap})
            if code == 200:
                (m.drained.add if kind == "drain" else m.drained.discard)(what)
            elif code not in (409, 429, 503):
                raise Violation("%s answered %s" % (kind, code))
            return code
        elif kind == "rebalance":
            return self.daemon.post("/api/v1/routing/rebalance", None)
        elif kind in ("restart", "kill -9"):
            st = self.daemon.get("/api/v1/status")
            in_force = st["routing"]["version"] if st else -1
            self.daemon.stop(signal.SIGTERM if kind == "restart" else signal.SIGKILL)
            # read once the process ended: SIGTERM writes the routing in force as the daemon stops, kill -9 leaves
            # what was written (a routing is written a quiet second after it converged)
            self.restart_stored = stored_version(os.path.join(self.work, "state")) >= in_force >= 0
            self.daemon.start()
        else:
            return self.apply_more(event)
        return None

    # ---- the oracle ------------------------------------------------------------------------------------

    def quiet(self):
        """The first status with every live switch connected and in sync and the state CONVERGED."""
        live = len(self.live())
        deadline = time.time() + QUIET_BOUND_S
        last = None
        while time.time() < deadline:
            st = self.daemon.get("/api/v1/status")
            if st is not None:
                last = st
                if settled(st, live) and not st["routing"].get("refinePending") and self.lab_ready(st):
                    time.sleep(0.5)  # a refinement or a re-route due may follow at once: take the next status
                    again = self.daemon.get("/api/v1/status")
                    if again is not None and again["state"] == "CONVERGED" and again["routing"]["version"] == \
                            st["routing"]["version"] and not again["routing"].get("refinePending"):
                        return again
            time.sleep(0.2)
        raise Violation("not CONVERGED with %d live switches in sync within %d s; last status: %s"
                        % (live, QUIET_BOUND_S, json.dumps(last)[:600]))

    def destinations(self, n):
        """The destinations a check walks: all of them, or with --destinations K a fresh sample of K (its own random
        source, so that the schedule stays the seed's)."""
        k = getattr(self.args, "destinations", None)
        if not k or k >= n:
            return range(n)
        self.checks += 1
        return sorted(random.Random(self.args.seed * 1_000_003 + self.checks).sample(range(n), k))

    def check_routes(self, tables):
        """Follows every entry of every table hop by hop, each (switch, destination) walked once."""
        m = self.model
        routable = m.routable()
        hops_max = 2 * max(m.level.values()) + 2
        for d in self.destinations(max((len(e) for e in tables.values()), default=0)):
            done = {}  # switch -> None when its route reaches d, else the (switch, port) it is dropped at
            for s in tables:
                path, at = [], s
                while at not in done:
                    if at in path or len(path) > hops_max:
                        raise Violation("entry %s->%d loops (%s)" % (m.switches[s]["name"], d, path))
                    path.append(at)
                    p = tables[at][d] if at in tables and d < len(tables[at]) else 0
                    hop = m.next_hop(at, p) if 0 < p < 255 else None
                    if hop is None:
                        if 0 < p < 255 and m.peer.get((at, p)) is not None:
                            raise Violation("entry %s->%d: %s sends it out of port %d, whose cable is down or drained"
                                            % (m.switches[s]["name"], d, m.switches[at]["name"], p))
                        done[at] = (at, p)
                        break
                    if hop[0] == "node":
                        if hop[1] != d:
                            raise Violation("entry %s->%d reaches node %d" % (m.switches[s]["name"], d, hop[1]))
                        done[at] = None
                        break
                    at = hop[1]
                end = done[at]
                for u in path:
                    done[u] = end
                if end is not None and s in routable and routable[s] >> d & 1:
                    raise Violation("entry %s->%d: dropped at %s (port %d) although an up*/down* path exists"
                                    % (m.switches[s]["name"], d, m.switches[end[0]]["name"], end[1]))

    DEATH = re.compile(r"switch (0x[0-9a-f]+) \(([^)]*)\) declared dead by the ring.*routing around it")

    def check_verdicts(self):
        """A switch the ring declared dead and the daemon routed around must be one the campaign powered off."""
        path = os.path.join(self.work, "run.err")
        if not os.path.exists(path):
            return
        with open(path, "rb") as f:
            f.seek(self.log_seen)
            text = f.read().decode("utf-8", "replace")
            self.log_seen = f.tell()
        self.refuted += text.count("verdict refuted")
        for guid, name in self.DEATH.findall(text):
            if guid not in self.model.dead:
                raise Violation("spoofed death: the ring declared %s (%s) dead and the daemon routed around it, "
                                "but it is powered on" % (name, guid))

    def check(self, event, status):
        self.check_verdicts()
        for attempt in range(UNSETTLED_TRIES + 1):
            try:
                tables = self.read_tables()
                break
            except Violation:
                self.check_verdicts()  # a spoofed death during the read is the cause to report
                raise
            except Unsettled as u:
                if attempt == UNSETTLED_TRIES:
                    raise Violation("the daemon left its quiet point during %d readings in a row: %s"
                                    % (UNSETTLED_TRIES + 1, u))
                self.rejudged += 1
                self.say("left the quiet point during the reading (%s): judged again at the next" % u)
                status = self.quiet()
        self.check_routes(tables)
        m = self.model
        whole = not m.down and not m.dead and not m.drained and not m.cut
        if self.intact_tables is None and whole:
            self.intact_tables = tables
        elif whole and tables != self.intact_tables:
            diff = moved(tables, self.intact_tables)
            raise Violation("everything is back but %d entries differ from the intact fabric's routing" % diff)
        last, self.last_read = self.last_read, tables
        if event is not None and event[0] in ("restart", "kill -9") and self.restart_stored is not None \
                and last is not None:
            # a restart alone: from the routing it wrote, the daemon routes nothing and moves no entry; from an
            # older one (killed within the quiet second) it routes the changes since again: counted, not judged
            moved_now = moved(tables, last)
            if not self.restart_stored:
                self.restarts_unstored.append(moved_now)
            elif moved_now or tables.keys() != last.keys():
                raise Violation("a %s alone, its routing in force stored, moved %d entries, now v%d"
                                % (event[0], moved_now, status["routing"]["version"]))
            else:
                self.restarts_judged += 1
        self.restart_stored = None
        r = status["routing"]
        if event is not None and event[0] in ("cable down", "switch off") and self.single_loss and not m.cut \
                and r.get("changedEntries") is not None and r.get("minimumEntries") is not None \
                and r["changedEntries"] > r["minimumEntries"] and not r.get("refinePending"):
            # a refined repair moves more than the minimum on purpose (routing.md, "Repairs refined"): compare the
            # repair's own figures only, which the status keeps for the version that repaired
            if r.get("repaired") and r["version"] == self.repair_version:
                raise Violation("a single loss changed %d entries, the minimum is %d"
                                % (r["changedEntries"], r["minimumEntries"]))

    def sample(self, step):
        pid = self.daemon.proc.pid if self.daemon.proc else None
        taken = process_resources(pid) if pid is not None else None
        if taken is None:
            return
        self.resources.write("%.0f,%d,%d,%d,%d,%d,%d,%d\n" % ((time.time() - self.begin, step) + taken
                                                              + (dir_bytes(os.path.join(self.work, "state")),
                                                                 self.log_bytes())))
        self.resources.flush()

    def log_bytes(self):
        return sum(os.path.getsize(os.path.join(self.work, f)) for f in ("run.out", "run.err", "netlab.out")
                   if os.path.exists(os.path.join(self.work, f)))

    # ---- the run ---------------------------------------------------------------------------------------

    def run(self):
        try:
            self.start_lab()
            status = self.quiet()
            self.check(None, status)
            self.say("converged on the intact fabric: v%d" % status["routing"]["version"])
            self.sample(0)
            step = 0
            end = self.begin + 60 * self.args.minutes
            while step < self.args.steps and time.time() < end:
                step += 1
                burst = 1 if self.rng.random() < 0.8 else self.rng.choice([2, 3])
                events = [self.choose() for _ in range(burst)]
                # one restart in a burst at most, and at its end
                events = [e for e in events if e[0] not in self.LAST] + [e for e in events if e[0] in self.LAST][:1]
                self.single_loss = burst == 1 and not self.model.down and not self.model.dead and \
                    not self.model.drained and events[0][0] in ("cable down", "switch off")
                version_before = status["routing"]["version"]
                began = time.time()
                answers = []
                text = " + ".join(self.describe(e) for e in events)
                self.steps.append(text)  # before the events: a violation while applying them prints this step too
                for e in events:
                    if e[0] in ("cable up", "undrain") and e[1] not in (self.model.down | self.model.drained):
                        continue  # taken back by an earlier event of the burst
                    if e[0] in ("cable down", "drain") and not self.model.cable_live(e[1]):
                        continue  # taken down, drained or cut off by an earlier event of the burst (a drain: 404)
                    if e[0] == "cable up" and (self.model.cables[e[1]][0] in self.model.dead
                                               or self.model.cables[e[1]][2] in self.model.dead):
                        continue  # an end powered off by an earlier event of the burst
                    answers.append(self.apply(e))
                    self.counts[e[0]] = self.counts.get(e[0], 0) + 1
                self.after_events()
                self.repair_version = version_before + 1
                status = self.quiet()
                self.check(events[0] if burst == 1 else None, status)
                self.say("step %d: %s -> v%d CONVERGED in %.1f s%s" % (
                    step, text, status["routing"]["version"], time.time() - began,
                    "" if not any(answers) else " (answers %s)" % [a for a in answers if a]))
                if step % 10 == 0:
                    self.sample(step)
            self.sample(step)
            self.say("survived %d steps (%s), %d daemon starts, %.1f minutes%s"
                     % (step, ", ".join("%s %d" % kv for kv in sorted(self.counts.items()))
                        + ", ring verdicts refuted %d" % self.refuted
                        + ", checks judged again %d" % self.rejudged
                        + ", restarts alone from the routing in force %d (none moved an entry), from an older one %d"
                        " (entries moved %s)" % (self.restarts_judged, len(self.restarts_unstored),
                                                 self.restarts_unstored), self.daemon.starts,
                        (time.time() - self.begin) / 60, "; " + self.summary() if self.summary() else ""))
            return 0
        except Violation as v:
            print("VIOLATION at step %d: %s" % (len(self.steps), v), flush=True)
            print("seed %d; steps:" % self.args.seed)
            for i, s in enumerate(self.steps, 1):
                print("  %d. %s" % (i, s))
            options = (" --" + self.args.lab if self.args.lab != "agents" else "") + \
                (" --tls" if getattr(self.args, "tls", False) else "") + \
                (" --detector-ms %d" % self.args.detector_ms if getattr(self.args, "detector_ms", None) else "") + \
                (" --destinations %d" % self.args.destinations if getattr(self.args, "destinations", None) else "")
            print("replay: %s%s --pgft '%s' --seed %d --steps %d %s" % (
                sys.argv[0], options, self.args.pgft, self.args.seed, len(self.steps), self.work))
            return 1
        finally:
            self.stop_lab()
