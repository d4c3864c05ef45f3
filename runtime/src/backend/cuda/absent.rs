//! The CUDA backend in a build without the `cuda` feature: nothing is available, and asking
//! for it is an error that says how to get it.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::args::{Arg, ScalarValue};
use crate::backend::cuda::source::Translation;
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
    /// Always [`Error::BackendUnavailable`]: this build has no `cuda` feature.
    pub fn compile(
        translation: &Translation,
        _options: &ProgramOptions,
        _tables: &[Arc<ConnectivityTable>],
        _static_args: Option<&BTreeMap<String, ScalarValue>>,
    ) -> Result<CudaProgram, Error> {
        Err(unavailable(translation.name))
    }

    /// Never called: no `CudaProgram` exists without the `cuda` feature.
    pub fn call_host(&self, _args: &mut [Arg<'_>]) -> Result<(), Error> {
        match *self {}
    }

    /// Never called: no `CudaProgram` exists without the `cuda` feature.
    pub fn sync(&self) -> Result<(), Error> {
        match *self {}
    }
}
