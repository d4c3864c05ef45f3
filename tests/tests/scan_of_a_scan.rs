//! A scan whose argument is another scan of the same direction, both in one stage. The lowering
//! numbered a scan's carry only after lowering its body, so the inner scan, lowered inside that
//! body, took the outer one's carry index: the outer scan then read the inner one's carry (a
//! silent wrong answer on the CPU backend, found by the differential fuzzer, seed 1004 of a
//! campaign and seeds 20260152, 20260255, 20260269, 20260293 of its CI set).

use gt4rs::prelude::*;
use gt4rs_tests::*;

#[scan_operator(axis = K, forward = false, init = 1.0)]
fn outer(carry: f64, x0: f64, x1: f64) -> f64 {
    carry * 0.5 + x0.max(x1)
}

#[scan_operator(axis = K, forward = false, init = 0.0)]
fn inner(carry: f64, x0: f64, x1: f64) -> f64 {
    carry * 0.25 + x0 * x1
}

#[scan_operator(axis = K, forward = true, init = (0.0, 1.0))]
fn pair(carry: (f64, f64), x: f64) -> (f64, f64) {
    (carry.0 + x, carry.1 * 0.5 + x)
}

#[scan_operator(axis = K, forward = true, init = 2.0)]
fn after_pair(carry: f64, x: f64, y: f64) -> f64 {
    carry * 0.75 - x * y
}

#[field_operator]
fn backward_of_backward(c: Field<(Cell, K), f64>) -> Field<(Cell, K), f64> {
    outer(inner(c, c), c)
}

#[field_operator]
fn forward_of_a_tuple_scan(c: Field<(Cell, K), f64>) -> Field<(Cell, K), f64> {
    let (s, t) = pair(c);
    after_pair(s, t)
}

#[program]
fn scans_of_scans(
    c: &Field<(Cell, K), f64>,
    backward: &mut Field<(Cell, K), f64>,
    forward: &mut Field<(Cell, K), f64>,
) {
    backward_of_backward(c).write_to(backward, domain![Cell: 1..6]);
    forward_of_a_tuple_scan(c).write_to(forward, domain![Cell: 1..6]);
}

/// Column `cell` of `c` through `step`, from the top (`forward`) or the bottom.
fn scan_column<S: Copy>(
    c: &Field<(Cell, K), f64>,
    cell: i64,
    nk: i64,
    forward: bool,
    init: S,
    mut step: impl FnMut(S, i64, f64) -> S,
) -> Vec<S> {
    let mut out = vec![init; nk as usize];
    let mut carry = init;
    let levels: Vec<i64> = if forward {
        (0..nk).collect()
    } else {
        (0..nk).rev().collect()
    };
    for k in levels {
        carry = step(carry, k, at(c, &[cell, k]));
        out[k as usize] = carry;
    }
    out
}

#[test]
fn a_scan_of_a_scan_reads_its_own_carry() {
    let (n_cells, nk) = (7i64, 7i64);
    let mut rng = rng(1004);
    let all = [0..n_cells, 0..nk];
    let c: Field<(Cell, K), f64> = random_field(&mut rng, &all);
    let written = [1..6, 0..nk];
    for_each_backend(|backend| {
        let mut backward = poisoned(&all);
        let mut forward = poisoned(&all);
        scans_of_scans::compile(&backend.options())?.call(scans_of_scans::Args {
            c: &c,
            backward: &mut backward,
            forward: &mut forward,
        })?;
        let backward_want = |p: &[i64]| {
            let inner = scan_column(&c, p[0], nk, false, 0.0, |s, _, x| s * 0.25 + x * x);
            scan_column(&c, p[0], nk, false, 1.0, |s, k, x| {
                s * 0.5 + inner[k as usize].max(x)
            })[p[1] as usize]
        };
        expect_field(&backend.name(), &backward, &written, backward_want);
        let forward_want = |p: &[i64]| {
            let pairs = scan_column(&c, p[0], nk, true, (0.0, 1.0), |s, _, x| {
                (s.0 + x, s.1 * 0.5 + x)
            });
            scan_column(&c, p[0], nk, true, 2.0, |s, k, _| {
                let (x, y) = pairs[k as usize];
                s * 0.75 - x * y
            })[p[1] as usize]
        };
        expect_field(&backend.name(), &forward, &written, forward_want);
        Ok(())
    });
}
