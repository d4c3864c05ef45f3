//! RBF vector interpolation from edges to vertices (ICON4Py
//! `common/interpolation/stencils/mo_intp_rbf_rbf_vec_interpol_vertex.py`).

/// With ICON's `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/interpolation.rs");
}

/// With `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/interpolation.rs");
}

pub use double::{_mo_intp_rbf_rbf_vec_interpol_vertex, mo_intp_rbf_rbf_vec_interpol_vertex};
