//! ICON stencils: dimensions and offsets, and hand-written references of ICON4Py's programs.
//!
//! The DSL versions of the programs live in `icon/dsl/`; they compile only with the fieldview
//! checker, so they sit behind the off-by-default `dsl` feature until it is merged (see
//! `icon/dsl/README.md`).

pub mod connectivities;
pub mod dims;
pub mod dsl;
pub mod reference;
