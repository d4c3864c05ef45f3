//! Stencil programs for weather and climate models, written as Rust functions.
//!
//! gt4rs is GT4Py's fieldview language as Rust proc macros: a `#[field_operator]` is a pure
//! function over fields on a mesh (cells, edges, vertices and levels, or a Cartesian grid), a
//! `#[program]` writes the results of operator calls to output fields over index domains.
//! Both are checked when your crate compiles (a malformed stencil is a compile error at the
//! offending span) and compiled into fused kernels for the CPU (rayon) and CUDA, next to an
//! embedded interpreter that runs the program as written, one operation at a time, as the
//! reference. A model calls a compiled program for the cost of a function call: its arguments
//! are a typed struct of references, and nothing is looked up or converted per call.
//!
//! # A complete example
//!
//! ```
//! use gt4rs::prelude::*;
//!
//! // Dimensions and neighbour tables (offsets) are declared once and named in field types.
//! gt4rs::dimensions! { pub Cell, Edge: horizontal; pub K: vertical; }
//! gt4rs::offsets! { pub E2C: Edge => Cell [2]; }
//!
//! /// The jump of a cell field across each edge, divided by the edge's length.
//! #[field_operator]
//! fn gradient(q: Field<(Cell, K), f64>, inv_length: Field<Edge, f64>) -> Field<(Edge, K), f64> {
//!     (q.at(E2C[1]) - q.at(E2C[0])) * inv_length
//! }
//!
//! /// Writes the gradient on the edges `start..end`, every level.
//! #[program]
//! fn edge_gradient(
//!     q: &Field<(Cell, K), f64>,
//!     inv_length: &Field<Edge, f64>,
//!     grad: &mut Field<(Edge, K), f64>,
//!     start: i32,
//!     end: i32,
//! ) {
//!     gradient(q, inv_length).write_to(grad, domain![Edge: start..end]);
//! }
//!
//! fn main() -> Result<(), gt4rs::Error> {
//!     // A ring of 4 cells and 4 edges: edge e joins cells e and e + 1 (mod 4).
//!     let e2c = Connectivity::<E2C>::from_vec(vec![0, 1, 1, 2, 2, 3, 3, 0], 4, 4)?;
//!     let q = Field::<(Cell, K), f64>::from_fn(&[0..4, 0..3], Layout::default(), |i| {
//!         (i[0] * i[0]) as f64
//!     })?;
//!     let inv_length = Field::<Edge, f64>::filled(&[0..4], 0.5, Layout::default())?;
//!     let mut grad = Field::<(Edge, K), f64>::filled(&[0..4, 0..3], f64::NAN, Layout::default())?;
//!
//!     // Once, at initialisation: the backend and the neighbour tables.
//!     let options = Options::new(Backend::Cpu).with_connectivities(Connectivities::new().with(&e2c));
//!     let program = edge_gradient::compile(&options)?;
//!     // Every time step: one call with a typed struct of references.
//!     program.call(edge_gradient::Args {
//!         q: &q,
//!         inv_length: &inv_length,
//!         grad: &mut grad,
//!         start: 0,
//!         end: 3,
//!     })?;
//!
//!     // What it runs with, and where each setting came from (code, a file, the defaults).
//!     let shown = edge_gradient::options(&options)?;
//!     assert_eq!(shown.backend, Backend::Cpu);
//!     print!("{shown}");
//!
//!     assert_eq!(grad.get(&[2, 1]), Some((9.0 - 4.0) * 0.5));
//!     assert!(grad.get(&[3, 1]).is_some_and(f64::is_nan)); // outside the domain: untouched
//!     Ok(())
//! }
//! ```
//!
//! `#[program]` turns `edge_gradient` into a module: `edge_gradient::Args` (one public field
//! per parameter, typed as written), `edge_gradient::compile(&Options)` (checks the options,
//! picks the backend, binds the tables it needs) and `Compiled::call(Args)`, plus `NAME`,
//! `signature()` and `options(&Options)` (what the program runs with, and where each setting
//! came from). Every failure is an [`Error`] naming the program, the argument and the point,
//! never a panic.
//!
//! # Where to go next
//!
//! The user's guide (`docs/guide.md` in the repository) walks from `cargo add gt4rs` to a
//! tested model crate; every block in it is compiled and run by the test suite. Its topics, and
//! the API documentation of each:
//!
//! 1. **The dependency**: `gt4rs = "0.1"`; features `cuda` (the CUDA backend, loaded at run
//!    time, so it builds without CUDA), `netcdf` (ICON grid files, needs libnetcdf) and
//!    `testing` (the helpers of `gt4rs::testing`, for dev-dependencies).
//! 2. **Dimensions, offsets, operators and programs**: [`dimensions!`], [`offsets!`],
//!    [`scalar_types!`], [`macro@field_operator`], [`macro@scan_operator`], [`macro@program`]; the
//!    language itself (shifts, reductions, `select`, `concat_where`, scans, tuples, what a
//!    program may write) is `docs/language.md`.
//! 3. **Fields**: [`Field`] (construction, origins, layouts, wrapping an existing `ndarray`).
//! 4. **Connectivities**: [`Connectivity`] (widths, `target_size`, skip values),
//!    [`Connectivities`], and tables from generated or read grids in [`grid`].
//! 5. **Options and their precedence**: [`Options`], [`Backend`], [`CpuOptions`], the options
//!    file of [`config`] (code, then file, then defaults; start from `Options::default()` to let
//!    the file decide).
//! 6. **Static and bound arguments**: `#[static_arg]` with
//!    [`Options::with_static_variants`], and [`bind!`].
//! 7. **Debug checks and traces**: [`debug::DebugChecks`] (`GT4RS_DEBUG=nan`),
//!    [`profiling::Profiler`].
//! 8. **Errors**: [`Error`], one variant per kind of mistake.
//! 9. **Testing your programs**: `gt4rs::testing` (feature `testing`): seeded random fields and
//!    tables, poisoned outputs, every backend, comparison with a tolerance.
//!
//! # Environment
//!
//! - `GT4RS_CONFIG`: an options file ([`Options::with_config_from_env`]).
//! - `GT4RS_DEBUG`: checks after every call, read at `compile()` ([`debug`]).
//! - `GT4RS_CACHE_DIR`: where compiled CUDA kernels are kept ([`cache`]).

#![warn(missing_docs)]

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
pub use options::{Backend, CpuOptions, Options, Vectors};
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
