use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge: horizontal; pub K: vertical; }

#[field_operator]
pub fn halve_again(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    let half = a * 0.5;
    halve_again(half)
}

fn main() {}
