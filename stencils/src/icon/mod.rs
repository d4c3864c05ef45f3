//! ICON stencils: dimensions and offsets, and hand-written references of ICON4Py's programs.
//!
//! The DSL versions of the programs live in `icon/dsl/` (see `icon/dsl/README.md`); they are
//! built with every build of the crate, so the fieldview checker checks them each time.

pub mod calls;
pub mod connectivities;
pub mod dims;
pub mod dsl;
pub mod reference;
