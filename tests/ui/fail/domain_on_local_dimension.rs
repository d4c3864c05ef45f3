use gt4rs::prelude::*;

gt4rs::dimensions! { pub Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub V2E: Vertex => Edge [4]; }

#[field_operator]
pub fn gather(a: Field<(Edge, K), f64>) -> Field<(Vertex, V2E, K), f64> {
    2.0 * a.at(V2E)
}

#[program]
pub fn p(a: &Field<(Edge, K), f64>, out: &mut Field<(Vertex, V2E, K), f64>, n: i32) {
    gather(a).write_to(out, domain![Vertex: 0..n, V2E: 1..3]);
}

fn main() {}
