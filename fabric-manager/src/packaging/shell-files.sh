#!/usr/bin/env bash
# Writes the manual page and the bash completion script of the jar just built into $3 (fabric-manager.1.gz and
# fabric-manager.bash), for the Debian package and the RPM: made by the release's own `man` and `completion`
# commands, so they always name its commands. Run by the Maven build after the shade plug-in.
set -euo pipefail
java="${1:?usage: shell-files.sh JAVA JAR OUTPUT_DIR}"
jar="${2:?usage: shell-files.sh JAVA JAR OUTPUT_DIR}"
out="${3:?usage: shell-files.sh JAVA JAR OUTPUT_DIR}"
mkdir -p "$out"
# -n: no name or time stamp in the gzip header, so two builds of one release give the same file
"$java" -jar "$jar" man | gzip -9n > "$out/fabric-manager.1.gz"
"$java" -jar "$jar" completion > "$out/fabric-manager.bash"
[[ -s "$out/fabric-manager.bash" ]] || { echo "shell-files.sh: the completion script is empty" >&2; exit 1; }
