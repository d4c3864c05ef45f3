use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2C: Edge => Cell [2]; pub E2C2V: Edge => Vertex [4]; }

#[field_operator]
pub fn f(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {
    a * 2
}

fn main() {}
