//! ICON stencils: dimensions and offsets, and hand-written references of ICON4Py's programs.
//!
//! The DSL versions of the programs live in `icon/dsl/` and join the module tree once the
//! fieldview checker is in place (see `icon/dsl/README.md`).

pub mod dims;
pub mod reference;
