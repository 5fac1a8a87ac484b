#!/usr/bin/env bash
# Session 22, call 1 (one H100): where the shallow-water and Euler-2D steps spend their time.
# ncu kernel durations of a few steps, the shallow-water step's tile, the r2d run end to end.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=${N:-.gpu/solver}; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/device.txt
# 1. shallow water, tank f32, as it ships and with other tiles
for d in "" "SWE_TY=16 SWE_MINB=3" "SWE_TY=16 SWE_MINB=2" "SWE_TY=4 SWE_MINB=8" "SWE_MINB=4" "SWE_MINB=6" "SWE_TX=64 SWE_TY=4 SWE_MINB=5" "SWE_TX=16 SWE_TY=16 SWE_MINB=5"; do
  echo "== swe defines [$d]"
  CFD_SWE_DEFINES="$d" $N bench shallow-water --sizes 1000,8000 --precision f32 --steps 200 --reps 3 2>&1 | grep -E "column|error|Error" | head -4
done 2>&1 | tee $R/swe-tiles.txt
# 2. per-kernel durations (ncu serializes, so each kernel's own time)
$N cases swe-column > $W/col.toml
$N cases euler-riemann-2d > $W/r2d.toml
dur() { local tag=$1; shift
  $NCU --metrics gpu__time_duration.sum --csv --print-units base --launch-skip 200 --launch-count 120 "$@" > $W/ncu-$tag.csv 2>$W/ncu-$tag.err
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
dur swe1000 $N run $W/col.toml --backend cuda -q --set run.precision=f32 --set "grid.dims=[1000,1000,1]" --set time.end_time=2 --set output.every=0 --set output.interval=0 -o $W/a
dur r2d-fast $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' -o $W/b
dur r2d-exact $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' -o $W/c
cat $W/ncu-*.err | grep -v "^==PROF==" | head -5
# 3. the Euler paper's benchmark end to end (warm cache after the ncu runs compiled the kernels)
for m in exact fast; do for k in 1 2; do
  /usr/bin/time -f "wall %e s" $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e-$m 2>&1 | tail -1
  python3 -c "import json;t=json.load(open('$W/e2e-$m/summary.json'))['timing'];print('$m', {k:round(v,4) for k,v in t.items() if isinstance(v,(int,float))})"
done; done 2>&1 | tee $R/r2d-e2e.txt
$N bench euler --only "riemann-2d hllc" --sizes 1000 --precision f32 --steps 20 --reps 5 --set 'run.math="fast"' 2>&1 | tail -3 | tee -a $R/r2d-e2e.txt
