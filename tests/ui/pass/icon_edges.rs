use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; pub K: vertical; }
gt4rs::offsets! { pub E2C: Edge => Cell [2]; pub C2E: Cell => Edge [3]; pub E2C2V: Edge => Vertex [4]; }

mod ops {
    use super::*;

    #[field_operator]
    pub fn cell_mean(x: Field<(Cell, K), f64>) -> Field<(Edge, K), f64> {
        neighbor_sum(x.at(E2C), E2C) * 0.5
    }
}

#[field_operator]
fn divergence(
    vn: Field<(Edge, K), f64>,
    geofac_div: Field<(Cell, C2E), f64>,
) -> Field<(Cell, K), f64> {
    neighbor_sum(vn.at(C2E) * geofac_div, C2E)
}

#[field_operator]
fn limited(
    x: Field<(Cell, K), f64>,
    lo: f64,
    is_limited: bool,
) -> (Field<(Edge, K), f64>, Field<(Edge, K), f64>) {
    let mean = ops::cell_mean(x);
    let clipped = if is_limited { mean.max(lo) } else { mean };
    let spread = max_over(x.at(E2C), E2C) - min_over(x.at(E2C), E2C);
    (select(spread > 1e-3, clipped, mean), spread.abs().sqrt())
}

#[program]
pub fn edge_stats(
    x: &Field<(Cell, K), f64>,
    vn: &Field<(Edge, K), f64>,
    geofac_div: &Field<(Cell, C2E), f64>,
    mean: &mut Field<(Edge, K), f64>,
    spread: &mut Field<(Edge, K), f64>,
    div: &mut Field<(Cell, K), f64>,
    lo: f64,
    #[static_arg] is_limited: bool,
    horizontal_start: i32,
    horizontal_end: i32,
    nlev: i32,
) {
    limited(x, lo, is_limited).write_to(
        (mean, spread),
        (
            domain![Edge: horizontal_start..horizontal_end, K: 0..nlev],
            domain![Edge: horizontal_start..horizontal_end.min(10)],
        ),
    );
    divergence(vn, geofac_div).write_to(div, domain![K: 1..nlev - 1]);
}

fn main() {
    let ir = edge_stats::ir();
    assert_eq!(ir.calls.len(), 2);
}
