//! The granule on N ranks over a decomposed grid ([`gt4rs::grid::decomposition`]): each rank
//! runs the same programs on its owned points, with halo exchanges where the step reads
//! across its boundary. The inputs are computed on the global grid and restricted to each
//! rank's points, so every owned point sees bit for bit what it sees on one rank.

pub mod exchange;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod rank;
pub mod threads;

pub use exchange::{PatternExchange, Transport};
pub use rank::{gather_owned, RankInputs};
