//! Benchmark inputs: seeded random fields, never zeros, so that no case times a shortcut.

use gt4rs::prelude::*;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// A field over `domain` (default layout) of values drawn from [-1, 1).
pub fn random_field<D: gt4rs::Dims>(
    domain: &[std::ops::Range<i64>],
    rng: &mut ChaCha8Rng,
) -> Field<D, f64> {
    Field::from_fn(domain, Layout::default(), |_| rng.random_range(-1.0..1.0))
        .expect("valid domain")
}
