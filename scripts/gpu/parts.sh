#!/usr/bin/env bash
# Euler and heat split over the GPUs of one host (2 GPUs or more; from the repository root, .gpu
# staged): the grid layer's parts (`grid::parts`), one process driving both GPUs
# (run.gpus = 2, the copy engines between them; CFD_PARTS_TRANSPORT=nccl for NCCL) and one
# process per GPU under mpirun (NCCL). Shows: CPU vs CUDA
# still agree on one GPU (`solver check`); 2 GPUs write the same files as 1 GPU, f64 and f32,
# for every Euler scheme and the heat boundaries; the 2-GPU speed-up at 512^3 (Euler 3D
# PLM + HLL + SSP-RK3 f32, MUSCL-Hancock + HLLC f32, heat f64) and the exposed exchange
# (CFD_PARTS_EXCHANGE=off: no exchange, timing only). NVLink multicast stays off. Results in $OUT
# (or .gpu/results; with $OUT the JSON in one tar). Knobs: PARTS_CHECK=0,
# PARTS_SAME=0|all|final|peer|init|heat, PARTS_BENCH=0,
# PARTS_SIZES (512).
set -uo pipefail
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0
G=${GPU:-.gpu}
S=$G/solver
R=${OUT:-$G/results}
W=$(mktemp -d)
mkdir -p "$R"
status=0
fail() { echo "FAIL: $*"; status=1; }
nvidia-smi -L | tee "$R/parts-devices.txt"

if [ "${PARTS_CHECK:-1}" != 0 ]; then
  echo "== CPU vs CUDA (one GPU): ${PARTS_CHECKS:-euler heat} checks"
  for f in ${PARTS_CHECKS:-euler heat}; do $S check $f 2>&1 | grep -v "grid halo" | tee -a "$R/parts-check.txt" || fail "check $f"; done
fi

