//! Cartesian benchmark stencils (lap, laplap, hdiff, vadv): dimensions, hand-written references
//! and the DSL programs (always built, like `icon::dsl`).

pub mod dims;
pub mod dsl;
pub mod reference;
