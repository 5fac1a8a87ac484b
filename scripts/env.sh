# Source this (every script does, from the repository root): CFD_TARGET is cargo's target
# folder ($CARGO_TARGET_DIR where set, as on shared build machines, else target/), CFD_BIN its
# release binaries, and NVRTC (installed by scripts/setup.sh into $CFD_TARGET/nvrtc) is put on
# the library path so that CUDA kernels compile without a GPU.
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${CARGO_TARGET_DIR:-}" in
  "") CFD_TARGET="$_root/target" ;;
  /*) CFD_TARGET="$CARGO_TARGET_DIR" ;;
  # Relative: cargo takes it from the folder it runs in, which for the scripts is the root.
  *) CFD_TARGET="$_root/$CARGO_TARGET_DIR" ;;
esac
export CFD_TARGET
export CFD_BIN="$CFD_TARGET/release"
_nvrtc_root="$CFD_TARGET/nvrtc/nvidia"
for _d in "$_nvrtc_root"/cu13/lib "$_nvrtc_root"/cuda_nvrtc/lib; do
  [ -d "$_d" ] && export LD_LIBRARY_PATH="$_d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
unset _d _nvrtc_root _root
