#!/usr/bin/env bash
# Builds OpenSM's plug-in libfabricmanager.so into $1 (docs/opensm.md, "The daemon as OpenSM's routing
# engine"). Run by the Maven build; skipped with one line when gcc or OpenSM's headers are missing
# (Debian: apt-get install gcc libopensm-dev libibumad-dev), so a machine without them still builds.
set -euo pipefail
out="${1:?usage: build.sh OUTPUT_DIR}"
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
inc=/usr/include/infiniband
if ! command -v gcc >/dev/null 2>&1 || [[ ! -f $inc/opensm/osm_event_plugin.h || ! -f $inc/umad.h ]]; then
  echo "OpenSM plug-in not built: needs gcc and OpenSM's headers (apt-get install gcc libopensm-dev libibumad-dev)"
  exit 0
fi
mkdir -p "$out"
gcc -std=gnu11 -Wall -Wextra -Werror -O2 -fPIC -shared -I"$inc" -o "$out/libfabricmanager.so" "$dir"/*.c -lpthread
echo "OpenSM plug-in built: $out/libfabricmanager.so"
