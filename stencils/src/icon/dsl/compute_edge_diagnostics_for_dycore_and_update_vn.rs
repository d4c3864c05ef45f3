//! ICON4Py's edge diagnostics of `solve_nonhydro`
//! (`atmosphere/dycore/stencils/compute_edge_diagnostics_for_dycore_and_update_vn.py`, and
//! `compute_hydrostatic_correction_term.py`, which the predictor calls right before them for
//! their hydrostatic correction): the predictor step's ρ and θ_v at edges, horizontal pressure
//! gradient and vn update, and the corrector step's vn update with divergence damping, with
//! the field operators they call.
//!
//! The hydrostatic correction lives here rather than in a module of its own: its one program
//! makes one input of `compute_rho_theta_pgrad_and_update_vn` and nothing else, and it reads
//! the cells at the levels `ikoffset` points to as the pressure gradient over multiple levels
//! does, so the two are read, recorded and checked together.

/// The programs written against ICON's `vpfloat`/`wpfloat`
/// (`source/compute_edge_diagnostics_for_dycore_and_update_vn.rs`), with
/// `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    use crate::icon::dsl::dycore_utils::double as dycore_utils;
    include!("source/compute_edge_diagnostics_for_dycore_and_update_vn.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    use crate::icon::dsl::dycore_utils::mixed as dycore_utils;
    include!("source/compute_edge_diagnostics_for_dycore_and_update_vn.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[
    compute_hydrostatic_correction_term::NAME,
    compute_rho_theta_pgrad_and_update_vn::NAME,
    apply_divergence_damping_and_update_vn::NAME,
];
