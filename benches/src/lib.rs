//! Benchmark support: a small harness (median of repeated runs, side-by-side ratios) and the
//! hand-written baselines the generated kernels are measured against. The baselines are
//! written the way a careful programmer would write them by hand: rayon over the horizontal
//! dimension, K innermost and contiguous, neighbour indices hoisted out of the K loop.

pub mod baselines;
pub mod harness;
pub mod inputs;
pub mod sizes;
pub mod stream;