# name template sets...: 1 GPU, 2 GPUs in one process, (MPI=1) 2 processes, every .vti compared.
same() {
  local name=$1 template=$2; shift 2
  local extra=()
  for s in "$@"; do extra+=(--set "$s"); done
  $S cases "$template" > "$W/$template.toml"
  for p in f64 f32; do
    for g in 1 2; do
      $S run "$W/$template.toml" --backend cuda -q --set run.precision=$p --set run.gpus=$g "${extra[@]}" -o "$W/$name-$p-$g" \
        || fail "$name $p $g gpus"
    done
    if [ "${MPI:-0}" = 1 ] && [ -x $G/solver-mpi ]; then
      mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH $G/solver-mpi run "$W/$template.toml" --backend cuda -q \
        --set run.precision=$p "${extra[@]}" -o "$W/$name-$p-mpi" || fail "$name $p mpirun"
    fi
    for other in 2 mpi; do
      [ -d "$W/$name-$p-$other" ] || continue
      n=0; bad=0
      for f in "$W/$name-$p-1"/*.vti; do
        n=$((n + 1)); cmp -s "$f" "$W/$name-$p-$other/$(basename "$f")" || bad=$((bad + 1))
      done
      echo "$name $p: 1 GPU vs $other: $n files, $bad differ" | tee -a "$R/parts-same.txt"
      { [ "$bad" = 0 ] && [ "$n" -ge 2 ]; } || fail "$name $p $other differs"
    done
  done
}
if [ "${PARTS_SAME:-all}" = all ]; then
  echo "== 2 GPUs write the same files as 1 GPU: Euler"
  same toro1 euler-toro-1 "grid.dims=[4000,1,1]"
  same toro3-plm euler-toro-3 "grid.dims=[4000,1,1]" 'euler.scheme="plm-rk3"' 'euler.riemann="hllc"'
  same density-wave euler-density-wave "grid.dims=[256,256,1]"
  same riemann2d euler-riemann-2d "grid.dims=[400,400,1]" 'euler.riemann="hllc"'
  same rt2d euler-rt-2d "time.end_time=2.0"
  MPI=1 same rt3d euler-rt-3d "time.end_time=1.0"
  same rt3d-multi euler-rt-3d-multimode "time.end_time=1.0"
  same toro1-z euler-toro-1 "grid.dims=[32,32,256]" "euler.initial.axis=2" 'euler.boundary.z="periodic"'
fi
if [ "${PARTS_SAME:-all}" = final ]; then
  echo "== 2 GPUs write the same files as 1 GPU: the merged build (Euler, heat, shallow water)"
  MPI=1 same rt3d euler-rt-3d "time.end_time=1.0"
  same riemann2d euler-riemann-2d "grid.dims=[400,400,1]" 'euler.riemann="hllc"'
  MPI=1 same heat heat-benchmark "grid.dims=[64,63,64]" "time.steps=200" "output.every=100"
  MPI=1 same thacker swe-thacker "grid.dims=[400,300,1]" "output.interval=0.5" "time.end_time=2.0"
  same estuary swe-estuary "time.end_time=7200.0" "output.interval=2400.0"
  same estuary-ghost2 swe-estuary "time.end_time=7200.0" "output.interval=2400.0" "shallow-water.ghost_rows=2"
elif [ "${PARTS_SAME:-all}" = init ]; then
  echo "== 2 GPUs write the same files as 1 GPU: each part's own initial values (random multimode RT, heat)"
  same rt3d-multi euler-rt-3d-multimode "time.end_time=1.0"
  CFD_PARTS_TRANSPORT=copy same heat-copy heat-benchmark "grid.dims=[64,63,64]" "time.steps=200" "output.every=100"
elif [ "${PARTS_SAME:-all}" = peer ]; then
  echo "== 2 GPUs write the same files as 1 GPU: the exchange by copy engine (heat hides it), and NCCL under mpirun"
  MPI=1 same heat heat-benchmark "grid.dims=[64,63,64]" "time.steps=200" "output.every=100"
  same heat-naive heat-benchmark "grid.dims=[45,44,45]" 'heat.kernel="naive"' "time.steps=100" "output.every=50"
  same heat-dirichlet heat-benchmark "grid.dims=[63,64,63]" "time.steps=100" "output.every=50" \
    'heat.boundary={x={dirichlet=[0.5,2.0]}, y="periodic", z={dirichlet=[1.0,0.0]}}'
  MPI=1 same rt3d euler-rt-3d "time.end_time=1.0"
  same toro1-z euler-toro-1 "grid.dims=[32,32,256]" "euler.initial.axis=2" 'euler.boundary.z="periodic"'
  same riemann2d euler-riemann-2d "grid.dims=[400,400,1]" 'euler.riemann="hllc"'
elif [ "${PARTS_SAME:-all}" != 0 ]; then
  echo "== 2 GPUs write the same files as 1 GPU: heat"
  MPI=1 same heat heat-benchmark "grid.dims=[64,63,64]" "time.steps=200" "output.every=100"
  # Grids this small exchange by NCCL (heat's COPY_ENGINE_PART): the copy engines and the
  # hidden exchange, forced.
  CFD_PARTS_TRANSPORT=copy same heat-copy heat-benchmark "grid.dims=[64,63,64]" "time.steps=200" "output.every=100"
  CFD_PARTS_TRANSPORT=copy same heat-copy-dirichlet heat-benchmark "grid.dims=[63,64,63]" "time.steps=100" "output.every=50" \
    'heat.boundary={x={dirichlet=[0.5,2.0]}, y="periodic", z={dirichlet=[1.0,0.0]}}'
  same heat-naive heat-benchmark "grid.dims=[45,44,45]" 'heat.kernel="naive"' "time.steps=100" "output.every=50"
  same heat-dirichlet heat-benchmark "grid.dims=[63,64,63]" "time.steps=100" "output.every=50" \
    'heat.boundary={x={dirichlet=[0.5,2.0]}, y="periodic", z={dirichlet=[1.0,0.0]}}'
fi

if [ "${PARTS_BENCH:-1}" != 0 ]; then
  echo "== 1 GPU against 2 (same machine, same call)"
  sizes=${PARTS_SIZES:-512}
  bench() {  # label family only precision
    local label=$1 fam=$2 only=$3 p=$4
    for g in 1 2; do
      $S bench "$fam" --only "$only" --sizes "$sizes" --precision "$p" --gpus $g --reps 2 --json "$R/parts-bench-$label-$g.json" \
        2>&1 | tail -3 | tee -a "$R/parts-bench.txt"
    done
    CFD_PARTS_EXCHANGE=off $S bench "$fam" --only "$only" --sizes "$sizes" --precision "$p" --gpus 2 --reps 2 \
      --json "$R/parts-bench-$label-2-noexchange.json" 2>&1 | tail -3 | tee -a "$R/parts-bench.txt"
    # The exchange by the other transport (parts::Transport: heat takes the copy engines,
    # Euler and shallow water NCCL's kernels).
    local other=copy
    case $fam in heat) other=nccl ;; esac
    CFD_PARTS_TRANSPORT=$other $S bench "$fam" --only "$only" --sizes "$sizes" --precision "$p" --gpus 2 --reps 2 \
      --json "$R/parts-bench-$label-2-other.json" 2>&1 | tail -3 | tee -a "$R/parts-bench.txt"
  }
  for b in ${PARTS_BENCHES:-euler-plm euler-hllc heat}; do
    case $b in
      euler-plm) bench euler-plm euler "rt-3d plm-rk3 hll" f32 ;;
      euler-hllc) bench euler-hllc euler "toro-1 cube hllc" f32 ;;
      heat) bench heat heat "register-queue" f64 ;;
      heat-f32) bench heat-f32 heat "register-queue" f32 ;;
      swe) sizes=8000 bench swe shallow-water column f32; sizes=8000 bench swe-f64 shallow-water column f64 ;;
    esac
  done
fi
if [ "${PARTS_SMALL:-0}" != 0 ]; then
  echo "== the exchange at small sizes (its latency): 2 GPUs with and without it"
  sizes=${PARTS_SMALL_SIZES:-64,128,256}
  for g in 1 2; do
    $S bench heat --only register-queue --sizes "$sizes" --precision f64 --gpus $g --json "$R/parts-bench-small-heat-$g.json" 2>&1 | tail -4
    $S bench euler --only "rt-3d plm-rk3 hll" --sizes "$sizes" --precision f32 --gpus $g --json "$R/parts-bench-small-euler-$g.json" 2>&1 | tail -4
  done
  CFD_PARTS_EXCHANGE=off $S bench heat --only register-queue --sizes "$sizes" --precision f64 --gpus 2 --json "$R/parts-bench-small-heat-2-noexchange.json" 2>&1 | tail -4
  CFD_PARTS_EXCHANGE=off $S bench euler --only "rt-3d plm-rk3 hll" --sizes "$sizes" --precision f32 --gpus 2 --steps 10 --json "$R/parts-bench-small-euler-2-noexchange.json" 2>&1 | tail -4
  CFD_PARTS_TRANSPORT=nccl $S bench heat --only register-queue --sizes "$sizes" --precision f64 --gpus 2 --json "$R/parts-bench-small-heat-2-other.json" 2>&1 | tail -4
  CFD_PARTS_TRANSPORT=copy $S bench euler --only "rt-3d plm-rk3 hll" --sizes "$sizes" --precision f32 --gpus 2 --json "$R/parts-bench-small-euler-2-other.json" 2>&1 | tail -4
fi
if [ "${PARTS_BIG:-0}" != 0 ]; then
  echo "== Rayleigh-Taylor 3D at 1024^3, f32, 2 GPUs: seconds a step"
  /usr/bin/time -f "%e s wall, %M KB host" $S bench euler --only "rt-3d plm-rk3 hll" --sizes 1024 --precision f32 --gpus 2 --steps 10 --reps 1 \
    --json "$R/parts-bench-rt1024-2.json" 2>&1 | tail -4
fi
if [ "${PARTS_BENCH:-1}" != 0 ] || [ "${PARTS_SMALL:-0}" != 0 ]; then
  python3 - "$R" <<'PY'
import json, sys
r = sys.argv[1]
def rows(path):
    try:
        return json.load(open(path))["rows"]
    except Exception:
        return []
print("\n| benchmark | size | 1 GPU s/step | 2 GPUs s/step | speed-up | 2 GPUs without exchange | exposed exchange | 2 GPUs by the other transport | its speed-up |")
print("|---|---|---|---|---|---|---|---|---|")
for label in ["euler-plm", "euler-hllc", "heat", "heat-f32", "swe", "swe-f64", "small-heat", "small-euler"]:
    one, two, off, nccl = (rows(f"{r}/parts-bench-{label}-{s}.json") for s in ["1", "2", "2-noexchange", "2-other"])
    for a, b, c, d in zip(one, two, off or [None] * len(one), nccl or [None] * len(one)):
        t1, t2 = a["seconds_per_step"], b["seconds_per_step"]
        t3 = c["seconds_per_step"] if c else float("nan")
        t4 = d["seconds_per_step"] if d else float("nan")
        print(f"| {a['variant']} {a['precision']} | {a['size']} | {t1:.4g} | {t2:.4g} | {t1 / t2:.2f}x | {t3:.4g} | {(t2 - t3) / t2 * 100:.1f} % | {t4:.4g} | {t1 / t4:.2f}x |")
PY
fi
# The device returns at most eight files from $OUT: the benchmarks' JSON goes into one archive
# there, so that the text files (the comparisons, the table) come back too.
if [ -n "${OUT:-}" ] && ls "$R"/parts-bench-*.json >/dev/null 2>&1; then
  (cd "$R" && tar -cf parts-bench-json.tar parts-bench-*.json && rm -f parts-bench-*.json)
fi
echo "parts: status $status"
exit $status
