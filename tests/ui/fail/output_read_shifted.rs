use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2C: Edge => Cell [2]; pub E2C2V: Edge => Vertex [4]; }

#[field_operator]
pub fn smooth(a: Field<(Cell, K), f64>) -> Field<(Cell, K), f64> {
    a + a.at(K + 1)
}

#[program]
pub fn p(a: &mut Field<(Cell, K), f64>, n: i32) {
    smooth(a).write_to(a, domain![Cell: 0..n, K: 0..n]);
}

fn main() {}
