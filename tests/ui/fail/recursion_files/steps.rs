// Part of `recursive_across_files.rs`: a module file of that test.
use gt4rs::prelude::*;

use crate::{Edge, K};

#[field_operator]
pub fn smooth(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    crate::sharpen(a * 0.5) + a * 0.5
}
