#!/usr/bin/env bash
# Fuzzes every parser the plug-in runs on what the daemon sends (docs/opensm.md, "Fuzzing the plug-in"): builds the
# targets of fuzz/ with clang's libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer, runs each for SECONDS
# from its seed corpus (corpus/TARGET), and exits 1 on any finding (crash, leak, undefined behaviour, timeout, out of
# memory), the input kept in WORK_DIR/findings. Prints per target: "fuzz TARGET: N executions in S s (R exec/s)".
# First it runs fuzz/early_answer once under the same sanitizers: the exchange's socket against a daemon that answers
# before it read the subnet.
# Exits 77 (skipped), saying what is missing, without clang, libFuzzer or OpenSM's headers
# (Debian: apt-get install clang libclang-rt-14-dev libopensm-dev libibumad-dev).
# Usage: fuzz.sh SECONDS [WORK_DIR]   (WORK_DIR: the builds, inputs found and findings; default a temporary one)
set -euo pipefail
seconds="${1:?usage: fuzz.sh SECONDS [WORK_DIR]}"
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
inc=/usr/include/infiniband
targets=(answer channel name)

skip() {
  echo "fuzz.sh: skipped: $* (apt-get install clang libclang-rt-14-dev libopensm-dev libibumad-dev)" >&2
  exit 77
}
cc="$(command -v clang-14 || command -v clang || true)"
[[ -n $cc ]] || skip "no clang"
[[ -f $inc/opensm/osm_opensm.h && -f $inc/umad.h ]] || skip "no OpenSM headers in $inc"

if [[ -n ${2:-} ]]; then
  work="$(mkdir -p "$2" && cd "$2" && pwd)"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/findings"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void) d; (void) n; return 0; }' > "$work/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined -o "$work/probe" "$work/probe.c" 2>/dev/null \
  || skip "clang cannot link libFuzzer with the sanitizers ($cc)"

flags=(-std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$inc" -I"$dir" -I"$dir/fuzz")
common=("$dir/fuzz/fuzz_common.c" "$dir/fm_wire.c" "$dir/fm_inbound.c" "$dir/fm_tables.c")
for t in "${targets[@]}"; do
  "$cc" "${flags[@]}" -o "$work/fuzz_$t" "$dir/fuzz/fuzz_$t.c" "${common[@]}" -losmcomp -lpthread
done
"$cc" "${flags[@]/-fsanitize=fuzzer,/-fsanitize=}" -o "$work/early_answer" "$dir/fuzz/early_answer.c" "${common[@]}" \
  "$dir/fm_io.c" -losmcomp -lpthread

failed=0
# the exchange's socket against a daemon answering before it read the subnet: once, not fuzzed
if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$work/early_answer" "$work/early.sock"; then
  echo "early answer: FINDING" >&2
  failed=1
fi
for t in "${targets[@]}"; do
  mkdir -p "$work/corpus/$t"
  log="$work/$t.log"
  rc=0
  # the first corpus directory takes the new inputs; the tree's seeds are only read
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$work/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/findings/$t-" "$work/corpus/$t" "$dir/corpus/$t" >"$log" 2>&1 || rc=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  if [[ $rc -ne 0 || -z $runs ]]; then
    echo "fuzz $t: FINDING (exit $rc), log $log:" >&2
    grep -E 'ERROR|SUMMARY|runtime error|fuzz: expected|Test unit written' "$log" | head -20 >&2 || tail -20 "$log" >&2
    failed=1
    [[ -n ${2:-} ]] || trap - EXIT   # keep a temporary directory that holds a finding
  else
    echo "fuzz $t: $runs executions in $seconds s ($rate exec/s)"
  fi
done
exit "$failed"
