//! Running a program's CUDA kernels somewhere other than a CUDA device.
//!
//! `Options::with_cuda_emulator` hands `compile()` an emulator; a `Backend::Cuda` program then
//! takes the whole CUDA path (the macro's source and kernel program, the launch plan, static
//! values and tuning compiled in as `-D` options, parameter blocks, error records) except the
//! device: the emulator builds the source and runs each launch. The test suite emulates the
//! kernels on the host with g++ (`gt4rs_tests::cuda_host`), so every conformance case runs on
//! the CUDA kernels without a GPU.

use crate::args::Arg;
use crate::backend::cuda::launch::LaunchPlan;
use crate::error::Error;

/// Builds a program's CUDA kernels for somewhere other than a CUDA device.
pub trait CudaEmulator: Send + Sync {
    /// A short description for messages (e.g. "host emulation (g++)").
    fn name(&self) -> &str;
    /// The kernels of `plan`, built from `source` with `defines` (the tuning and static values
    /// as NVRTC would get them).
    fn load(
        &self,
        source: &str,
        plan: LaunchPlan,
        defines: Vec<String>,
    ) -> Result<Box<dyn EmulatedProgram>, Error>;
}

/// A program whose kernels an emulator built.
pub trait EmulatedProgram: Send + Sync {
    /// Runs one call with host fields, as `CudaProgram::call_host` does on a device: copies the
    /// fields in, launches every kernel, reads the error records and copies the outputs back.
    fn call_host(&self, args: &mut [Arg<'_>]) -> Result<(), Error>;
}
