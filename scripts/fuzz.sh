#!/usr/bin/env bash
# Fuzz the readers with libFuzzer (cargo fuzz): the Gmsh reader (msh), the prepared-mesh reader
# (pmesh), the case-file parser and validation (case) and the checkpoint reader (checkpoint).
# Each target runs RUNS executions (default 10 million) from its kept corpus (fuzz/corpus/NAME);
# with MERGE=1 the inputs that reached new coverage are merged (minimised) back into that corpus,
# which CI replays on stable Rust (tests/tests/fuzz_corpus.rs). A crash stops the script with
# the input's path (fix it, then add the input to the corpus).
#
#   scripts/fuzz.sh [TARGET ...]          # default: all four
#   RUNS=1000000 JOBS=2 MERGE=1 scripts/fuzz.sh msh
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); the stable toolchain is enough: the -Z flags
# are allowed by RUSTC_BOOTSTRAP=1. Sanitizer off (Rust readers; a panic or abort is the failure
# looked for, and it runs ~3x faster). Working copies and logs in $CFD_TARGET/fuzz-work.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
RUNS=${RUNS:-10000000}
JOBS=${JOBS:-1}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(msh pmesh case checkpoint)
command -v cargo-fuzz > /dev/null || { echo "fuzz: cargo-fuzz not found: cargo install cargo-fuzz" >&2; exit 1; }
(cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -O -s none 2>&1 | grep -v "^warning" | tail -3) >&2 || true
bin=fuzz/target/x86_64-unknown-linux-gnu/release
work="$CFD_TARGET/fuzz-work"
mkdir -p "$work"
rows=()
for t in "${targets[@]}"; do
  [ -x "$bin/$t" ] || { echo "fuzz: $bin/$t was not built" >&2; exit 1; }
  mkdir -p "$work/$t" "$work/$t-artifacts"
  cp -n fuzz/corpus/"$t"/* "$work/$t/" 2> /dev/null || true
  log="$work/$t.log"
  start=$(date +%s)
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: an input may not make a reader
  # allocate gigabytes it does not pay for.
  per_job=$(( (RUNS + JOBS - 1) / JOBS ))
  if [ "$JOBS" -gt 1 ]; then
    for j in $(seq 1 "$JOBS"); do
      "$bin/$t" "$work/$t" -runs="$per_job" -timeout=10 -rss_limit_mb=2048 -seed="$j" \
        -artifact_prefix="$work/$t-artifacts/" -print_final_stats=1 > "$log.$j" 2>&1 &
    done
    status=0
    wait || status=$?
    cat "$log".* > "$log"
  else
    status=0
    "$bin/$t" "$work/$t" -runs="$RUNS" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$work/$t-artifacts/" -print_final_stats=1 > "$log" 2>&1 || status=$?
  fi
  secs=$(( $(date +%s) - start ))
  execs=$(grep -o "stat::number_of_executed_units: [0-9]*" "$log" | awk '{s += $2} END {print s + 0}')
  if [ "$status" -ne 0 ] || ls "$work/$t-artifacts"/* > /dev/null 2>&1; then
    echo "fuzz: $t FAILED after $execs executions; see $log and the input(s) in $work/$t-artifacts/" >&2
    grep -m5 -E "panicked|ERROR|SUMMARY" "$log" >&2 || true
    exit 1
  fi
  if [ "${MERGE:-0}" = 1 ]; then
    "$bin/$t" -merge=1 fuzz/corpus/"$t" "$work/$t" > "$work/$t-merge.log" 2>&1
  fi
  rows+=("$(printf '%-11s %12s %8s %10s %8s' "$t" "$execs" "$secs" "$(( execs / (secs > 0 ? secs : 1) ))" "$(ls fuzz/corpus/"$t" | wc -l)")")
done
printf '%-11s %12s %8s %10s %8s\n' target executions seconds exec/s corpus
printf '%s\n' "${rows[@]}"
echo "fuzz: no crash, hang or memory blow-up in any target"
