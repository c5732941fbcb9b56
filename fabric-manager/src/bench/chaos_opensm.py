"""The seeded fault campaign against OpenSM's subnets (chaos-campaign.py --opensm).

ibsim simulates the PGFT with its console on a FIFO, `fabric-manager run` serves OpenSM's plug-in on a Unix socket,
and a stock OpenSM under libumad2sim routes through it, each a process of its own as docs/opensm.md sets them up.
Cables go down and up and switches lose power at ibsim's console (OpenSM hears the traps); drains, rebalances and
daemon restarts go to the daemon as with simulated switches; and OpenSM itself is killed (and started again) or
frozen (SIGSTOP) long enough that the daemon must say it is lost, within 30 s, with readiness 503.

The oracle reads every reachable switch back with ibroute, as the hardware holds it, not as the daemon says: each
entry must follow live, undrained cables to its node, and equal the daemon's own table for it wherever that table
routes it (what OpenSM confirmed is what the switches hold). A switch OpenSM cannot reach (all its cables down, or its power off) is out of the subnet.
"""
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

import chaos_lib
from chaos_lib import FM, Violation

UMAD = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
PLUGIN = os.path.join(chaos_lib.REPO, "fabric-manager", "target", "opensm-plugin")
LOST_WITHIN_S = 30
LID_LINE = re.compile(r'^Switch\s+\d+\s+"S-([0-9a-f]{16})".*\blid (\d+)\b')
CA_LINE = re.compile(r'^Ca\s+\d+\s+"H-[0-9a-f]{16}"\s+#\s+"([^"]+)"')
ENTRY = re.compile(r"^0x([0-9a-f]{4}) (\d{3}) : \((?:Channel Adapter portguid 0x[0-9a-f]+: '([^']*)'|unknown node and type)\)")


