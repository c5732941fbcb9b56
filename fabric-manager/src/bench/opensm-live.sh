#!/usr/bin/env bash
# The live OpenSM measurement of docs/performance.md ("Live under OpenSM"): ibsim simulates the PGFT (its
# console on a FIFO), OpenSM runs with the plug-in and routing_engine ENGINES, and the daemon listens
# on opensm.socket when ENGINES starts with fabric-manager. Once the subnet is up and SETTLE seconds
# have passed, one leaf's first uplink is unlinked at ibsim's console; the script waits for OpenSM's
# next SUBNET UP and prints OpenSM's log lines that time the routing step and the reaction.
#   usage: [FAULT=cable|switch|drain|rebalance] [OSMCONF=LINES] opensm-live.sh ENGINES WORKDIR [SPEC]
#          switch: a level-2 switch unlinked whole; drain: `drain --link LEAF:UPLINK --wait` instead of a fault,
#          timed to CONVERGED (every switch holding it, as OpenSM reports), then the leaf's table read with
#          ibroute; rebalance: the cable unlinked and repaired, then `rebalance --wait`, timed the same way.
#          OSMCONF: more opensm.conf lines (e.g. "max_wire_smps 32"), for every engine alike.
#          CABLES=N (cable only): after the first, the first uplink of the next N-1 leaves in turn, each
#          SETTLE_NEXT seconds (5) after the last SUBNET UP: the first fault runs the daemon's code cold.
#   e.g.   opensm-live.sh fabric-manager,minhop /tmp/live-fm
#          opensm-live.sh ftree,minhop /tmp/live-ftree   (ftree and updn get root and compute-node GUID files)
# Needs opensm, ibsim-utils, infiniband-diags and the packaged build (mvn -B -q package -DskipTests,
# which builds the plug-in into fabric-manager/target/opensm-plugin).
set -euo pipefail
engines=${1:?usage: opensm-live.sh ENGINES WORKDIR [SPEC]}
W=${2:?usage: opensm-live.sh ENGINES WORKDIR [SPEC]}
spec=${3:-'PGFT(3;16,16,16;1,16,16;1,1,1)'}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
FM="$repo/bin/fabric-manager"
PLUG=${PLUG:-$repo/fabric-manager/target/opensm-plugin}
UMAD=${UMAD:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
rm -rf "$W"; mkdir -p "$W"; cd "$W"
"$FM" topology --pgft "$spec" --format ibsim --out fabric.net >/dev/null
nsw=$(grep -c '^Switch' fabric.net); nca=$(grep -c '^Hca' fabric.net)
export IBSIM_SOCKNAME=fm-live-$$
mkfifo console
(exec ibsim -s -N $((nsw + nca + 16)) -S $((nsw + 16)) -P $((nsw * 40 + nca * 2 + 1024)) -L 49152 fabric.net \
  <console >ibsim.log 2>&1) &
pids=$!
exec 3>console
# at exit: OpenSM first, then the daemon, then ibsim (an OpenSM whose simulator is gone does not exit on SIGTERM)
stop() {
  local p rev=""
  for p in $pids; do rev="$p $rev"; done
  for p in $rev; do
    kill "$p" 2>/dev/null || continue
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$p" 2>/dev/null || true
  done
}
trap stop EXIT
until grep -q "simulator ready" ibsim.log 2>/dev/null; do sleep 1; done
# ftree and updn get the files OpenSM's documentation asks for (as `compare` gives them): the top level
# as roots, every end node's port as a compute node; without them ftree refuses a degraded tree
levels=$(sed -E 's/^PGFT\(([0-9]+);.*/\1/' <<<"$spec")
if [[ $engines == *ftree* || $engines == *updn* ]]; then
  LD_PRELOAD=$UMAD ibnetdiscover >discovered.txt 2>/dev/null
  awk -v top="\"s$levels-" '$1 == "Switch" && index($0, "# " top) {gsub(/"S-|"/, "", $3); print "0x" $3}' \
    discovered.txt >roots.guid
  grep -o '"H-[0-9a-f]*"\[[0-9]*\]([0-9a-f]*)' discovered.txt | sed -E 's/.*\(([0-9a-f]+)\)$/0x\1/' | sort -u >cn.guid
  guidfiles="root_guid_file $W/roots.guid
cn_guid_file $W/cn.guid"
  echo "GUID files: $(wc -l <roots.guid) roots, $(wc -l <cn.guid) compute nodes"
fi
cat > osm.conf <<C
event_plugin_name fabricmanager
event_plugin_options fm.socket=$W/opensm.sock fm.timeout_ms=120000
routing_engine $engines
sweep_interval 5
log_flags ${LOGFLAGS:-0x07}
force_log_flush TRUE
${guidfiles:-}
${OSMCONF:-}
C
if [[ $engines == fabric-manager* ]]; then
  (umask 077; head -c 24 /dev/urandom | base64 >token)
  cat > fm.yaml <<Y
southbound: {bind: "127.0.0.1", port: 0}
rest: {bind: "127.0.0.1", port: 0, adminTokenFile: "$W/token"}
fabric: {expectedPgft: "$spec"}
discovery: {settleMs: 300}
state: {directory: "$W/state"}
security: {insecure: true}
opensm: {socket: "$W/opensm.sock"}
Y
  "$FM" run --config fm.yaml >daemon.log 2>&1 &
  pids="$pids $!"
  until grep -q "OpenSM provider listening" daemon.log; do sleep 1; done
fi
OSM_TMP_DIR=$W OSM_CACHE_DIR=$W LD_PRELOAD=$UMAD LD_LIBRARY_PATH=$PLUG opensm -F osm.conf -f "$W/opensm.log" -d0 \
  >opensm.out 2>&1 &
pids="$pids $!"
until grep -q "SUBNET UP" opensm.log 2>/dev/null; do sleep 2; done
sleep "${SETTLE:-15}"
leaf=$(awk '/^Switch/ {gsub(/"/, "", $3); print $3; exit}' fabric.net)
up=$(awk -v l="\"$leaf\"" '$1 == "Switch" && $3 == l {f = 1; next} f && /^\[/ && /"s2/ {sub(/\[/, ""); sub(/\].*/, ""); print; exit}' fabric.net)
ups=$(grep -c "SUBNET UP" opensm.log)
url=$(grep -o "http://127.0.0.1:[0-9]*" daemon.log 2>/dev/null | head -1 || true)
ms() { date +%s%3N; }
if [[ ${FAULT:-cable} == drain ]]; then
  # the leaf's GUID and LID as OpenSM knows them: ibsim's ids end with our GUID
  LD_PRELOAD=$UMAD ibnetdiscover >discovered.txt 2>/dev/null
  lg=$(awk -v l="$leaf" '$1 == "Switch" && index($0, l) {print $3; exit}' discovered.txt | sed -E 's/"S-([0-9a-f]+)"/0x\1/')
  lid=$(awk -v l="$leaf" '$1 == "Switch" && index($0, l) {print $0; exit}' discovered.txt | sed -E 's/.*lid ([0-9]+).*/\1/')
  LD_PRELOAD=$UMAD ibroute "$lid" >leaf-before.txt 2>/dev/null
  echo "end-node LIDs out of port $up of $leaf before: $(grep -c " $(printf %03d "$up") : (Channel" leaf-before.txt || true)"
  t0=$(ms); "$FM" drain --url "$url" --token-file token --link "$lg:$up" --wait; t1=$(ms)
  echo "drain to CONVERGED: $((t1 - t0)) ms"
  LD_PRELOAD=$UMAD ibroute "$lid" >leaf-after.txt 2>/dev/null
  echo "end-node LIDs out of port $up of $leaf now: $(grep -c " $(printf %03d "$up") : (Channel" leaf-after.txt || true)"
  exit 0
fi
if [[ ${FAULT:-cable} == switch ]]; then
  # a whole level-2 switch: every cable of it unlinked at once
  s2=$(awk '$1 == "Switch" && $3 ~ /^"s2-/ {gsub(/"/, "", $3); print $3; exit}' fabric.net)
  echo "Unlink \"$s2\"" >&3
else
  echo "Unlink \"$leaf\"[$up]" >&3
fi
until [[ $(grep -c "SUBNET UP" opensm.log) -gt $ups ]]; do sleep 2; done
# CABLES=N: N-1 more cables, the first uplink of the next leaves in turn, each once the last reaction is over
for ((i = 2; i <= ${CABLES:-1}; i++)); do
  sleep "${SETTLE_NEXT:-5}"
  next=$(awk -v i="$i" '/^Switch/ && ++n == i {gsub(/"/, "", $3); print $3; exit}' fabric.net)
  ups=$(grep -c "SUBNET UP" opensm.log)
  echo "Unlink \"$next\"[$up]" >&3
  until [[ $(grep -c "SUBNET UP" opensm.log) -gt $ups ]]; do sleep 2; done
done
if [[ ${FAULT:-cable} == rebalance ]]; then
  until "$FM" status --url "$url" | grep -q "CONVERGED"; do sleep 1; done
  t0=$(ms); "$FM" rebalance --url "$url" --token-file token --wait; t1=$(ms)
  echo "rebalance to CONVERGED: $((t1 - t0)) ms"
fi
sleep 3
grep "building routing with\|tables configured\|fabric-manager: \|num:128\|SUBNET UP$" opensm.log
[[ -f daemon.log ]] && grep "answered in\|repaired in\|fault reaction\|LFT blocks set" daemon.log || true
