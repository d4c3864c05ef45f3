use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2C: Edge => Cell [2]; pub E2C2V: Edge => Vertex [4]; }

#[scan_operator(axis = Edge, forward = true, init = 0.0)]
pub fn s(state: f64, x: f64) -> f64 {
    state + x
}

fn main() {}
