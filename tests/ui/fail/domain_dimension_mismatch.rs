use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2C: Edge => Cell [2]; pub E2C2V: Edge => Vertex [4]; }

#[field_operator]
pub fn double(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    2.0 * a
}

#[program]
pub fn p(a: &Field<(Edge, K), f64>, out: &mut Field<(Edge, K), f64>, n: i32) {
    double(a).write_to(out, domain![Cell: 0..n, K: 0..n]);
}

fn main() {}
