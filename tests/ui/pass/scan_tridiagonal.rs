use gt4rs::prelude::*;

gt4rs::dimensions! { pub Cell: horizontal; pub K: vertical; }

#[scan_operator(axis = K, forward = true, init = (0.0, 0.0))]
fn tridiag_forward(state: (f64, f64), a: f64, b: f64, c: f64, d: f64) -> (f64, f64) {
    let g = 1.0 / (b + a * state.0);
    (-c * g, (d - a * state.1) * g)
}

#[scan_operator(axis = K, forward = false, init = 0.0f32)]
fn accumulate_down(acc: f32, x: f32) -> f32 {
    acc + x
}

#[field_operator]
fn forward(
    a: Field<(Cell, K), f64>,
    b: Field<(Cell, K), f64>,
    c: Field<(Cell, K), f64>,
    d: Field<(Cell, K), f64>,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    tridiag_forward(a, b, c, d)
}

#[program]
fn solve(
    a: &Field<(Cell, K), f64>,
    b: &Field<(Cell, K), f64>,
    c: &Field<(Cell, K), f64>,
    d: &Field<(Cell, K), f64>,
    cp: &mut Field<(Cell, K), f64>,
    dp: &mut Field<(Cell, K), f64>,
    x: &Field<(Cell, K), f32>,
    total: &mut Field<(Cell, K), f32>,
) {
    forward(a, b, c, d).write_to((cp, dp));
    accumulate_down(x).write_to(total);
}

fn main() {
    let _ = solve::signature();
}
