//! The K-field helpers of ICON4Py's dycore (`atmosphere/dycore/dycore_utils.py`): the Rayleigh
//! damping factor of a substep's time step and the fourth-order divergence damping's scaling
//! coefficients. These programs have no domain: they write every level.

/// The programs of `source/dycore_utils.rs` in ICON4Py's `double` mode. ICON4Py declares them
/// in `float` (f64) throughout, so this module and [`mixed`] compute the same values.
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/dycore_utils.rs");
}

/// The same programs in ICON4Py's `mixed` mode (`vpfloat = f32`), which none of them uses.
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/dycore_utils.rs");
}

pub use double::*;

/// The programs of this module, each recorded from ICON4Py on every grid
/// (`refs/icon4py/dycore`, run by `stencils/tests/dycore_refs.rs`).
pub const PROGRAMS: &[&str] = &[
    calculate_divdamp_fields::NAME,
    compute_rayleigh_damping_factor::NAME,
];
