#!/usr/bin/env bash
# Session 24, call 5 (one H100): every kernel of a structured step launched early (now also the
# walls' hydrostatic ghosts, the stable step's fold, the soundness check, shallow water's open
# sides and sources): CPU = CUDA, the same bytes as base (7992cc7), and every structured
# template end to end with CFD_EARLY_LAUNCH=1 and =0, alternating (summary.json's stepping).
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W; same
for f in euler shallow-water heat; do
  $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
  grep " FAIL" $W/check-$f.txt | head -5
done 2>&1 | tee $R/checks.txt
T="euler-toro-1 euler-toro-2 euler-toro-3 euler-toro-4 euler-toro-5 euler-density-wave euler-riemann-2d euler-rt-2d euler-rt-3d euler-rt-3d-multimode swe-lake-at-rest swe-dam-break-dry swe-dam-break-wet swe-thacker swe-column swe-estuary heat-gaussian heat-erfc heat-decay heat-benchmark"
for t in $T; do $N cases $t > $W/$t.toml; done
{ for t in euler-toro-2 euler-rt-2d euler-rt-3d-multimode swe-estuary swe-thacker swe-lake-at-rest; do
    for p in f64 f32; do same $t-$p $W/$t.toml --backend cuda --set run.precision=$p; done
  done; } 2>&1 | tee $R/same.txt
e2e() { local t=$1 k=$2
  CFD_EARLY_LAUNCH=$k /usr/bin/time -f "%e" -o $W/wall $N run $W/$t.toml --backend cuda -q -o $W/e2e-$t-$k >/dev/null 2>&1
  python3 -c "import json;s=json.load(open('$W/e2e-$t-$k/summary.json'));t=s['timing'];print(s.get('steps'), t['stepping'], t['total'], open('$W/wall').read().strip())"
}
{ echo "template | steps | stepping off | stepping on | total off | total on | wall off | wall on"
  for t in $T; do
    a=(); b=()
    for rep in 1 2; do a+=("$(e2e $t 0)"); b+=("$(e2e $t 1)"); done
    python3 - "$t" "${a[@]}" "${b[@]}" <<'PY'
import sys
t=sys.argv[1]; a=[x.split() for x in sys.argv[2:4]]; b=[x.split() for x in sys.argv[4:6]]
m=lambda rows,i: min(float(r[i]) for r in rows)
print(f"{t} | {a[0][0]} | {m(a,1):.4f} | {m(b,1):.4f} | {m(a,2):.3f} | {m(b,2):.3f} | {m(a,3):.2f} | {m(b,3):.2f}")
PY
  done; } 2>&1 | tee $R/e2e.txt
