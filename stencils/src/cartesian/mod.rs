//! Cartesian benchmark stencils (lap, laplap, hdiff, vadv): dimensions, hand-written references
//! and, behind the `dsl` feature until the checker is merged, the DSL programs.

pub mod dims;
pub mod dsl;
pub mod reference;
