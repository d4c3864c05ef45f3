//! The small programs ICON4Py's `solve_nonhydro` runs on the lateral boundary of a
//! limited-area grid and on the halo (`atmosphere/dycore/stencils/`:
//! `update_theta_and_exner_in_halo.py`, `compute_exner_from_rhotheta.py`,
//! `update_mass_flux_weighted.py`, `init_cell_kdim_field_with_zero_wp.py`, and
//! `solve_nonhydro_stencils.py`'s `stencils_61_62`).

/// The programs written against ICON's `vpfloat`/`wpfloat` (`source/boundary_and_halo_updates.rs`),
/// with `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/boundary_and_halo_updates.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/boundary_and_halo_updates.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[
    update_theta_and_exner_in_halo::NAME,
    compute_exner_from_rhotheta::NAME,
    update_mass_flux_weighted::NAME,
    init_cell_kdim_field_with_zero_wp::NAME,
    stencils_61_62::NAME,
];
