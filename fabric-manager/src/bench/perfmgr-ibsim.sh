#!/usr/bin/env bash
# OpenSM's performance manager under ibsim (docs/opensm.md, "Install and configure"), without the plug-in:
# ibsim simulates the PGFT, a stock OpenSM routes it with minhop and reads every port's counters every 2 s with
# QUERIES outstanding (empty: OpenSM's default, 500). From OpenSM's SUBNET UP on, ibroute reads a switch's
# table every 5 s for SECONDS; a read that does not end within 20 s is printed as hung. At the end, where each
# of OpenSM's threads waits, and with gdb installed, its and ibsim's stacks (gdb-opensm.txt, gdb-ibsim.txt).
#   usage: perfmgr-ibsim.sh WORKDIR [QUERIES] [SECONDS] [SPEC]
#   e.g.   perfmgr-ibsim.sh /tmp/perfmgr-500          (hangs within seconds)
#          perfmgr-ibsim.sh /tmp/perfmgr-4 4 90        (answers throughout)
# Needs opensm, ibsim-utils, infiniband-diags and the packaged build (mvn -B -q package -DskipTests).
set -euo pipefail
W=${1:?usage: perfmgr-ibsim.sh WORKDIR [QUERIES] [SECONDS] [SPEC]}
queries=${2:-}
seconds=${3:-60}
spec=${4:-'PGFT(3;4,4,4;1,4,4;1,1,1)'}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
UMAD=${UMAD:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
rm -rf "$W"; mkdir -p "$W"; cd "$W"
"$repo/bin/fabric-manager" topology --pgft "$spec" --format ibsim --out fabric.net >/dev/null
export IBSIM_SOCKNAME=fm-perfmgr-$$
mkfifo console
(exec ibsim -s fabric.net <console >ibsim.log 2>&1) &
ibsim=$!
exec 3>console
osm=
# OpenSM first: once ibsim is gone it may not stop
stop() {
  local p
  for p in $osm $ibsim; do
    kill "$p" 2>/dev/null || continue
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$p" 2>/dev/null || true
  done
}
trap stop EXIT
until grep -q "simulator ready" ibsim.log 2>/dev/null; do sleep 0.5; done
printf '%s\n' 'routing_engine minhop' 'sweep_interval 1' 'force_log_flush TRUE' 'perfmgr TRUE' \
  'perfmgr_sweep_time_s 2' ${queries:+"perfmgr_max_outstanding_queries $queries"} >osm.conf
OSM_TMP_DIR=$W OSM_CACHE_DIR=$W LD_PRELOAD=$UMAD opensm -F osm.conf -f "$W/opensm.log" >opensm.out 2>&1 &
osm=$!
until grep -q "SUBNET UP" opensm.log 2>/dev/null; do sleep 1; done
echo "$(date +%T) SUBNET UP, perfmgr_max_outstanding_queries ${queries:-500 (default)}"
end=$((SECONDS + seconds))
while ((SECONDS < end)); do
  t0=$(date +%s%N)
  if LD_PRELOAD=$UMAD timeout 20 ibroute 2 >/dev/null 2>&1; then r=answered; else r=hung; fi
  echo "$(date +%T) ibroute $r in $((($(date +%s%N) - t0) / 1000000)) ms; OpenSM's log: $(wc -l <opensm.log) lines"
  sleep 5
done
for t in /proc/"$osm"/task/*; do echo "OpenSM thread ${t##*/}: waits in $(cat "$t/wchan")"; done
if command -v gdb >/dev/null; then
  gdb -p "$osm" -batch -ex "thread apply all bt 8" >gdb-opensm.txt 2>&1 || true
  gdb -p "$ibsim" -batch -ex "thread apply all bt 8" >gdb-ibsim.txt 2>&1 || true
fi
