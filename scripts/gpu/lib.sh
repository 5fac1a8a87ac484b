# Shared by scripts that compare two builds or time kernels on the GPU machine (run from the
# repository root with .gpu staged: `BASE=REV scripts/gpu/stage.sh` adds .gpu/solver-base, the
# build of commit REV): `set -uo pipefail; source scripts/gpu/lib.sh`.
# Sets N (.gpu/solver, the build under test), B (.gpu/solver-base, the build compared against),
# R ($OUT, what comes back), W (scratch), NCU; a fresh kernel cache; writes $R/device.txt. Functions:
#   same TAG ARGS...          `run ARGS` by base and new, the .vt* files compared byte for byte
#   ncu_durations TAG CMD...  each kernel's launches and mean duration over 120 launches of CMD
#   r2d_end_to_end TOML       the Euler paper's benchmark run three times by base and new, exact
#                             and fast math: wall time and summary.json's stepping and total
#   check_families FAMILY...  `solver check` of each family by the new build, into checks.txt
#   swe_bench P BIN...        shallow water at 1000^2 and 8000^2 in precision P, by each binary
#   plm_bench BIN...          Euler PLM + HLL + RK3 at 512^3, f32, fast math, by each binary
#   same_swe P...             `same` on every shallow-water template; summary: the call's last table
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
N=.gpu/solver; B=.gpu/solver-base; R=${OUT:-/tmp/out}; mkdir -p "$R"; W=$(mktemp -d)
export CFD_KERNEL_CACHE=$W/cache
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/device.txt"

same() { local tag=$1; shift
  $B run "$@" -q -o $W/base-$tag >/dev/null 2>&1; $N run "$@" -q -o $W/new-$tag >/dev/null 2>$W/err-$tag
  local d=0; for f in $(cd $W/base-$tag && ls *.vt* 2>/dev/null); do cmp -s $W/base-$tag/$f $W/new-$tag/$f || d=$((d+1)); done
  echo "same $tag: $(ls $W/base-$tag | grep -c vt) files, $d differ; steps $(python3 -c "import json;print(json.load(open('$W/new-$tag/summary.json')).get('steps'))" 2>&1 | tail -1) $(head -c 300 $W/err-$tag)"
}

ncu_durations() { local tag=$1; shift
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

r2d_end_to_end() { local toml=$1
  for b in $B $N; do for m in exact fast; do for k in 1 2 3; do
    /usr/bin/time -f "$b $m wall %e s" $b run $toml --backend cuda -q --set run.precision=f32 --set 'euler.riemann="hllc"' --set "run.math=\"$m\"" -o $W/e2e 2>&1 | tail -1
    python3 -c "import json;t=json.load(open('$W/e2e/summary.json'))['timing'];print('   stepping', t['stepping'], 'total', t['total'])"
  done; done; done
}

# check_families FAMILY...: `solver check` of each family by the build under test, a line each
# (rc, rows passed and failed, the first failures), into $R/checks.txt.
check_families() {
  for f in "$@"; do
    $N check $f > $W/check-$f.txt 2>&1; echo "check $f rc $? pass $(grep -c ' PASS' $W/check-$f.txt) fail $(grep -c ' FAIL' $W/check-$f.txt)"
    grep " FAIL" $W/check-$f.txt | head -5
  done 2>&1 | tee $R/checks.txt
}

# swe_bench PRECISION BIN...: the shallow-water tank at 1000^2 and 8000^2 by each binary in turn.
swe_bench() { local p=$1; shift
  for x in "$@"; do echo "== $p $x"; $x bench shallow-water --sizes 1000,8000 --precision $p 2>&1 | grep '^shallow' | tr -s ' ' | cut -c1-100; done
}

# plm_bench BIN...: PLM + HLL + RK3 at 512^3, f32, fast math, by each binary in turn.
plm_bench() {
  for x in "$@"; do echo "== plm $x"; $x bench euler --only "rt-3d plm-rk3 hll" --sizes 512 --precision f32 --steps 5 --reps 3 --set 'run.math="fast"' 2>&1 | grep '^euler' | tr -s ' ' | cut -c1-100; done
}

# same_swe PRECISION...: `same` (base against new) on every shallow-water template, CUDA backend.
same_swe() {
  local t
  for t in swe-thacker swe-estuary swe-column swe-dam-break-dry swe-dam-break-wet swe-lake-at-rest; do $N cases $t > $W/$t.toml; done
  for p in "$@"; do for t in swe-thacker swe-estuary swe-column swe-dam-break-dry swe-dam-break-wet swe-lake-at-rest; do
    same $t-$p $W/$t.toml --backend cuda --set run.precision=$p
  done; done
}

# summary: the call's bench.txt and checks.txt, and how many `same` lines found no difference.
summary() {
  echo "== summary"; cat $R/bench.txt $R/checks.txt
  echo "same: $(grep -c ' 0 differ' $R/same.txt) of $(grep -c '^same' $R/same.txt) with 0 differing"
}
