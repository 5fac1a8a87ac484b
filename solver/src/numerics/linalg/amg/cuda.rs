//! The V-cycle on the device (kernels/cuda/amg.cu).
