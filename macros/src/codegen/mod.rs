//! Emitters: Rust tokens generated from the checked IR.

pub mod bind;
pub mod cpu;
pub mod cuda;
pub mod operator;
pub mod program;
