//! The CUDA backend. [`source`] (what the macro emits about a program's kernels) and
//! [`launch`] (bounds, parameter blocks, NVRTC options, cache keys) build everywhere; the
//! device code needs the cargo feature `cuda`. Without it, [`cuda_available`] is false and
//! compiling for CUDA is a clear [`crate::Error`].

pub mod launch;
pub mod source;

#[cfg(feature = "cuda")]
mod device;
#[cfg(feature = "cuda")]
pub use device::{
    compile_all, copy_bandwidth_gbps, cuda_available, device_arch, unavailable_reason, CompileJob,
    CudaProgram, DeviceArg, DeviceField, Graph, RawDeviceField, Timer,
};

#[cfg(not(feature = "cuda"))]
mod absent;
#[cfg(not(feature = "cuda"))]
pub use absent::{cuda_available, device_arch, unavailable_reason, CudaProgram};
