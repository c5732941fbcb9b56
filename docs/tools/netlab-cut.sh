#!/bin/bash
# Packets lost while a netlab reacts to an event (docs/performance.md, "Real packets: netlab").
# usage: netlab-cut.sh PREFIX OUT COMMAND...
# Streams 6,000 sequence-numbered UDP packets at 1,000/s from node 0 to node 63 (10.0.0.64), runs COMMAND once
# 1,000 have arrived, and writes the gaps the receiver saw to OUT (packets lost, window in ms, time).
set -euo pipefail
P=$1; OUT=$2; shift 2
here="$(cd "$(dirname "$0")" && pwd)"
PY=/usr/bin/python3   # not a shim: a slow interpreter start shifts the event against the stream
rm -f "$OUT.mark"
ip netns exec "$P-n63" $PY "$here/netlab-stream.py" recv 15 "$OUT" 6000 &
sleep 0.3
ip netns exec "$P-n0" $PY "$here/netlab-stream.py" send 10.0.0.64 1000 6 > /dev/null &
until [ -e "$OUT.mark" ]; do sleep 0.01; done
echo "event at $(date -u +%H:%M:%S.%3N): $*"
"$@"
wait
rm -f "$OUT.mark"
cat "$OUT"
