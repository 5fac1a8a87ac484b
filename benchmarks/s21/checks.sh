#!/usr/bin/env bash
# Session 21 (one H100): CPU vs CUDA after session 20's mid-step pressure (transient projection
# keeps p^n + theta p'), never run on a GPU before: `solver check navier-stokes` and
# `solver check advect` on the paper's duct (row "bfecc+quadratic (restarts)").
# bash benchmarks/s21/checks.sh   (carry .gpu with solver, meshtool, duct.msh)
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
D=${D:-.gpu}; C=/tmp/ck; R=${OUT:-/tmp/out}; mkdir -p $R $C
export CFD_KERNEL_CACHE=$C/cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a $R/final.txt
$D/meshtool prepare $D/duct.msh -o $C/duct.pmesh > /dev/null 2>&1
s=$SECONDS; timeout 150 $D/solver check advect --mesh $C/duct.pmesh > $R/check-advect.txt 2>&1; echo "check advect rc $? ($((SECONDS - s)) s)" | tee -a $R/final.txt
grep -E "FAIL|restarts" $R/check-advect.txt | tee -a $R/final.txt; grep -c PASS $R/check-advect.txt | sed 's/^/advect PASS rows: /' | tee -a $R/final.txt
s=$SECONDS; timeout 300 $D/solver check navier-stokes > $R/check-ns.txt 2>&1; echo "check ns rc $? ($((SECONDS - s)) s)" | tee -a $R/final.txt
grep -E "FAIL" $R/check-ns.txt | tee -a $R/final.txt; grep -c PASS $R/check-ns.txt | sed 's/^/ns PASS rows: /' | tee -a $R/final.txt
