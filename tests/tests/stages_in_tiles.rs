//! Consecutive stages that the CPU kernels run tile by tile together (`gt4rs_ir::tile_groups`,
//! `CpuOptions::stage_group_chunk`): every stage of the group over a tile of columns before
//! the next tile. Every backend gives the values of loops run one call after the other, with
//! the calls' domains starting and ending at different points (a later call reading an earlier
//! one's output where that call wrote it and where it did not), a scan in the group, and an
//! output updated in place after a later call read it at another level.

use gt4rs::prelude::*;
use gt4rs_tests::*;

type F = Field<(I, K), f64>;

const NI: i64 = 9;
const NK: i64 = 11;

#[scan_operator(axis = K, forward = true, init = 0.0)]
fn running(carry: f64, x: f64) -> f64 {
    0.5 * carry + x
}

#[field_operator]
fn product(a: Field<(I, K), f64>, b: Field<(I, K), f64>) -> Field<(I, K), f64> {
    a * b + 1.0
}

#[field_operator]
fn two_levels(x: Field<(I, K), f64>, a: Field<(I, K), f64>) -> Field<(I, K), f64> {
    x.at(K - 1) + x * 2.0 + a.at(I + 1)
}

#[field_operator]
fn swept(y: Field<(I, K), f64>) -> Field<(I, K), f64> {
    running(y)
}

#[field_operator]
fn updated(x: Field<(I, K), f64>, z: Field<(I, K), f64>) -> Field<(I, K), f64> {
    x + z.at(K + 1) * 0.25
}

/// Four calls over `I` whose stages share tiles: each reads what the ones before it wrote at
/// its own column only (`a` at `I + 1` is an input none writes).
#[program]
#[allow(clippy::too_many_arguments)]
fn four_calls(
    a: &Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    x: &mut Field<(I, K), f64>,
    y: &mut Field<(I, K), f64>,
    z: &mut Field<(I, K), f64>,
    x_lo: i32,
    x_hi: i32,
    y_lo: i32,
    y_hi: i32,
    z_lo: i32,
    z_hi: i32,
    u_lo: i32,
    u_hi: i32,
) {
    product(a, b).write_to(x, domain![I: x_lo..x_hi, K: 0..11]);
    two_levels(x, a).write_to(y, domain![I: y_lo..y_hi, K: 1..11]);
    swept(y).write_to(z, domain![I: z_lo..z_hi, K: 1..11]);
    updated(x, z).write_to(x, domain![I: u_lo..u_hi, K: 1..10]);
}

type Grid = Vec<Vec<f64>>;

fn values(f: &F) -> Grid {
    (0..NI)
        .map(|i| (0..NK).map(|k| at(f, &[i, k])).collect())
        .collect()
}

/// The four calls as loops, one after the other: `x`, `y` and `z` after the call.
fn expected(a: &F, b: &F, x0: &F, domains: [(i64, i64); 4]) -> (Grid, Grid, Grid) {
    let [(x_lo, x_hi), (y_lo, y_hi), (z_lo, z_hi), (u_lo, u_hi)] = domains;
    let (a, b) = (values(a), values(b));
    let mut x = values(x0);
    let mut y = vec![vec![f64::NAN; NK as usize]; NI as usize];
    let mut z = y.clone();
    for i in x_lo as usize..x_hi as usize {
        for k in 0..NK as usize {
            x[i][k] = a[i][k] * b[i][k] + 1.0;
        }
    }
    for i in y_lo as usize..y_hi as usize {
        for k in 1..NK as usize {
            y[i][k] = x[i][k - 1] + x[i][k] * 2.0 + a[i + 1][k];
        }
    }
    for i in z_lo as usize..z_hi as usize {
        let mut carry = 0.0;
        for k in 1..NK as usize {
            carry = 0.5 * carry + y[i][k];
            z[i][k] = carry;
        }
    }
    for i in u_lo as usize..u_hi as usize {
        for k in 1..NK as usize - 1 {
            x[i][k] += z[i][k + 1] * 0.25;
        }
    }
    (x, y, z)
}

#[test]
fn stages_run_in_tiles_give_the_values_of_the_calls_run_in_turn() {
    let mut rng = rng(2901);
    let whole = [0..NI, 0..NK];
    let a: F = random_field(&mut rng, &whole);
    let b: F = random_field(&mut rng, &whole);
    let x0: F = random_field(&mut rng, &whole);
    // Per case, the domains along `I` of the four calls. `y` reads `x` inside and outside the
    // first call's domain; `z` and the update stay inside the domains of what they read.
    let cases: [[(i64, i64); 4]; 5] = [
        [(0, 8), (0, 8), (0, 8), (0, 8)],
        [(2, 9), (1, 8), (3, 7), (4, 6)],
        [(0, 3), (5, 8), (5, 8), (6, 7)],
        [(4, 4), (0, 8), (0, 5), (0, 0)],
        [(7, 9), (0, 8), (1, 8), (2, 8)],
    ];
    for_each_backend(|backend| {
        let prog = four_calls::compile(&backend.options())?;
        for domains in cases {
            let mut x = x0.clone();
            let mut y = poisoned(&whole);
            let mut z = poisoned(&whole);
            let [(x_lo, x_hi), (y_lo, y_hi), (z_lo, z_hi), (u_lo, u_hi)] =
                domains.map(|(lo, hi)| (lo as i32, hi as i32));
            prog.call(four_calls::Args {
                a: &a,
                b: &b,
                x: &mut x,
                y: &mut y,
                z: &mut z,
                x_lo,
                x_hi,
                y_lo,
                y_hi,
                z_lo,
                z_hi,
                u_lo,
                u_hi,
            })?;
            let (want_x, want_y, want_z) = expected(&a, &b, &x0, domains);
            let (y_dom, z_dom) = (domains[1], domains[2]);
            expect_field("x", &x, &whole, |p| want_x[p[0] as usize][p[1] as usize]);
            expect_field("y", &y, &[y_dom.0..y_dom.1, 1..NK], |p| {
                want_y[p[0] as usize][p[1] as usize]
            });
            expect_field("z", &z, &[z_dom.0..z_dom.1, 1..NK], |p| {
                want_z[p[0] as usize][p[1] as usize]
            });
        }
        Ok(())
    });
}
