//! K-field setup helpers of the diffusion granule (ICON4Py `diffusion/diffusion_utils.py`).
//! These programs have no horizontal domain: they write every level or a K range.

/// The programs of `source/diffusion_utils.rs` in ICON4Py's `double` mode. ICON4Py declares them
/// in `float` (f64) throughout, so this module and [`mixed`] compute the same values.
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/diffusion_utils.rs");
}

/// The same programs in ICON4Py's `mixed` mode (`vpfloat = f32`), which none of them uses.
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/diffusion_utils.rs");
}

pub use double::*;
