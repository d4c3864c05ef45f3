//! The CUDA backend. [`source`] (what the macro emits about a program's kernels), [`bounds`]
//! (domain bounds on the host), [`launch`] (the launches of a call, parameter blocks, NVRTC
//! options, cache keys), [`emulator`] and [`offline`] (kernels compiled and assembled without a
//! device) build everywhere; NVRTC (`nvrtc`) and the device code need the cargo feature
//! `cuda`. Without it, [`cuda_available`] is false and
//! compiling for a device is a clear [`crate::Error`]; an emulator still runs the kernels.

pub mod bounds;
pub mod emulator;
pub mod launch;
pub mod offline;
pub mod source;
pub mod target;

#[cfg(feature = "cuda")]
pub mod nvrtc;

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

use std::sync::Arc;

use crate::args::Arg;
use crate::connectivity::ConnectivityTable;
use crate::error::Error;
use crate::options::{static_variants, Options};
use emulator::EmulatedProgram;
use launch::{tuning_defines, LaunchPlan};
use source::Translation;

/// A program compiled for the CUDA backend: on the device, or on the emulator its options
/// named.
pub enum CompiledCuda {
    /// Compiled by NVRTC and loaded on the device.
    Device(Box<CudaProgram>),
    /// Loaded on the emulator named by `Options::with_cuda_emulator`.
    Emulated(Box<dyn EmulatedProgram>),
}

impl CompiledCuda {
    /// Compiles `translation` with the static values and tuning `options` give it (per
    /// architecture for a device) and the bound `tables` (`used_offsets` order).
    pub fn compile(
        translation: &Translation,
        options: &Options,
        tables: &[Arc<ConnectivityTable>],
    ) -> Result<CompiledCuda, Error> {
        let name = translation.name;
        let statics = static_variants::single_values(options, name);
        if let Some(emulator) = &options.cuda_emulator {
            let cuda = options.resolve(name, None).cuda;
            let plan = LaunchPlan::new(translation, tables, Some(&statics), cuda)?;
            let mut defines = tuning_defines(&cuda);
            defines.extend(plan.static_defines());
            let program = emulator.0.load(translation.source, plan, defines)?;
            return Ok(CompiledCuda::Emulated(program));
        }
        // Per-architecture options apply once the device is known.
        let resolved = options.resolve(name, device_arch().as_deref());
        CudaProgram::compile(translation, &resolved, tables, Some(&statics))
            .map(|p| CompiledCuda::Device(Box::new(p)))
    }

    /// Runs one call with host fields and waits for it.
    pub fn call_host(&self, args: &mut [Arg<'_>]) -> Result<(), Error> {
        match self {
            CompiledCuda::Device(program) => program.call_host(args),
            CompiledCuda::Emulated(program) => program.call_host(args),
        }
    }

    /// The device program (device fields, streams, graphs), unless the kernels are emulated.
    pub fn device(&self) -> Option<&CudaProgram> {
        match self {
            CompiledCuda::Device(program) => Some(program),
            CompiledCuda::Emulated(_) => None,
        }
    }
}
