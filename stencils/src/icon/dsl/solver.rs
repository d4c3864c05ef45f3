//! The implicit vertical solver for w (ICON4Py `atmosphere/dycore/stencils/
//! solve_tridiagonal_matrix_for_w_forward_sweep.py` and `…_back_substitution.py`).

/// The programs written against ICON's `vpfloat`/`wpfloat` (`source/solver.rs`), with
/// `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/solver.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/solver.rs");
}

pub use double::*;
