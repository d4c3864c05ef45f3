//! ICON4Py's cell diagnostics of `solve_nonhydro`
//! (`atmosphere/dycore/stencils/compute_cell_diagnostics_for_dycore.py`): the predictor step's
//! perturbed ρ, θ_v and exner with their half-level interpolations, buoyancy and vertical
//! derivatives of exner, and the corrector step's time-averaged half-level ρ and θ_v with its
//! buoyancy, with the field operators they call.

/// The programs written against ICON's `vpfloat`/`wpfloat`
/// (`source/compute_cell_diagnostics_for_dycore.rs`), with `vpfloat = wpfloat = f64` (ICON4Py's
/// `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/compute_cell_diagnostics_for_dycore.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/compute_cell_diagnostics_for_dycore.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[
    compute_perturbed_quantities_and_interpolation::NAME,
    compute_interpolation_and_nonhydro_buoy::NAME,
];
