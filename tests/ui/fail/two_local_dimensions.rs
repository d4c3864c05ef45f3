use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2C: Edge => Cell [2]; pub E2C2V: Edge => Vertex [4]; }

#[field_operator]
pub fn f(c: Field<(Cell, K), f64>, w: Field<(Edge, E2C2V), f64>) -> Field<(Edge, K), f64> {
    let both = c.at(E2C) * w;
    neighbor_sum(both, E2C)
}

fn main() {}
