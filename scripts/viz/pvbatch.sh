#!/usr/bin/env bash
# Run ParaView's pvbatch headless on a script: scripts/viz/pvbatch.sh SCRIPT.py ARGS...
#
# Debian's python3-paraview (ParaView's Python modules) conflicts with python3-vtk9, which the
# tests use. So unless python3-paraview is installed, this fetches its .deb once (apt-get
# download, no root needed for that step) and unpacks it under ~/.cache/cfd-pvpython without
# installing it, then points pvbatch at it. The `paraview` package (pvbatch itself) and xvfb
# are installed with apt-get if missing.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/viz/pvbatch.sh SCRIPT.py [ARGS...]" >&2; exit 2; }
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
need=()
command -v pvbatch >/dev/null || need+=(paraview)
command -v xvfb-run >/dev/null || need+=(xvfb xauth)
if [ ${#need[@]} -gt 0 ]; then
  $sudo apt-get install -y -q "${need[@]}" >/dev/null
fi
if ! dpkg -s python3-paraview >/dev/null 2>&1; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/cfd-pvpython"
  if [ ! -d "$cache/usr/lib/python3/dist-packages/paraview" ]; then
    mkdir -p "$cache"
    (cd "$cache" && apt-get download -q python3-paraview >/dev/null && dpkg -x python3-paraview_*.deb "$cache" && rm -f python3-paraview_*.deb)
  fi
  export PYTHONPATH="$cache/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
  export LD_LIBRARY_PATH="$cache/usr/lib/x86_64-linux-gnu:$cache/usr/lib/x86_64-linux-gnu/vtk${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# -ac: no X access control, else pvbatch can abort with "bad X server connection".
exec xvfb-run -a -s "-ac -screen 0 1920x1080x24" pvbatch "$@"
