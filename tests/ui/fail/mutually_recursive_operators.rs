use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge: horizontal; pub K: vertical; }

#[field_operator]
pub fn ping(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    pong(a * 0.5)
}

#[field_operator]
pub fn pong(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    ping(a) + 1.0
}

// A caller outside the cycle learns that `ping` has errors.
#[field_operator]
pub fn caller(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    ping(a)
}

fn main() {}
