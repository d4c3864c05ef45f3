//! Benchmark support: the same-run figures read back from criterion ([`figures`]), the
//! hand-written baselines the generated kernels are measured against, seeded inputs and the
//! STREAM triad. The baselines are written the way a careful programmer would write them by
//! hand: rayon over the horizontal dimension, K innermost and contiguous, neighbour indices
//! hoisted out of the K loop. [`harness`] is the plain timer [`stream::triad_gbps`] is built
//! on, for a program that times the triad alone; the `cargo bench` targets time with criterion.

pub mod baselines;
pub mod figures;
pub mod harness;
pub mod inputs;
pub mod sizes;
pub mod stream;
