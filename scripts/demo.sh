#!/usr/bin/env bash
# The main job on shipped defaults: prepare the DFG cylinder channel mesh and export it for
# ParaView. Output in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p out
bin=target/release
$bin/meshtool generate cylinder --size 0.04 -o out/cylinder.pmesh
$bin/meshtool info out/cylinder.pmesh
$bin/meshtool check out/cylinder.pmesh
$bin/meshtool export out/cylinder.pmesh -o out/cylinder.vtu
echo "demo: open out/cylinder.vtu in ParaView"
