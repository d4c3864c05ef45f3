// Operators calling each other through a module file, a `use` declaration and a `crate::` path:
// the call that starts the cycle is an error naming it, not rustc's "cannot find macro". (This
// test's crate root is its own file, which only this file's items can tell, so the other side
// reads that `sharpen` has errors; in a crate with a conventional root both sides name the
// cycle, `frontend::recursion` unit tests.)
use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge: horizontal; pub K: vertical; }

#[path = "recursion_files/steps.rs"]
mod steps;

use steps::smooth;

#[field_operator]
pub fn sharpen(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    smooth(a) * 2.0 - a
}

fn main() {}
