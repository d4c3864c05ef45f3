//! What every group module needs: the runtime prelude and the shared test helpers (dimensions,
//! meshes, random fields, poisoning, comparison, the backend loop).

pub use gt4rs::prelude::*;
pub use gt4rs_tests::*;

/// The domain `0..n` per size.
pub fn sized(sizes: &[usize]) -> Vec<std::ops::Range<i64>> {
    sizes.iter().map(|&n| 0..n as i64).collect()
}
