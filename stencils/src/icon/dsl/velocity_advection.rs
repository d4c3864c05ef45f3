//! Velocity advection "1 to 7" and its parts (ICON4Py `atmosphere/dycore/stencils`:
//! `compute_tangential_wind.py`, `interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges.py`,
//! `compute_horizontal_kinetic_energy.py`, `compute_diagnostics_from_normal_wind.py` and the
//! operators it calls).

/// The programs written against ICON's `vpfloat`/`wpfloat` (`source/velocity_advection.rs`), with
/// `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/velocity_advection.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/velocity_advection.rs");
}

pub use double::*;
