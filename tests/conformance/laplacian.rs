//! GT4Py `test_laplacian.py`: lap, skewedlap and laplap. GT4Py's sliced outputs
//! (`out[1:-1, 1:-1]`) are written here as domains; the inputs are halo'd fields starting at -1.

use super::common::*;

#[field_operator]
fn lap(a: Field<(I, J), f64>) -> Field<(I, J), f64> {
    -4.0 * a + a.at(I + 1) + a.at(I - 1) + a.at(J + 1) + a.at(J - 1)
}
#[field_operator]
fn skewedlap(a: Field<(I, J), f64>) -> Field<(I, J), f64> {
    -4.0 * a.at((I + 1, J + 1))
        + a.at((I + 2, J + 1))
        + a.at(I + 1)
        + a.at((I + 1, J + 2))
        + a.at(J + 1)
}
#[field_operator]
fn laplap(a: Field<(I, J), f64>) -> Field<(I, J), f64> {
    lap(lap(a))
}

#[program]
fn laplacians(
    a: &Field<(I, J), f64>,
    lap_out: &mut Field<(I, J), f64>,
    skewed_out: &mut Field<(I, J), f64>,
    laplap_out: &mut Field<(I, J), f64>,
    ni: i32,
    nj: i32,
) {
    lap(a).write_to(lap_out, domain![I: 0..ni, J: 0..nj]);
    skewedlap(a).write_to(skewed_out, domain![I: -1..ni - 2, J: -1..nj - 2]);
    laplap(a).write_to(laplap_out, domain![I: 1..ni - 1, J: 1..nj - 1]);
}

fn lap_ref(f: &dyn Fn(i64, i64) -> f64, i: i64, j: i64) -> f64 {
    -4.0 * f(i, j) + f(i + 1, j) + f(i - 1, j) + f(i, j + 1) + f(i, j - 1)
}

#[test]
fn lap_skewedlap_and_laplap_on_halo_fields() {
    let mut rng = rng(801);
    let (ni, nj) = (NI as i64, NJ as i64);
    // Input with a halo of one point on each side; outputs cover the same halo'd box.
    let halo = [-1..ni + 1, -1..nj + 1];
    let a: Field<(I, J), f64> = random_field(&mut rng, &halo);
    let fa = |i: i64, j: i64| at(&a, &[i, j]);
    for_each_backend(|backend| {
        let (mut lap_out, mut skewed_out, mut laplap_out) =
            (poisoned(&halo), poisoned(&halo), poisoned(&halo));
        laplacians::compile(&backend.options())?.call(laplacians::Args {
            a: &a,
            lap_out: &mut lap_out,
            skewed_out: &mut skewed_out,
            laplap_out: &mut laplap_out,
            ni: NI as i32,
            nj: NJ as i32,
        })?;
        expect_field("lap", &lap_out, &[0..ni, 0..nj], |p| {
            lap_ref(&fa, p[0], p[1])
        });
        expect_field("skewedlap", &skewed_out, &[-1..ni - 2, -1..nj - 2], |p| {
            lap_ref(&fa, p[0] + 1, p[1] + 1)
        });
        expect_field("laplap", &laplap_out, &[1..ni - 1, 1..nj - 1], |p| {
            lap_ref(&|i, j| lap_ref(&fa, i, j), p[0], p[1])
        });
        Ok(())
    });
}

/// A field large enough for the CPU backend's default parallel threshold (32 Ki points).
#[program]
fn lap_only(a: &Field<(I, J), f64>, out: &mut Field<(I, J), f64>, ni: i32, nj: i32) {
    lap(a).write_to(out, domain![I: 0..ni, J: 0..nj]);
}

#[test]
fn lap_above_the_parallel_threshold() {
    let mut rng = rng(802);
    let (ni, nj) = (190i64, 180i64);
    let halo = [-1..ni + 1, -1..nj + 1];
    let a: Field<(I, J), f64> = random_field(&mut rng, &halo);
    let fa = |i: i64, j: i64| at(&a, &[i, j]);
    for_each_backend(|backend| {
        let mut out = poisoned(&halo);
        lap_only::compile(&backend.options())?.call(lap_only::Args {
            a: &a,
            out: &mut out,
            ni: ni as i32,
            nj: nj as i32,
        })?;
        expect_field("lap", &out, &[0..ni, 0..nj], |p| lap_ref(&fa, p[0], p[1]));
        Ok(())
    });
}
