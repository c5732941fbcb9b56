#!/usr/bin/env bash
# Makes docs/img/status-page.png: a demo, a spine powered off, the status page in headless Chromium.
# Usage: docs/img/status-page.sh [PGFT] [OUT.png]   (after `mvn -B package -DskipTests`; needs chromium and curl)
# e.g.   docs/img/status-page.sh 'PGFT(3;16,16,16;1,16,16;1,1,1)' /tmp/status-768.png   for the aggregated view
set -euo pipefail
cd "$(dirname "$0")/../.."
spec=${1:-'PGFT(3;8,8,8;1,8,8;1,1,1)'}
out=${2:-docs/img/status-page.png}
jar=fabric-manager/target/fabric-manager-all.jar
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
work=$(mktemp -d)
java -Xmx2g -jar "$jar" demo --pgft "$spec" --http-port "$port" --state-dir "$work/state" >"$work/demo.out" 2>&1 &
demo=$!
trap 'kill $demo 2>/dev/null; wait $demo 2>/dev/null || true; rm -rf "$work"' EXIT
base="http://127.0.0.1:$port"
version() { curl -sf "$base/api/v1/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["routing"]["version"])' 2>/dev/null || echo 0; }
state() { curl -sf "$base/api/v1/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null || echo none; }
for _ in $(seq 600); do [ "$(state)" = CONVERGED ] && break; sleep 1; done
before=$(version)
# the fifth top-level switch loses power (PgftGenerator numbers switches 0x10000000LL000000 + index)
curl -sf -X POST "$base/api/v1/sim/switches/0x1000000300000004/kill?mode=power" >/dev/null
for _ in $(seq 300); do [ "$(version)" -gt "$before" ] && [ "$(state)" = CONVERGED ] && break; sleep 1; done
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/chromium" \
    --virtual-time-budget=15000 --window-size=1400,1500 --screenshot="$out" "$base/" 2>/dev/null
echo "wrote $out (routing v$before -> v$(version))"
