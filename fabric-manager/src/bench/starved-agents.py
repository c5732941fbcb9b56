#!/usr/bin/env python3
"""Spoofed deaths and silent-death detection with the agents starved of CPU (docs/performance.md, "Failure
detector").

`fabric-manager run` and `fabric-manager simulate --commands` run as processes at 768 switches with the ring on
(plaintext: the figure is the detector's, not TLS's). Once the daemon is CONVERGED and the ring runs, BUSY busy
loops take the host's cores for MINUTES; every 50 s one level-2 switch's agent dies silently (`kill GUID agent`:
its member stops, its session stays open and answers nothing). Reported from the daemon's events:
  - spoofed deaths: SWITCH_FAILED routing around a switch that was never killed;
  - silent deaths: kill to SWITCH_FAILED, or to the session's idle timeout when the ring did not decide first.

usage: starved-agents.py [--minutes M] [--busy N] [--delta-ms D] [--second-opinion-ms W] WORKDIR
Needs the packaged build (mvn -B -q package -DskipTests); FM_JAR selects another jar.
"""
import argparse
import collections
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import time
import urllib.request

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FM = os.path.join(REPO, "bin", "fabric-manager")
PGFT = "PGFT(3;16,16,16;1,16,16;1,1,1)"
KILL_EVERY_S = 50


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def guid_of(name):
    """The simulator's GUID of switch sL-N."""
    level, n = re.match(r"s(\d)-(\d+)", name).groups()
    return "0x%016x" % (0x1000000000000000 | int(level) << 32 | int(n))


class Lab:
    def __init__(self, work, detector_yaml):
        self.work = work
        self.sb, rest = free_port(), free_port()
        self.url = "http://127.0.0.1:%d" % rest
        os.makedirs(work, exist_ok=True)
        with open(os.path.join(work, "fm.yaml"), "w") as f:
            f.write('fabric:\n  expectedPgft: "%s"\ndiscovery:\n  settleMs: 2000\n  maxWaitMs: 30000\n'
                    'state:\n  directory: "%s"\nsecurity:\n  insecure: true\nsouthbound:\n  bind: "127.0.0.1"\n'
                    '  port: %d\nrest:\n  bind: "127.0.0.1"\n  port: %d\n  adminToken: "%s"\n%s'
                    % (PGFT, os.path.join(work, "state"), self.sb, rest, "starved-agents-token-0123456789",
                       detector_yaml))
        self.daemon = subprocess.Popen([FM, "run", "--config", os.path.join(work, "fm.yaml")],
                                       stdout=open(os.path.join(work, "run.out"), "ab"),
                                       stderr=open(os.path.join(work, "run.err"), "ab"), start_new_session=True)
        time.sleep(3)
        self.sim = subprocess.Popen([FM, "simulate", "--pgft", PGFT, "--connect", "127.0.0.1:%d" % self.sb,
                                     "--commands"], stdin=subprocess.PIPE,
                                    stdout=open(os.path.join(work, "simulate.out"), "ab"), stderr=subprocess.STDOUT,
                                    start_new_session=True)

    def get(self, path, raw=False):
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as r:
                body = r.read()
                return body.decode() if raw else json.loads(body)
        except (OSError, ValueError):
            return None

    def command(self, line):
        self.sim.stdin.write((line + "\n").encode())
        self.sim.stdin.flush()

    def stop(self):
        for p in (self.sim, self.daemon):
            p.send_signal(signal.SIGTERM)
        for p in (self.sim, self.daemon):
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=10)
    p.add_argument("--busy", type=int, default=4, help="busy loops while measuring")
    p.add_argument("--delta-ms", type=int, default=None, help="faults.detector.deltaMs (default the daemon's)")
    p.add_argument("--second-opinion-ms", type=int, default=None, help="faults.detector.secondOpinionMs")
    p.add_argument("workdir")
    args = p.parse_args()
    detector = "".join("    %s: %d\n" % (k, v) for k, v in (("deltaMs", args.delta_ms),
                                                             ("secondOpinionMs", args.second_opinion_ms)) if v)
    lab = Lab(os.path.abspath(args.workdir), "faults:\n  detector:\n" + detector if detector else "")
    begin = time.time()
    while True:
        status = lab.get("/api/v1/status") or {}
        events = lab.get("/api/v1/events?since=0") or []
        if status.get("state") == "CONVERGED" and any(e["kind"] == "DETECTOR_RUNNING" for e in events):
            break
        if time.time() - begin > 600:
            raise SystemExit("not CONVERGED with the ring running after 600 s: %s" % status)
        time.sleep(2)
    print("CONVERGED with the ring running %.0f s after the start" % (time.time() - begin), flush=True)
    busy = [subprocess.Popen(["python3", "-c", "while True: pass"]) for _ in range(args.busy)]
    victims = ["s2-%d" % i for i in range(0, 256, 23)]
    killed, events, seen = {}, [], 0
    end, next_kill = time.time() + args.minutes * 60, time.time() + 20
    try:
        while time.time() < end:
            if time.time() >= next_kill and len(killed) < len(victims):
                name = victims[len(killed)]
                killed[guid_of(name)] = (name, time.time())
                lab.command("kill %s agent" % guid_of(name))
                next_kill = time.time() + KILL_EVERY_S
            for e in lab.get("/api/v1/events?since=%d" % seen) or []:
                seen = max(seen, e["seq"])
                events.append(e)
            time.sleep(1)
    finally:
        for b in busy:
            b.kill()
    time.sleep(5)
    events += lab.get("/api/v1/events?since=%d" % seen) or []
    metrics = lab.get("/metrics", raw=True) or ""
    lab.stop()
    with open(os.path.join(lab.work, "events.json"), "w") as f:
        json.dump({"killed": killed, "events": events}, f)
    report(killed, events, metrics)


def report(killed, events, metrics):
    spoofed, ring, idle = [], [], []
    for e in events:
        t = e["timeMillis"] / 1000
        if e["kind"] == "SWITCH_FAILED" and e["details"].get("routedAround"):
            k = killed.get(e["details"]["guid"])
            if k and k[1] <= t:
                ring.append(round((t - k[1]) * 1000))
            else:
                spoofed.append((e["details"].get("echoWaitMs"), e["details"].get("echoBeforeVerdict")))
        elif e["kind"] == "SWITCH_LOST" and "IDLE_TIMEOUT" in e["message"]:
            m = re.search(r"switch (0x[0-9a-f]+)", e["message"])
            k = killed.get(m.group(1)) if m else None
            if k and k[1] <= t:
                idle.append(round((t - k[1]) * 1000))
    print("verdicts:", dict(re.findall(r'fabric_detector_verdicts_total\{outcome="(\w+)"[^}]*\} (\S+)', metrics)))
    print("silent deaths: %d; routed around on the ring's verdict: %d; lost to the idle timeout first: %d"
          % (len(killed), len(ring), len(idle)))
    if ring:
        ring.sort()
        print("  kill to SWITCH_FAILED, ms: median %d (%d-%d)" % (statistics.median(ring), ring[0], ring[-1]))
    print("spoofed deaths: %d" % len(spoofed))
    if spoofed:
        print("  by echo wait in ms (and whether the echo was sent at the suspicion):",
              collections.Counter(spoofed).most_common(6))


if __name__ == "__main__":
    main()