class OpenSmCampaign(chaos_lib.Campaign):
    def __init__(self, args):
        work = os.path.abspath(args.workdir)
        super().__init__(args, 'opensm:\n  socket: "%s"\n' % os.path.join(work, "opensm.sock"))
        self.env = dict(os.environ, IBSIM_SOCKNAME="fm-chaos-%d" % os.getpid())
        self.ibsim = self.console = self.opensm = None
        self.lids = {}
        self.sm_leaf = None
        self.ids = {}  # guid -> ibsim's node id (the name the daemon shows)
        self.lost_after = []  # seconds from a freeze to the daemon's OPENSM lost
        self.ups_before = None  # OpenSM's SUBNET UP count before this step's last change at ibsim's console
        self.node_of_lid = {}  # an end node's LID -> its index, learned from ibroute's named lines

    # ---- the lab -------------------------------------------------------------------------------------------

    def start_lab(self):
        net = os.path.join(self.work, "fabric.net")
        subprocess.run([FM, "topology", "--pgft", self.args.pgft, "--format", "ibsim", "--out", net], check=True,
                       stdout=subprocess.DEVNULL)
        text = open(net).read()
        switches, nodes = text.count("\nSwitch"), text.count("\nHca") + text.startswith("Hca")
        sm_node = re.search(r'^Hca\s+\d+\s+"([^"]+)"', text, re.M).group(1)
        fifo = os.path.join(self.work, "console")
        os.mkfifo(fifo)
        self.ibsim = subprocess.Popen(
            "exec ibsim -s -N %d -S %d -P %d -L 49152 fabric.net <console >ibsim.log 2>&1"
            % (switches + nodes + 16, switches + 16, switches * 40 + nodes * 2 + 1024),
            shell=True, cwd=self.work, env=self.env, start_new_session=True)
        self.console = open(fifo, "w")
        self.await_file("ibsim.log", "simulator ready", 60)
        self.daemon.start()
        self.await_file("run.out", "OpenSM provider listening", 60, also="run.err")
        with open(os.path.join(self.work, "osm.conf"), "w") as f:
            f.write("event_plugin_name fabricmanager\nevent_plugin_options fm.socket=%s fm.timeout_ms=120000\n"
                    "routing_engine fabric-manager,minhop\nsweep_interval 10\nlog_flags 0x03\nforce_log_flush TRUE\n"
                    % os.path.join(self.work, "opensm.sock"))
        self.start_opensm()
        status = self.await_status(lambda st: st["state"] == "CONVERGED" and self.lab_ready(st), 120)
        self.model = chaos_lib.Model(self.daemon.get("/api/v1/topology"))
        if len(self.model.switches) != status["switches"]["expected"]:
            raise Violation("OpenSM's subnet has %d switches, the PGFT %d"
                            % (len(self.model.switches), status["switches"]["expected"]))
        self.ids = {g: s["name"] for g, s in self.model.switches.items()}
        topology = self.daemon.get("/api/v1/topology")
        self.ids.update({n["guid"]: n["name"] for n in topology["nodes"]})
        sm = next(n["guid"] for n in topology["nodes"] if n["name"] == sm_node)
        self.sm_leaf = self.model.node_port[self.model.nodes[sm]][0]
        self.read_lids()

    def start_opensm(self):
        env = dict(self.env, OSM_TMP_DIR=self.work, OSM_CACHE_DIR=self.work, LD_PRELOAD=UMAD,
                   LD_LIBRARY_PATH=PLUGIN)
        self.opensm = subprocess.Popen(["opensm", "-F", "osm.conf", "-f", os.path.join(self.work, "opensm.log"),
                                        "-d0"], cwd=self.work, env=env, stdout=open(os.path.join(
                                            self.work, "opensm.out"), "ab"), stderr=subprocess.STDOUT,
                                       start_new_session=True)

    def stop_lab(self):
        for proc in (self.opensm,):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.terminate()
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
        self.daemon.stop(signal.SIGTERM)
        if self.ibsim is not None:
            self.ibsim.terminate()
            try:
                self.ibsim.wait(20)
            except subprocess.TimeoutExpired:
                self.ibsim.kill()

    def await_file(self, name, text, seconds, also=None):
        deadline = time.time() + seconds
        while time.time() < deadline:
            for n in (name, also):
                path = os.path.join(self.work, n) if n else None
                if path and os.path.exists(path) and text in open(path, errors="replace").read():
                    return
            time.sleep(0.5)
        raise Violation("no %r in %s within %d s" % (text, name, seconds))

    def await_status(self, done, seconds):
        deadline, last = time.time() + seconds, None
        while time.time() < deadline:
            st = self.daemon.get("/api/v1/status")
            if st is not None:
                last = st
                if done(st):
                    return st
            time.sleep(0.3)
        raise Violation("status not reached within %d s; last: %s" % (seconds, str(last)[:600]))

    def type(self, line):
        self.console.write(line + "\n")
        self.console.flush()

    def diag(self, *command):
        env = dict(self.env, LD_PRELOAD=UMAD)
        return subprocess.run(list(command), env=env, capture_output=True, text=True, timeout=60).stdout

    def read_lids(self):
        """The switches' LIDs, and the end nodes' (each on the port line below its `Ca` line)."""
        self.lids = {}
        index = {self.ids[g]: i for g, i in self.model.nodes.items()}
        ca = None
        for line in self.diag("ibnetdiscover").splitlines():
            m = LID_LINE.match(line)
            if m:
                self.lids["0x" + m.group(1)] = int(m.group(2))
            c = CA_LINE.match(line)
            if c:
                ca = c.group(1)
                continue
            lid = re.search(r"# lid (\d+) ", line)
            if ca in index and lid and int(lid.group(1)) > 0:
                self.node_of_lid[int(lid.group(1))] = index[ca]
            ca = None

    # ---- what the campaign does ------------------------------------------------------------------------------

    def end(self, guid, port):
        return '"%s"[%d]' % (self.ids[guid], port)

    def changing(self, *ends):
        """A change typed at ibsim's console at switches `ends`: when OpenSM reaches one of them, the step is over
        only once OpenSM has swept it (its trap's sweep, or the next periodic one). Counted from the step's last such
        change: a SUBNET UP between two of them (an OpenSM started again within the burst) may not have seen the
        second (seed 93, step 565)."""
        if any(not self.model.gone(e) for e in ends):
            self.ups_before = self.subnet_ups()

    def set_cable(self, c, up):
        a, ap, b, bp = self.model.cables[c]
        self.changing(a, b)
        self.type("Link %s %s" % (self.end(a, ap), self.end(b, bp)) if up else "Unlink %s" % self.end(a, ap))

    def set_power(self, s, on):
        m = self.model
        self.changing(*[b if a == s else a for a, _, b, _ in m.cables if s in (a, b)])
        if not on:
            self.type('Unlink "%s"' % self.ids[s])
            return
        for c, (a, ap, b, bp) in enumerate(m.cables):
            if s in (a, b) and c not in m.down and a not in m.dead and b not in m.dead:
                self.type("Link %s %s" % (self.end(a, ap), self.end(b, bp)))
        for (leaf, port), (g, gp) in m.peer.items():
            if leaf == s and g in m.nodes:
                self.type("Link %s %s" % (self.end(leaf, port), self.end(g, gp or 1)))

    def may_power_off(self, s):
        return self.model.level[s] > 1

    def more_kinds(self):
        return ["opensm kill -9", "opensm freeze"]

    def apply_more(self, event):
        kind = event[0]
        if kind == "opensm kill -9":
            ups = self.subnet_ups()
            self.opensm.kill()
            self.opensm.wait()
            time.sleep(self.rng.uniform(0, 5))
            self.start_opensm()
            deadline = time.time() + 60  # the new OpenSM's first sweep, before the status can be believed again
            while self.subnet_ups() <= ups:
                if time.time() > deadline:
                    raise Violation("OpenSM started again but its subnet was not up within 60 s")
                time.sleep(0.5)
        elif kind == "opensm freeze":
            frozen = time.time()
            self.opensm.send_signal(signal.SIGSTOP)
            try:
                self.await_status(lambda st: (st.get("opensm") or {}).get("state") == "LOST", LOST_WITHIN_S)
                self.lost_after.append(time.time() - frozen)
                code = self.ready_code()
                if code != 503:
                    raise Violation("OpenSM frozen and lost, but readiness answered %s, not 503" % code)
            finally:
                self.opensm.send_signal(signal.SIGCONT)
        return None

    def subnet_ups(self):
        path = os.path.join(self.work, "opensm.log")
        return open(path, errors="replace").read().count("SUBNET UP") if os.path.exists(path) else 0

    def ready_code(self):
        try:
            with urllib.request.urlopen(self.daemon.url + "/health/ready", timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return None

    def after_events(self):
        m = self.model
        m.cut = set(m.switches) - m.reach(self.sm_leaf) - m.dead
        if self.ups_before is not None:
            # until OpenSM has swept the change, the daemon's status still describes the fabric before it
            deadline = time.time() + 60
            while self.subnet_ups() <= self.ups_before:
                if time.time() > deadline:
                    raise Violation("OpenSM did not sweep a change typed at ibsim's console within 60 s")
                time.sleep(0.3)
            self.ups_before = None

    def lab_ready(self, status):
        return (status.get("opensm") or {}).get("state") == "UP"

    # ---- the oracle's reading ------------------------------------------------------------------------------

    def read_tables(self):
        m = self.model
        index = {self.ids[g]: i for g, i in m.nodes.items()}
        out = {}
        for s in self.live():
            lid = self.lids.get(s)
            text = self.diag("ibroute", str(lid)) if lid else ""
            if "Unicast lids" not in text:
                self.read_lids()
                lid = self.lids.get(s)
                text = self.diag("ibroute", str(lid)) if lid else ""
                if "Unicast lids" not in text:
                    raise Violation("ibroute could not read live switch %s (LID %s)" % (self.ids[s], lid))
            entries = [255] * len(m.nodes)
            for line in text.splitlines():
                e = ENTRY.match(line)
                if not e:
                    continue
                lid = int(e.group(1), 16)
                if e.group(3) in index:
                    self.node_of_lid[lid] = index[e.group(3)]
                # ibroute names a LID's node from its own queries, and says "unknown node" when one goes unanswered
                if lid in self.node_of_lid:
                    entries[self.node_of_lid[lid]] = int(e.group(2))
            daemon = self.daemon.get("/api/v1/switches/%s/lft" % s)
            if daemon is None or "entries" not in daemon:
                raise Violation("the daemon has no table for live switch %s: %s" % (self.ids[s], daemon))
            for d, port in enumerate(daemon["entries"]):
                leaf = m.node_port.get(d, (None,))[0]
                # where the daemon's routing has no valid route the plug-in hands a route towards the node's leaf by
                # the switch rule (docs/opensm.md, "End-node LIDs"): the walk below checks it reaches the node
                if leaf is not None and not m.gone(leaf) and port != 255 and entries[d] != port:
                    with open(os.path.join(self.work, "ibroute-%s.txt" % self.ids[s]), "w") as f:
                        f.write(text)  # kept for the report: what the switch held, as ibroute read it
                    raise Violation("%s holds port %d for %s (ibroute), the daemon's table says %d (in sync: %s)"
                                    % (self.ids[s], entries[d], self.ids[self.node_guid(d)], port,
                                       daemon.get("inSync")))
            out[s] = entries
        return out

    def node_guid(self, d):
        return next(g for g, i in self.model.nodes.items() if i == d)

    def summary(self):
        if self.lost_after:
            return "OpenSM frozen %d times, lost after %.1f-%.1f s" % (len(self.lost_after), min(self.lost_after),
                                                                       max(self.lost_after))
        return ""
