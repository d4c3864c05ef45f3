use gt4rs::prelude::*;

gt4rs::dimensions! { pub I, J: horizontal; pub K: vertical; }

#[field_operator]
fn lap(f: Field<(I, J, K), f32>) -> Field<(I, J, K), f32> {
    -4.0 * f + f.at(I + 1) + f.at(I - 1) + f.at(J + 1) + f.at(J - 1)
}

#[field_operator]
fn upwind(
    f: Field<(I, J, K), f32>,
    shift: Field<(I, J, K), i32>,
    top: i32,
) -> Field<(I, J, K), f32> {
    let lifted = f.at(K + shift);
    let diag = f.at((I + 1, J - 1));
    let base = concat_where((K >= 1) & (top > K), lifted, broadcast(0.0f32, (I, J, K)));
    base + diag * 0.25 + (lap(f) as f64).powf(2.0) as f32
}

#[program]
fn run(
    f: &Field<(I, J, K), f32>,
    shift: &Field<(I, J, K), i32>,
    out: &mut Field<(I, J, K), f32>,
    n: i32,
    nk: i32,
) {
    upwind(f, shift, nk).write_to(out, domain![I: 2..n - 2, J: 2..n - 2, K: 0..nk]);
}

fn main() {
    assert_eq!(run::NAME, "run");
}
