#!/usr/bin/env bash
# Session 22, call 2 (one H100): the halo fill a thread per component, the Euler sweep's fused
# stable-step fold, the shallow-water step at 6 blocks an SM; base (HEAD before) against new.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu/solver; B=.gpu/solver-base; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
# 1. CPU = CUDA
for f in euler shallow-water heat; do
  $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
  grep " FAIL" $W/check-$f.txt | head -5
done 2>&1 | tee $R/checks.txt
cp $W/check-euler.txt $R/
# 2. whole runs: base and new write the same files
$N cases euler-riemann-2d > $W/r2d.toml; $N cases swe-thacker > $W/th.toml; $N cases euler-toro-1 > $W/t1.toml
same() { local tag=$1; shift
  $B run "$@" -q -o $W/base-$tag >/dev/null 2>&1; $N run "$@" -q -o $W/new-$tag >/dev/null 2>&1
  local d=0; for f in $(cd $W/base-$tag && ls *.vt* 2>/dev/null); do cmp -s $W/base-$tag/$f $W/new-$tag/$f || d=$((d+1)); done
  echo "same $tag: $(ls $W/base-$tag | grep -c vt) files, $d differ; steps $(python3 -c "import json;print(json.load(open('$W/new-$tag/summary.json')).get('steps'))")"
}
{
same r2d-exact-f32 $W/r2d.toml --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
same r2d-exact-f64 $W/r2d.toml --backend cuda --set run.precision=f64
same r2d-fast-f32 $W/r2d.toml --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"'
same toro1-f64 $W/t1.toml --backend cuda --set run.precision=f64
same thacker-f32 $W/th.toml --backend cuda --set run.precision=f32
same thacker-f64 $W/th.toml --backend cuda --set run.precision=f64
} 2>&1 | tee $R/same.txt
# 3. benches, base and new alternating
for rep in 1 2; do for b in $B $N; do
  echo "== $b"
  $b bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
  $b bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 2>&1 | grep "^euler"
  $b bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep "^shallow"
done; done 2>&1 | tee $R/bench.txt
# 4. the paper's benchmark end to end
for b in $B $N; do for m in exact fast; do for k in 1 2; do
  /usr/bin/time -f "$b $m wall %e s" $b run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e 2>&1 | tail -1
  python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
done; done; done 2>&1 | tee $R/r2d-e2e.txt
# 5. kernel durations (ncu), new
dur() { local tag=$1; shift
  $NCU --metrics gpu__time_duration.sum --csv --print-units base --launch-skip 200 --launch-count 120 "$@" > $W/ncu-$tag.csv 2>/dev/null
  python3 - $W/ncu-$tag.csv $tag <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; k=h.index("Kernel Name"); v=h.index("Metric Value")
s=collections.defaultdict(list)
for r in rows[1:]:
    s[r[k].split("(")[0]].append(float(r[v].replace(",","")))
print("==", sys.argv[2])
for n,x in sorted(s.items(), key=lambda t:-sum(t[1])):
    print(f"{n:40s} launches {len(x):4d} mean {sum(x)/len(x)/1e3:9.2f} us  total {sum(x)/1e3:9.1f} us")
PY
}
$N cases swe-column > $W/col.toml
{
dur swe1000 $N run $W/col.toml --backend cuda -q --set run.precision=f32 --set "grid.dims=[1000,1000,1]" --set time.end_time=2 --set output.every=0 --set output.interval=0 -o $W/a
dur r2d-fast $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/b
} 2>&1 | tee $R/ncu.txt
