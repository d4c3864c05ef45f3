use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2C: Edge => Cell [2]; pub E2C2V: Edge => Vertex [4]; }

#[field_operator]
pub fn f(x: Field<(Edge, Kay), f64>) -> Field<(Edge, Kay), f64> {
    x
}

fn main() {}
