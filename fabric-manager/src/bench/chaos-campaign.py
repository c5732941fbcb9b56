#!/usr/bin/env python3
"""A seeded fault campaign against the daemon as processes (docs/performance.md, "Chaos on real parts").

`fabric-manager run` and `fabric-manager simulate --commands` run as an operator runs them. A seeded schedule
takes cables down and up, powers switches off and back, drains and undrains cables, asks for rebalances and
restarts the daemon (SIGTERM, and SIGKILL), one event or a burst of two or three at a time. The campaign keeps its
own model of the fabric (what it took down, powered off or drained): after every step it waits for the daemon to
say CONVERGED with every live switch connected and in sync, then checks, independently of the daemon's code:
  - every entry of every live switch (read back over REST) follows live, undrained cables only, never loops, and
    reaches its node whenever an up*/down* path exists in the model's fabric;
  - the state is CONVERGED within the bound (90 s), never CONVERGED with a table that is not its routing's (a table
    read out of sync once the daemon's own status has left CONVERGED is read again at the next quiet point);
  - with nothing down or drained, the tables are those of the first convergence (the full routing of the
    intact fabric);
  - a single cable or switch lost from a fabric with nothing else out changes no more entries than the daemon's
    own minimum for it (status routing.changedEntries against routing.minimumEntries).
  - no switch the campaign left powered on is declared dead by the ring and routed around (a spoofed death).
A violation prints the seed, the steps so far and the command that replays them, and exits 1. Every few steps the
daemon's resources are sampled into resources.csv: RSS, heap after a full GC, threads, file descriptors, the state
directory's bytes and the log's bytes.

usage: chaos-campaign.py [--opensm | --netlab | --ha] [--pgft SPEC] [--seed N] [--minutes M] [--steps K]
                         [--detector-ms D] [--destinations K] [--tls] WORKDIR
--opensm: the same campaign against OpenSM under ibsim through the plug-in (chaos_opensm.py);
--netlab: on real packets in network namespaces, as root (chaos_netlab.py);
--ha: three managers on Raft, the leader killed, stopped and frozen, killed managers started again (chaos_ha.py);
--tls: mutual TLS between the agents and the managers, and on the Raft port (the agents lab and --ha).
Needs the packaged build (mvn -B -q package -DskipTests) and a JDK's jcmd on the PATH.
"""
import argparse
import random
import signal
import sys

import chaos_lib


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pgft", default="PGFT(3;4,4,4;1,4,4;1,1,1)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--minutes", type=float, default=10)
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--detector-ms", type=int, default=None,
                   help="the ring's deltaMs and secondOpinionMs (default the daemon's: 500 and 250)")
    p.add_argument("--destinations", type=int, default=None,
                   help="walk a fresh random sample of K destinations at each check instead of all (large fabrics)")
    p.add_argument("--tls", action="store_true",
                   help="mutual TLS on the southbound (and the Raft port with --ha), a PKI made in WORKDIR/pki")
    lab = p.add_mutually_exclusive_group()
    lab.add_argument("--opensm", dest="lab", action="store_const", const="opensm", default="agents",
                     help="against OpenSM and ibsim with the plug-in (chaos_opensm.py), tables read with ibroute")
    lab.add_argument("--ha", dest="lab", action="store_const", const="ha",
                     help="three managers on Raft, leaders killed, stopped and frozen (chaos_ha.py)")
    lab.add_argument("--netlab", dest="lab", action="store_const", const="netlab",
                     help="on real packets in netlab (chaos_netlab.py, root), tables read with bridge fdb")
    p.add_argument("workdir")
    args = p.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1 << 31)
    if args.tls and args.lab in ("opensm", "netlab"):
        p.error("--tls applies to the agents lab and --ha")
    # a campaign stopped with SIGTERM (or SIGINT, which a shell's background job ignores) still stops its lab
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print("seed %d" % args.seed, flush=True)
    if args.lab == "opensm":
        import chaos_opensm
        sys.exit(chaos_opensm.OpenSmCampaign(args).run())
    if args.lab == "ha":
        import chaos_ha
        sys.exit(chaos_ha.HaCampaign(args).run())
    if args.lab == "netlab":
        import chaos_netlab
        sys.exit(chaos_netlab.NetlabCampaign(args).run())
    sys.exit(chaos_lib.Campaign(args).run())


if __name__ == "__main__":
    main()
