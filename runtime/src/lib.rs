//! gt4rs: stencil programs for weather and climate models.
//!
//! Users write `#[field_operator]`, `#[scan_operator]` and `#[program]` functions (see
//! `docs/language.md`); the macros check them and generate, per program, a typed `Args` struct
//! and `compile`/`call` functions that run on one of the [`Backend`]s.

extern crate self as gt4rs;

pub mod args;
pub mod backend;
pub mod cache;
pub mod config;
pub mod connectivity;
pub mod debug;
pub mod dims;
pub mod dynamic;
pub mod error;
pub mod ffi;
pub mod field;
pub mod grid;
pub mod options;
pub mod profiling;
pub mod signature;
#[cfg(feature = "testing")]
pub mod testing;
pub mod view;

/// The CUDA backend's public API (device fields, graphs, timers with the `cuda` feature).
pub mod cuda {
    pub use crate::backend::cuda::*;
}

pub use config::{Config, CudaOptions, ProgramOptions, Settings};
pub use connectivity::{Connectivities, Connectivity, ConnectivityTable};
pub use dims::{Dimension, Dims, Offset};
pub use error::Error;
pub use field::{Field, Layout};
pub use gt4rs_ir::{DimKind, ScalarType};
pub use gt4rs_macros::{
    bind, dimensions, export_c, export_c_fn, field_operator, offsets, program, scalar_types,
    scan_operator,
};
pub use options::{Backend, CpuOptions, Options};
pub use signature::{ParamKind, ParamSignature, Signature};
pub use view::{FieldMut, FieldRef};

/// What a stencil module usually needs: `use gt4rs::prelude::*;`.
pub mod prelude {
    pub use crate::{
        dimensions, field_operator, offsets, program, scalar_types, scan_operator, Backend,
        Connectivities, Connectivity, Error, Field, Layout, Options,
    };
}

/// Items the generated code reaches through absolute paths. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::args;
    pub use crate::backend::cpu;
    pub use crate::backend::cuda as cuda_backend;
    pub use crate::backend::cuda::source as cuda_source;
    pub use crate::backend::embedded;
    pub use crate::backend::failure;
    pub use crate::backend::{resolve as resolve_backend, Resolved};
    pub use crate::debug;
    pub use crate::dynamic;
    pub use crate::options::static_variants;
    pub use gt4rs_ir as ir;
    pub use gt4rs_macros::{__bind, __collect, __export_c, __program_from_ir};
    pub use rayon;
    pub use std::sync::OnceLock;
}
