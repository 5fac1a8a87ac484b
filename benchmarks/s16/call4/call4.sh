#!/usr/bin/env bash
# Session 16, call 4: check navier-stokes (the new LES rows); the drag curve's Re 20 and 40 at
# dt 0.01; the 3D Taylor-Green vortex at Re 1600 (template tgv-3d-les) on the 32^3 and 64^3
# octants, without and with the flux memory (tau = L/U = 1), none / smagorinsky / dynamic.
# Runs share the GPU (loop times are not timings). Everything returns in one tarball.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=.gpu31; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d); T=$W/keep; mkdir -p $T
export CFD_KERNEL_CACHE=$W/cache
nvidia-smi --query-gpu=name --format=csv,noheader | tee $T/device.txt
$D/solver check navier-stokes > $T/check-ns-full.txt 2>&1; echo "check navier-stokes rc $?" | tee -a $T/final.txt
grep -E "PASS|FAIL|n/a" $T/check-ns-full.txt > $T/check-ns.txt
$D/meshtool prepare $D/cyl.msh -o $W/cyl.pmesh > $T/prepare-cyl.txt 2>&1
( python3 scripts/drag_curve.py run --solver $D/solver --mesh $W/cyl.pmesh --backend cuda --re 20,40 $W/dc > $T/drag_curve.txt 2>&1; echo "drag_curve rc $?" >> $T/drag_curve.txt ) &
$D/solver cases tgv-3d-les > $W/tgv.toml
tgv() { # label n dt les memory(0/1)
  extra=(--set "mesh=\"builtin:pi-box-$2\"" --set time.dt=$3 --set "navier-stokes.les=\"$4\"" --set output.every=100000)
  [ $5 = 1 ] && extra+=(--set 'navier-stokes.flux_memory="full"' --set navier-stokes.flux_memory_time=1.0)
  $D/solver run $W/tgv.toml --backend cuda -q "${extra[@]}" -o $W/$1 > $T/$1.log 2>&1; echo "rc $?" >> $T/$1.log
  cp $W/$1/summary.json $T/$1-summary.json 2>/dev/null; cp $W/$1/energy.csv $T/$1-energy.csv 2>/dev/null
}
for les in none smagorinsky dynamic; do for m in 0 1; do tgv tgv32-$les-m$m 32 0.05 $les $m & done; done
wait
for les in none dynamic; do tgv tgv64-$les-m1 64 0.025 $les 1 & done
wait
mkdir -p $T/dc; for re in 20 40; do cp $W/dc/re$re/summary.json $T/dc/re$re-summary.json; cp $W/dc/re$re.log $T/dc/; done 2>/dev/null
python3 - $T <<'PY' | tee -a $T/final.txt
import glob, json, os, sys
print("| run | cells | E(12) | peak -dE/dt | at t | mean nu_t/nu |")
print("|---|---|---|---|---|---|")
for p in sorted(glob.glob(os.path.join(sys.argv[1], "tgv*-summary.json"))):
    s = json.load(open(p)); k = s.get("kinetic_energy", {}); l = s.get("les") or {}
    print("| %s | %s | %.5f | %.5f | %.2f | %s |" % (os.path.basename(p)[:-13], s.get("cells"), k.get("value", -1), k.get("max_dissipation_rate", -1), k.get("max_dissipation_time", -1), l.get("mean_nut_over_nu", "-")))
PY
cat $T/drag_curve.txt | tee -a $T/final.txt
tar czf $R/call4.tgz -C $W keep; grep -c PASS $T/check-ns.txt; grep FAIL $T/check-ns.txt
