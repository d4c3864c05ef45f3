//! Cartesian benchmark stencils (lap, laplap, hdiff, vadv) and their references.

pub mod reference;
