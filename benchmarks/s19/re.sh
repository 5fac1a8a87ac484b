#!/usr/bin/env bash
# Session 19 (one H100): the cylinder-re3900-les template as it ships on a span mesh carried as
# MSH.xz (MESH: f4 = 4.44 M tets, m24 = 1.07 M) in .gpu34. The runner is now
# scripts/gpu_les_run.sh (the same steps, with RE_SET added in session 21).
# bash benchmarks/s19/re.sh MESH LIMIT_S
D=${D:-.gpu34} exec bash scripts/gpu_les_run.sh "$@"
