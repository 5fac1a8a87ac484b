# Source this to find NVRTC from target/nvrtc (installed by scripts/setup.sh) without a GPU.
_nvrtc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/nvrtc/nvidia"
for _d in "$_nvrtc_root"/cu13/lib "$_nvrtc_root"/cuda_nvrtc/lib; do
  [ -d "$_d" ] && export LD_LIBRARY_PATH="$_d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
unset _d _nvrtc_root
