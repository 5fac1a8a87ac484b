#!/usr/bin/env bash
# Session 24, call 10 (one H100): the z march finds each cell's limited slope along z once (the
# face below a cell keeps its upper value for the face above) instead of once per face:
# registers, CPU = CUDA, the same bytes as base (7992cc7) in exact math, and the PLM + RK3 step
# against the build before it (.gpu/solver-head, ee013fb), alternating.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W; same, check_families
H=.gpu/solver-head
{ python3 scripts/kernel_resources.py euler --fmad=false; python3 scripts/kernel_resources.py euler --fmad=true; } 2>&1 | grep -E "march|stage" > $R/regs.txt
check_families euler
$N cases euler-rt-3d > $W/rt3d.toml; $N cases euler-rt-3d-multimode > $W/rt3dm.toml; $N cases euler-toro-3 > $W/t3.toml
{ for p in f64 f32; do same rt3d-$p $W/rt3d.toml --backend cuda --set run.precision=$p; done
  same rt3dm-f32 $W/rt3dm.toml --backend cuda --set run.precision=f32
  for p in f64 f32; do same t3-z-plm-$p $W/t3.toml --backend cuda --set run.precision=$p --set 'grid.dims=[40,36,64]' --set 'euler.scheme="plm-rk3"' --set euler.initial.axis=2; done
  for l in minmod van-leer; do same rt3d-$l-f64 $W/rt3d.toml --backend cuda --set run.precision=f64 --set "euler.limiter=\"$l\"" --set time.end_time=2.0; done
  B0=$B; B=$H; same rt3d-fast-vs-head $W/rt3d.toml --backend cuda --set run.precision=f32 --set 'run.math="fast"'; B=$B0
} 2>&1 | tee $R/same.txt
pb() { "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110
       "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110
       "$@" bench euler --only "rt-3d plm-rk3 hll" --sizes 256 --precision f64 --steps 5 --reps 3 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-110; }
{ for rep in 1 2; do echo "== $rep head"; pb $H; echo "== $rep new"; pb $N; done; } 2>&1 | tee $R/bench.txt
