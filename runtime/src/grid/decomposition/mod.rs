//! Decomposing a grid over ranks: a Hilbert-curve partition of the cells
//! ([`Partition::hilbert`]), each rank's local grid with two halo rows numbered owned-first
//! ([`LocalGrid::of_rank`]), and the exchange patterns between ranks ([`pattern`]). Pure
//! data: the transport (MPI, threads) lives with the programs that exchange.

mod hilbert;
mod local;
mod partition;
pub mod pattern;

pub use local::{IndexMap, LocalGrid, HALO_LEVELS};
pub use partition::{Partition, PartitionQuality};
pub use pattern::{ExchangePattern, PeerPoints};
