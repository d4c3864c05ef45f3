//! ICON4Py's advection of the normal wind in velocity advection
//! (`atmosphere/dycore/stencils/compute_advection_in_horizontal_momentum_equation.py`): the
//! advective tendency of vn (kinetic energy gradient, vertical advection, Coriolis and
//! vorticity term) with the extra diffusion near the vertical CFL limit, and the field operators
//! it calls. A module of its own, named after ICON4Py's file, as the other dycore modules are:
//! its programs are checked against ICON4Py's recorded outputs (`PROGRAMS`), those of
//! [`super::velocity_advection`] against the hand-written references.

/// The programs written against ICON's `vpfloat`/`wpfloat`
/// (`source/compute_advection_in_horizontal_momentum_equation.rs`), with
/// `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/compute_advection_in_horizontal_momentum_equation.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/compute_advection_in_horizontal_momentum_equation.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[compute_advection_in_horizontal_momentum::NAME];
