#!/usr/bin/env bash
# Session 22, call 3 (one H100): the MUSCL-Hancock sweep finds its axis's ghosts from the interior
# (no fill launch) and its last block advances the clock (no clock launch); base (HEAD before the
# session) against new; the sweep's blocks an SM.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu/solver; B=.gpu/solver-base; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/device.txt
for f in euler shallow-water heat; do
  $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
  grep " FAIL" $W/check-$f.txt | head -5
done 2>&1 | tee $R/checks.txt
cp $W/check-euler.txt $R/
same() { local tag=$1; shift
  $B run "$@" -q -o $W/base-$tag >/dev/null 2>&1; $N run "$@" -q -o $W/new-$tag >/dev/null 2>&1
  local d=0; for f in $(cd $W/base-$tag && ls *.vt* 2>/dev/null); do cmp -s $W/base-$tag/$f $W/new-$tag/$f || d=$((d+1)); done
  echo "same $tag: $(ls $W/base-$tag | grep -c vt) files, $d differ; steps $(python3 -c "import json;print(json.load(open('$W/new-$tag/summary.json')).get('steps'))" 2>&1 | tail -1)"
}
{
for c in euler-toro-1 euler-toro-2 euler-toro-3 euler-toro-4 euler-toro-5 euler-density-wave euler-riemann-2d euler-rt-2d; do
  $N cases $c > $W/$c.toml
  for p in f64 f32; do same $c-$p $W/$c.toml --backend cuda --set run.precision=$p; done
done
same r2d-hllc-f32 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
same r2d-fast-f32 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"'
same r2d-reflect-periodic-f64 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f64 --set 'euler.boundary={ x = "reflect", y = "periodic", z = "outflow" }' --set grid.dims=[200,100,1] --set time.end_time=0.4
same r2d-periodic-reflect-f32 $W/euler-riemann-2d.toml --backend cuda --set run.precision=f32 --set 'euler.boundary={ x = "periodic", y = "reflect", z = "outflow" }' --set grid.dims=[100,200,1] --set time.end_time=0.4
CFD_EULER_GHOSTS=fill same r2d-hllc-f32-fill $W/euler-riemann-2d.toml --backend cuda --set run.precision=f32 --set 'euler.riemann="hllc"'
} 2>&1 | tee $R/same.txt
# benches: base, new, new with the fill (CFD_EULER_GHOSTS=fill), new at 3/5/6 sweep blocks an SM
bench() { "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | grep "^euler"
          "$@" bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 2>&1 | grep "^euler"; }
{
for rep in 1 2; do
  echo "== base"; bench $B
  echo "== new"; bench $N
  echo "== new, fill"; CFD_EULER_GHOSTS=fill bench $N
done
for k in 3 5 6; do echo "== new, sweep minb $k"; CFD_EULER_SWEEP_MINB=$k bench $N; done
echo "== 3D cube (the sweep's 3 axes), base / new"
$B bench euler --only "toro-1 cube hllc" --sizes 256 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
$N bench euler --only "toro-1 cube hllc" --sizes 256 --precision f32 --steps 10 --reps 3 --set 'run.math="fast"' 2>&1 | grep "^euler"
} 2>&1 | tee $R/bench.txt
for b in $B $N; do for m in exact fast; do for k in 1 2 3; do
  /usr/bin/time -f "$b $m wall %e s" $b run $W/euler-riemann-2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e 2>&1 | tail -1
  python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
done; done; done 2>&1 | tee $R/r2d-e2e.txt
$NCU --metrics gpu__time_duration.sum --csv --print-units base --launch-skip 200 --launch-count 100 $N run $W/euler-riemann-2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/b > $W/ncu.csv 2>/dev/null
python3 - $W/ncu.csv <<'PY' | tee $R/ncu.txt
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; k=h.index("Kernel Name"); v=h.index("Metric Value")
s=collections.defaultdict(list)
for r in rows[1:]:
    s[r[k].split("(")[0]].append(float(r[v].replace(",","")))
for n,x in sorted(s.items(), key=lambda t:-sum(t[1])):
    print(f"{n:40s} launches {len(x):4d} mean {sum(x)/len(x)/1e3:9.2f} us  total {sum(x)/1e3:9.1f} us")
PY
