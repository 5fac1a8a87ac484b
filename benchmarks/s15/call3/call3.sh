#!/usr/bin/env bash
# Session 15, call 3: ncu of the Euler kernels in fast math (f32): the 2D sweep, the 3D sweep, the z march.
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu30/solver; R=${OUT:-/tmp/out}; mkdir -p $R; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
echo "ncu: $NCU"
$N cases euler-riemann-2d > $W/r2d.toml
$N cases euler-toro-1 > $W/t1.toml
$N cases euler-rt-3d > $W/rt3.toml
SEC="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SchedulerStats"
prof() { local tag=$1; shift
  $NCU $SEC --kernel-name regex:"euler_(sweep|rk_march)" --launch-skip 4 --launch-count 2 "$@" > $R/ncu-$tag.txt 2>&1; echo "$tag rc $?"; }
prof r2d-fast $N run $W/r2d.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' --set time.end_time=0.01 -o $W/a
prof cube-fast $N run $W/t1.toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set 'run.math="fast"' --set "grid.dims=[256,256,256]" --set time.end_time=0.002 -o $W/b
prof march-fast $N run $W/rt3.toml --backend cuda -q --set run.precision=f32 --set 'run.math="fast"' --set "grid.dims=[256,256,256]" --set time.end_time=0.01 --set output.every=0 -o $W/c
for f in $R/ncu-*.txt; do echo "== $f"; grep -E "euler_|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Issue Slots Busy|Executed Ipc A|No Eligible|L1/TEX Hit|Stall|One or More" $f | head -60; done
