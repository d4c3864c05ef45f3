//! ICON4Py's vertically implicit solver of `solve_nonhydro`
//! (`atmosphere/dycore/stencils/vertically_implicit_dycore_solver.py`): the predictor and
//! corrector steps' fused programs, calling the pieces of [`super::implicit_solver`] and the
//! tridiagonal solver of [`super::solver`] of its precision.

/// The programs written against ICON's `vpfloat`/`wpfloat`
/// (`source/vertically_implicit_dycore_solver.rs`), with `vpfloat = wpfloat = f64` (ICON4Py's
/// `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    use crate::icon::dsl::implicit_solver::double as implicit_solver;
    use crate::icon::dsl::solver::double as solver;
    include!("source/vertically_implicit_dycore_solver.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    use crate::icon::dsl::implicit_solver::mixed as implicit_solver;
    use crate::icon::dsl::solver::mixed as solver;
    include!("source/vertically_implicit_dycore_solver.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[
    vertically_implicit_solver_at_predictor_step::NAME,
    vertically_implicit_solver_at_corrector_step::NAME,
];
