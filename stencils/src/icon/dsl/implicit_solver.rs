//! The pieces of ICON4Py's vertically implicit solver (`atmosphere/dycore/stencils/`: the
//! contravariant correction of w, the flux divergences, the solver's coefficients, the explicit
//! parts of ρ and exner, the Rayleigh damping of w, the new ρ, exner and θ_v, the mass and
//! volume fluxes and the exner increment), each with its ICON4Py program.

/// The programs written against ICON's `vpfloat`/`wpfloat` (`source/implicit_solver.rs`), with
/// `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/implicit_solver.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/implicit_solver.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid in both precisions
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[
    compute_contravariant_correction_of_w::NAME,
    compute_contravariant_correction_of_w_for_lower_boundary::NAME,
    compute_divergence_of_fluxes_of_rho_and_theta::NAME,
    compute_dwdz_for_divergence_damping::NAME,
    compute_solver_coefficients_matrix::NAME,
    compute_explicit_part_for_rho_and_exner::NAME,
    add_analysis_increments_from_data_assimilation::NAME,
    apply_rayleigh_damping_mechanism::NAME,
    compute_results_for_thermodynamic_variables::NAME,
    update_mass_volume_flux::NAME,
    update_dynamical_exner_time_increment::NAME,
];
