//! ICON and Cartesian stencils written in gt4rs.

pub mod cli;
