//! ICON4Py's edge quantities of `solve_nonhydro` from the new normal wind
//! (`atmosphere/dycore/stencils/compute_horizontal_velocity_quantities.py`): the predictor step's
//! averaged wind, divergence gradient, tangential wind, mass and θ_v fluxes, half-level winds,
//! kinetic energy and contravariant correction, and the corrector step's averaged wind and
//! fluxes with the sums kept for tracer advection.

/// The programs written against ICON's `vpfloat`/`wpfloat`
/// (`source/compute_horizontal_velocity_quantities.rs`), with `vpfloat = wpfloat = f64`
/// (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    use crate::icon::dsl::velocity_advection::double as velocity_advection;
    include!("source/compute_horizontal_velocity_quantities.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    use crate::icon::dsl::velocity_advection::mixed as velocity_advection;
    include!("source/compute_horizontal_velocity_quantities.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[
    compute_horizontal_velocity_quantities_and_fluxes::NAME,
    compute_averaged_vn_and_fluxes::NAME,
];
