//! What the macro emits about a program's CUDA translation (always built, with or without the
//! `cuda` feature): the CUDA C source and the kernel program (stages, parameter structs, the
//! failures kernels record and the preconditions the launcher checks; the contract is
//! `gt4rs_ir::kernel`).

use gt4rs_ir::fieldview::Program;
use gt4rs_ir::kernel::{KernelInfo, KernelProgram};
use gt4rs_ir::stage::StageProgram;

use crate::error::Error;

pub use gt4rs_ir::kernel::{FieldRole, ParamField, ParamType};

/// A program's CUDA translation as the macro emits it (`<program>::cuda::translation()`).
#[derive(Clone, Copy, Debug)]
pub struct Translation {
    /// The program's name.
    pub name: &'static str,
    /// The CUDA C translation unit.
    pub source: &'static str,
    /// The checked fieldview program (parameters, roles, connectivities).
    pub program: &'static Program,
    /// The stages and kernels, or why the program has no CUDA translation.
    pub kernels: Result<&'static KernelProgram, &'static str>,
}

impl Translation {
    /// The kernel program, or the reason there is none as a `BackendUnavailable` error.
    pub fn kernel_program(&self) -> Result<&'static KernelProgram, Error> {
        self.kernels.map_err(|why| Error::BackendUnavailable {
            backend: "cuda".into(),
            reason: format!("program `{}`: {why}", self.name),
        })
    }

    /// The kernels in stage order (none when the program has no translation).
    pub fn kernels(&self) -> &'static [KernelInfo] {
        self.kernels.map_or(&[], |k| &k.kernels)
    }

    /// The lowered stages (`None` when the program has no translation).
    pub fn stages(&self) -> Option<&'static StageProgram> {
        self.kernels.ok().map(|k| &k.stages)
    }
}
