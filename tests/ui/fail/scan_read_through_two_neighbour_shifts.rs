use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2V: Edge => Vertex [2]; pub C2E: Cell => Edge [3]; }

#[scan_operator(axis = K, forward = false, init = 0.0)]
fn suffix_sum(carry: f64, x: f64) -> f64 {
    carry + x
}

/// A scan over vertices read at a cell through an edge and its first vertex: the fused
/// backends follow a scan through one neighbour shift, not two.
#[field_operator]
fn corner_of_scan(x: Field<(Vertex, K), f64>) -> Field<(Cell, K), f64> {
    suffix_sum(x).at(E2V[0]).at(C2E[0])
}

#[program]
fn corner_of_scan_prog(x: &Field<(Vertex, K), f64>, out: &mut Field<(Cell, K), f64>) {
    corner_of_scan(x).write_to(out);
}

fn main() {}
