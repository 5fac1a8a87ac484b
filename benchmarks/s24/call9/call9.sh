#!/usr/bin/env bash
# Session 24, call 9 (one H100): the final build, every kernel launched early (the
# semi-Lagrangian, advection and Navier-Stokes kernels too): every family's CPU = CUDA checks;
# the same bytes as base (7992cc7) for runs on tetrahedra (advection on a generated box, the DFG
# channels and the Taylor-Green LES on built-in meshes) and a structured one; their stepping
# with CFD_EARLY_LAUNCH=0 and =1.
set -uo pipefail
source benchmarks/device_lib.sh  # N, B, R, W; same
$N check all > $W/check-all.txt 2>&1; echo "check all rc $? pass $(grep -c ' PASS' $W/check-all.txt) fail $(grep -c ' FAIL' $W/check-all.txt)" | tee $R/checks.txt
grep " FAIL" $W/check-all.txt | head >> $R/checks.txt
.gpu/meshtool generate box --dims 24,24,24 -o $W/box.pmesh > /dev/null 2>&1
cd $W; N=$OLDPWD/$N; B=$OLDPWD/$B
for t in advect-rotation advect-deformation dfg-3d-1z dfg-2d-2 tgv-3d-les euler-riemann-2d; do $N cases $t > $t.toml; done
declare -A X=( [advect-rotation]="" [advect-deformation]="--set time.end_time=0.25"
  [dfg-3d-1z]="" [dfg-2d-2]="--set time.end_time=0.3 --set output.every=100"
  [tgv-3d-les]="--set 'mesh=\"builtin:pi-box-16\"' --set time.end_time=1.0"
  [euler-riemann-2d]="--set grid.dims=[300,300,1]" )
{ for t in advect-rotation advect-deformation; do for p in f64 f32; do eval same $t-$p $t.toml --backend cuda --set run.precision=$p ${X[$t]}; done; done
  for t in dfg-3d-1z dfg-2d-2 tgv-3d-les euler-riemann-2d; do eval same $t $t.toml --backend cuda ${X[$t]}; done
} 2>&1 | tee $R/same.txt
{ for t in advect-rotation dfg-3d-1z dfg-2d-2 tgv-3d-les; do for k in 0 1 0 1; do
    eval CFD_EARLY_LAUNCH=$k $N run $t.toml --backend cuda -q -o e2e-$t-$k ${X[$t]} > /dev/null 2>&1
    echo "$t early=$k $(python3 -c "import json;s=json.load(open('e2e-$t-$k/summary.json'));t=s['timing'];print(s.get('steps'), 'stepping', t['stepping'], 'total', t['total'])")"
  done; done; } 2>&1 | tee $R/e2e.txt
