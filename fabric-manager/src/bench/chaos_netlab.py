"""The seeded fault campaign on real packets (chaos-campaign.py --netlab; root only).

`fabric-manager netlab up` builds the PGFT as network namespaces, one Linux bridge a switch and a veth pair a cable,
with the daemon and one Linux agent per switch in its process (docs/linux-agent.md). Cables are cut and mended with
`ip link set pN down|up` in a switch's namespace (both ends lose carrier), cables drained and undrained and the fabric
rebalanced over REST, and a switch or two killed for good (`netlab kill-switch`: its links and bridge deleted). The
daemon runs inside netlab, so there are no daemon restarts here, and a killed switch does not come back.

The oracle reads every live switch's forwarding database back with `bridge fdb` (node MAC -> port), as the kernel
forwards, and checks it equals the daemon's table for that switch, then walks it as with simulated switches.
"""
import os
import re
import signal
import subprocess
import time

import chaos_lib
from chaos_lib import FM, Violation

PREFIX = "cx"
RUN = "/run/fabric-manager/netlab-" + PREFIX
FDB = re.compile(r"^([0-9a-f:]{17}) dev p(\d+) ")
MAX_KILLS = 2


class NetlabDaemon(chaos_lib.Daemon):
    """The daemon inside `netlab up`: its REST address and token come from netlab's output; it has no process of its
    own to restart."""

    def __init__(self, work, spec, url, token):
        super().__init__(work, spec)
        self.url, self.token = url, token


class NetlabCampaign(chaos_lib.Campaign):
    def __init__(self, args):
        super().__init__(args)
        self.lab = None
        self.namespaces = {}  # switch guid -> its namespace
        self.macs = {}  # node MAC -> destination index
        self.kills = 0

    def start_lab(self):
        subprocess.run([FM, "netlab", "down", "--prefix", PREFIX], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        out = os.path.join(self.work, "netlab.out")
        self.lab = subprocess.Popen([FM, "netlab", "up", "--pgft", self.args.pgft, "--prefix", PREFIX,
                                     "--http-port", "0"], stdout=open(out, "ab"), stderr=subprocess.STDOUT,
                                    start_new_session=True)
        deadline = time.time() + 300
        while "ready;" not in open(out, errors="replace").read():
            if self.lab.poll() is not None or time.time() > deadline:
                raise Violation("netlab up did not get ready (see %s)" % out)
            time.sleep(1)
        text = open(out, errors="replace").read()
        url = re.search(r"^REST: (\S+)", text, re.M).group(1).replace("/api/v1/status", "")
        token = open(re.search(r"^admin token: (\S+)", text, re.M).group(1)).read().strip()
        self.daemon = NetlabDaemon(self.work, self.args.pgft, url, token)
        self.daemon.starts = 1
        self.daemon.proc = self.lab  # the resources sampled are netlab's: the daemon, the agents and their ring
        self.model = chaos_lib.Model(self.daemon.get("/api/v1/topology"))
        for line in open(os.path.join(RUN, "namespaces.txt")):
            f = line.split()
            if len(f) >= 3 and f[1] == "switch":
                self.namespaces[self.guid(f[2])] = f[0]
            elif len(f) >= 6 and f[1] == "node":
                self.macs[f[5].lower()] = int(f[4])

    @staticmethod
    def guid(text):
        return "0x%016x" % int(text, 16)

    def stop_lab(self):
        if self.lab is not None and self.lab.poll() is None:
            self.lab.send_signal(signal.SIGTERM)
            try:
                self.lab.wait(120)
            except subprocess.TimeoutExpired:
                self.lab.kill()
        subprocess.run([FM, "netlab", "down", "--prefix", PREFIX], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    def ip(self, guid, *args):
        subprocess.run(["ip", "-n", self.namespaces[guid]] + list(args), check=True)

    def set_cable(self, c, up):
        a, ap, _, _ = self.model.cables[c]
        self.ip(a, "link", "set", "p%d" % ap, "up" if up else "down")

    def base_kinds(self):
        return ["cable down"] * 4 + ["drain"] * 2 + ["rebalance"]

    def more_kinds(self):
        return ["switch kill"] if self.kills < MAX_KILLS else []

    def apply_more(self, event):
        m = self.model
        alive = sorted(s for s in m.switches if not m.gone(s) and m.level[s] > 1)
        victim = self.rng.choice(alive)
        self.say("killing %s for good" % m.switches[victim]["name"])
        subprocess.run([FM, "netlab", "kill-switch", "--prefix", PREFIX, "--guid", victim], check=True,
                       stdout=subprocess.DEVNULL)
        m.dead.add(victim)
        self.kills += 1
        return None

    def read_tables(self):
        out = {}
        n = len(self.model.nodes)
        for s in self.live():
            text = subprocess.run(["bridge", "-n", self.namespaces[s], "fdb", "show", "br", "br0"],
                                  capture_output=True, text=True, check=True).stdout
            entries = [255] * n
            for line in text.splitlines():
                f = FDB.match(line)
                if f and f.group(1) in self.macs and "permanent" not in line:
                    entries[self.macs[f.group(1)]] = int(f.group(2))
            daemon = self.daemon.get("/api/v1/switches/%s/lft" % s)
            if daemon is None or "entries" not in daemon:
                raise Violation("the daemon has no table for live switch %s: %s" % (s, daemon))
            held = [p if 0 < p < 255 else 255 for p in daemon["entries"]]
            if held != entries:
                d = next(i for i in range(n) if held[i] != entries[i])
                raise Violation("%s forwards node %d out of p%s (bridge fdb), the daemon's table says %s"
                                % (self.model.switches[s]["name"], d, entries[d], held[d]))
            out[s] = entries
        return out
