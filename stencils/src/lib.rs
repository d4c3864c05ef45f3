//! ICON and Cartesian stencils written in gt4rs.

pub mod cartesian;
pub mod cli;
pub mod diffusion;
pub mod dycore;
pub mod icon;
pub mod programs;
pub mod reference_data;
