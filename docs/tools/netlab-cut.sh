#!/bin/bash
# Packets lost while a netlab reacts to an event (docs/performance.md, "Real packets: netlab").
# usage: [FROM=i] [TO=j] netlab-cut.sh PREFIX OUT COMMAND...
# Streams 6,000 sequence-numbered UDP packets at 1,000/s from node FROM (namespace PREFIX-nFROM, default 0) to node
# TO (default 63; its address read from the lab's namespace map), runs COMMAND once 1,000 have arrived, and writes
# the gaps the receiver saw to OUT (packets lost, window in ms, time). Pick a pair whose path crosses the element
# COMMAND breaks: `curl 'REST/api/v1/route?src=S&dst=D'` gives the hops (S and D are destination indices, the
# map's INDEX column).
set -euo pipefail
P=$1; OUT=$2; shift 2
FROM=${FROM:-0}; TO=${TO:-63}
here="$(cd "$(dirname "$0")" && pwd)"
PY=/usr/bin/python3   # not a shim: a slow interpreter start shifts the event against the stream
if [[ ! -x "$PY" ]]; then
  echo "netlab-cut.sh: needs $PY (apt-get install python3)" >&2
  exit 2
fi
if [[ ! -f "$here/netlab-stream.py" ]]; then
  echo "netlab-cut.sh: $here/netlab-stream.py is missing (it ships beside this script, in docs/tools)" >&2
  exit 2
fi
map=/run/fabric-manager/netlab-$P/namespaces.txt
# map line: NAMESPACE node GUID NAME INDEX MAC ADDRESS
DST=$(awk -v ns="$P-n$TO" '$1 == ns && $2 == "node" { print $7 }' "$map")
if [[ -z "$DST" || "$DST" == "-" ]]; then
  echo "netlab-cut.sh: no address for $P-n$TO in $map" >&2
  exit 2
fi
rm -f "$OUT.mark"
ip netns exec "$P-n$TO" $PY "$here/netlab-stream.py" recv 15 "$OUT" 6000 &
sleep 0.3
ip netns exec "$P-n$FROM" $PY "$here/netlab-stream.py" send "$DST" 1000 6 > /dev/null &
until [ -e "$OUT.mark" ]; do sleep 0.01; done
echo "event at $(date -u +%H:%M:%S.%3N), load $(cut -d' ' -f1-3 /proc/loadavg): $*"
"$@"
wait
rm -f "$OUT.mark"
cat "$OUT"
