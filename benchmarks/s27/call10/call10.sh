#!/usr/bin/env bash
# Session 27, call 10 (one H100): shallow water's edge loops by axis (SWE_EDGE_LOOPS_BY_AXIS, set in single precision)
# (each axis a constant in its loop; double precision keeps the one loop, its SASS unchanged:
# calls 8 and 9 were slower there) against the build before it (82ea275, .gpu/solver-head): the benchmark at 1000^2 and
# 8000^2, f32 alternating three times, f64 once; the same bytes on every template; `solver check`.
# The same commands as call 8 (only the build under test differs).
exec bash benchmarks/s27/call8/call8.sh
