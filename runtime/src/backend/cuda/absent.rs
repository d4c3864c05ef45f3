//! The CUDA backend in a build without the `cuda` feature: nothing is available, and asking
//! for it is an error that says how to get it.

use std::sync::Arc;

use gt4rs_ir::fieldview::Program;

use crate::backend::cuda::source::KernelInfo;
use crate::backend::embedded::Arg;
use crate::config::ProgramOptions;
use crate::connectivity::ConnectivityTable;
use crate::error::Error;

const REASON: &str = "this build of gt4rs has no CUDA backend (enable the cargo feature `cuda`)";

fn unavailable(program: &str) -> Error {
    Error::BackendUnavailable {
        backend: "cuda".into(),
        reason: format!("program `{program}`: {REASON}"),
    }
}

/// Always false without the `cuda` feature.
pub fn cuda_available() -> bool {
    false
}

/// Why CUDA cannot be used here.
pub fn unavailable_reason() -> Option<Error> {
    Some(Error::BackendUnavailable {
        backend: "cuda".into(),
        reason: REASON.into(),
    })
}

/// No device without the `cuda` feature.
pub fn device_arch() -> Option<String> {
    None
}

/// Never constructed without the `cuda` feature.
pub enum CudaProgram {}

impl CudaProgram {
    pub fn compile(
        name: &'static str,
        _source: &'static str,
        _kernels: &'static [KernelInfo],
        _unsupported: Option<&'static str>,
        _program: &'static Program,
        _options: &ProgramOptions,
        _tables: &[Arc<ConnectivityTable>],
    ) -> Result<CudaProgram, Error> {
        Err(unavailable(name))
    }

    pub fn call_host(&self, _args: &mut [Arg<'_>]) -> Result<(), Error> {
        match *self {}
    }

    pub fn sync(&self) -> Result<(), Error> {
        match *self {}
    }
}
