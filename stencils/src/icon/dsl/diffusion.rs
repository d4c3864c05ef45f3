//! The diffusion granule's stencils (ICON4Py `atmosphere/diffusion/stencils/*.py`), field
//! operator by field operator, in ICON4Py's operation order. ICON4Py's `_name` field operators
//! keep their names, so that each program `name` can call its operator `_name`.
//!
//! Every program is written once against ICON's `vpfloat`/`wpfloat` in `source/*.rs` and
//! instantiated in both configurations below; the usual paths name the `double` one.

/// The programs with `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/nabla4.rs");
    include!("source/nabla2.rs");
    include!("source/vn.rs");
    include!("source/turbulence.rs");
    include!("source/cold_pools.rs");
    include!("source/theta_and_exner.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/nabla4.rs");
    include!("source/nabla2.rs");
    include!("source/vn.rs");
    include!("source/turbulence.rs");
    include!("source/cold_pools.rs");
    include!("source/theta_and_exner.rs");
}

pub use double::*;
