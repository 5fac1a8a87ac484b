#!/usr/bin/env bash
# Session 18, call 1 (2 GPUs, one host): heat 512^3 f64 on 1 and 2 GPUs with the planes beside
# the neighbours updated one thread a point (new default) or by the register-queue kernel in
# chunks (CFD_HEAT_ENDS=queue, the old path), the exchange off (plain path) and hollow (the
# hidden path's kernels without copies); 2 GPUs write the same files as 1 (heat by copy engine,
# periodic and Dirichlet; RT 3D), and CPU vs CUDA on one GPU (check heat).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
D=${D:-.gpu33}; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi -L | tee $R/devices.txt
h() { $D/solver bench heat --only register-queue --sizes 512 --precision f64 --steps 20 --reps 3 "$@" 2>&1 | grep "^heat"; }
h --gpus 2 --sizes 128 --steps 2 --reps 1 >/dev/null
for rep in 1 2; do
  for g in 1 2; do h --gpus $g | sed "s/^/points gpus=$g rep$rep: /" | tee -a $R/final.txt; done
  CFD_HEAT_ENDS=queue h --gpus 2 | sed "s/^/queue gpus=2 rep$rep: /" | tee -a $R/final.txt
  CFD_PARTS_EXCHANGE=off h --gpus 2 | sed "s/^/off gpus=2 rep$rep: /" | tee -a $R/final.txt
  CFD_PARTS_EXCHANGE=hollow h --gpus 2 | sed "s/^/hollow-points gpus=2 rep$rep: /" | tee -a $R/final.txt
  CFD_PARTS_EXCHANGE=hollow CFD_HEAT_ENDS=queue h --gpus 2 | sed "s/^/hollow-queue gpus=2 rep$rep: /" | tee -a $R/final.txt
done
same() {  # name template sets...
  local name=$1 template=$2; shift 2; local extra=()
  for s in "$@"; do extra+=(--set "$s"); done
  $D/solver cases "$template" > $W/$template.toml
  for p in f64 f32; do
    for g in 1 2; do
      CFD_PARTS_TRANSPORT=copy $D/solver run $W/$template.toml --backend cuda -q --set run.precision=$p --set run.gpus=$g "${extra[@]}" -o $W/$name-$p-$g > $W/$name-$p-$g.log 2>&1 || echo "FAIL run $name $p $g"
    done
    n=0; bad=0
    for f in $W/$name-$p-1/*.vti; do n=$((n+1)); cmp -s $f $W/$name-$p-2/$(basename $f) || bad=$((bad+1)); done
    echo "same $name $p: $n files, $bad differ" | tee -a $R/final.txt
  done
}
same heat heat-benchmark "grid.dims=[64,63,64]" "time.steps=200" "output.every=100"
same heat-dirichlet heat-benchmark "grid.dims=[63,64,63]" "time.steps=100" "output.every=50" \
  'heat.boundary={x={dirichlet=[0.5,2.0]}, y="periodic", z={dirichlet=[1.0,0.0]}}'
same heat-512 heat-benchmark "grid.dims=[128,128,256]" "time.steps=60" "output.every=30"
same rt3d euler-rt-3d "time.end_time=1.0"
$D/solver check heat 2>&1 | tail -12 | tee $R/check-heat.txt
python3 - $R/final.txt <<'PY'
import re, sys, collections
rates = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.match(r"(\S+) gpus=(\d) rep\d: heat\s+.*?512\^3\s+f64\s+\d+\s+(\S+)\s+(\S+)", l)
    if m: rates[(m.group(1), m.group(2))].append((float(m.group(3)), float(m.group(4))))
one = max(r for s, r in rates[("points", "1")]) if ("points", "1") in rates else None
for (v, g), xs in sorted(rates.items()):
    best = max(xs, key=lambda t: t[1])
    print(f"{v:14s} gpus={g} s/step {best[0]:.6f} cell-updates/s {best[1]:.4e}" + (f"  speed-up {best[1]/one:.3f}" if one and g == "2" else ""))
PY
