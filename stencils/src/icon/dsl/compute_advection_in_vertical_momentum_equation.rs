//! ICON4Py's advection of the vertical wind in velocity advection
//! (`atmosphere/dycore/stencils/compute_advection_in_vertical_momentum_equation.py`): the
//! predictor and corrector steps' advective tendencies of w with the contravariant corrected w,
//! its CFL number and clipping and the extra diffusion near the CFL limit, calling operators of
//! [`super::velocity_advection`], [`super::compute_advection_in_horizontal_momentum_equation`]
//! and [`super::compute_cell_diagnostics_for_dycore`] of its precision. A module of its own,
//! named after ICON4Py's file, as the other dycore modules are.

/// The programs written against ICON's `vpfloat`/`wpfloat`
/// (`source/compute_advection_in_vertical_momentum_equation.rs`), with
/// `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    use crate::icon::dsl::compute_advection_in_horizontal_momentum_equation::double as horizontal_momentum;
    use crate::icon::dsl::compute_cell_diagnostics_for_dycore::double as cell_diagnostics;
    use crate::icon::dsl::velocity_advection::double as velocity_advection;
    include!("source/compute_advection_in_vertical_momentum_equation.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    use crate::icon::dsl::compute_advection_in_horizontal_momentum_equation::mixed as horizontal_momentum;
    use crate::icon::dsl::compute_cell_diagnostics_for_dycore::mixed as cell_diagnostics;
    use crate::icon::dsl::velocity_advection::mixed as velocity_advection;
    include!("source/compute_advection_in_vertical_momentum_equation.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[
    compute_advection_in_predictor_vertical_momentum::NAME,
    compute_advection_in_corrector_vertical_momentum::NAME,
];
