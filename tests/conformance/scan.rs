//! GT4Py `test_scan.py`: scalar scan, vertical offset on the input, unused parameter, forward
//! and backward, tridiagonal solve, `if` inside a scan, tuple carries, different domains inside
//! a tuple, mixed field and scalar arguments. A scan without field arguments has no result
//! domain in gt4rs (the checker requires the axis among the arguments' dimensions; GT4Py's
//! embedded backend xfails it too). Return/init type errors are compile-time diagnostics
//! (UI test `scan_carry_type`). A scan result read through a shift (vertical or neighbour)
//! is left out: the fused CPU backend rejects it at compile time (it builds no temporaries),
//! which would stop this whole test target from building.

use super::common::*;

#[scan_operator(axis = K, forward = true, init = 0.0)]
fn running_sum(carry: f64, x: f64, step: f64) -> f64 {
    carry + x + step
}
#[scan_operator(axis = K, forward = false, init = 1.0)]
fn product_from_top(carry: f64, x: f64, _unused: f64) -> f64 {
    carry * x
}
#[scan_operator(axis = K, forward = true, init = (0.0, 0))]
fn with_branch(carry: (f64, i32), x: f64, limit: f64) -> (f64, i32) {
    if carry.0 > limit {
        (x, carry.1 + 1)
    } else {
        (carry.0 + x, carry.1)
    }
}

#[field_operator]
fn scans(
    x: Field<(I, K), f64>,
    y: Field<(I, K), f64>,
    step: f64,
) -> (
    Field<(I, K), f64>,
    Field<(I, K), f64>,
    Field<(I, K), f64>,
    (Field<(I, K), f64>, Field<(I, K), i32>),
) {
    let plain = running_sum(x, step);
    let lifted = running_sum(x.at(K + 1), 0.0);
    let down = product_from_top(y, x);
    (plain, lifted, down, with_branch(x, 1.0))
}

#[program]
fn scans_prog(
    x: &Field<(I, K), f64>,
    y: &Field<(I, K), f64>,
    step: f64,
    plain: &mut Field<(I, K), f64>,
    lifted: &mut Field<(I, K), f64>,
    down: &mut Field<(I, K), f64>,
    resets_value: &mut Field<(I, K), f64>,
    resets: &mut Field<(I, K), i32>,
    k_start: i32,
    k_end: i32,
) {
    scans(x, y, step).write_to(
        (plain, lifted, down, (resets_value, resets)),
        domain![K: k_start..k_end],
    );
}

#[test]
fn forward_backward_shifted_and_branching_scans() {
    let mut rng = rng(1001);
    let (ni, nk) = (NI as i64, NK as i64);
    let dom = sized(&[NI, NK]);
    let x: Field<(I, K), f64> = random_field(&mut rng, &dom);
    let y: Field<(I, K), f64> = random_field(&mut rng, &dom);
    let step = 1.0;
    let (k0, k1) = (1i64, nk - 1);
    let written = [0..ni, k0..k1];
    for_each_backend(|backend| {
        let (mut plain, mut lifted, mut down, mut resets_value) = (
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
        );
        let mut resets = poisoned(&dom);
        scans_prog::compile(&backend.options())?.call(scans_prog::Args {
            x: &x,
            y: &y,
            step,
            plain: &mut plain,
            lifted: &mut lifted,
            down: &mut down,
            resets_value: &mut resets_value,
            resets: &mut resets,
            k_start: k0 as i32,
            k_end: k1 as i32,
        })?;
        // The column runs over the written levels, starting from `init` at the first one.
        let fx = |i: i64, k: i64| at(&x, &[i, k]);
        let column = |f: &dyn Fn(f64, i64) -> f64, forward: bool, init: f64| -> Vec<(i64, f64)> {
            let ks: Vec<i64> = if forward {
                (k0..k1).collect()
            } else {
                (k0..k1).rev().collect()
            };
            let mut carry = init;
            ks.into_iter()
                .map(|k| {
                    carry = f(carry, k);
                    (k, carry)
                })
                .collect()
        };
        let lookup = |col: Vec<(i64, f64)>, k: i64| {
            col.into_iter().find(|&(kk, _)| kk == k).expect("level").1
        };
        expect_field("plain", &plain, &written, |p| {
            lookup(column(&|c, k| c + fx(p[0], k) + step, true, 0.0), p[1])
        });
        expect_field("lifted", &lifted, &written, |p| {
            lookup(column(&|c, k| c + fx(p[0], k + 1), true, 0.0), p[1])
        });
        expect_field("down", &down, &written, |p| {
            lookup(column(&|c, k| c * at(&y, &[p[0], k]), false, 1.0), p[1])
        });
        let branching = |i: i64, k_to: i64| {
            let (mut value, mut count) = (0.0, 0);
            for k in k0..=k_to {
                if value > 1.0 {
                    value = fx(i, k);
                    count += 1
                } else {
                    value += fx(i, k)
                }
            }
            (value, count)
        };
        expect_field("resets_value", &resets_value, &written, |p| {
            branching(p[0], p[1]).0
        });
        expect_field("resets", &resets, &written, |p| branching(p[0], p[1]).1);
        Ok(())
    });
}

/// The Thomas algorithm: a forward tuple scan, then a backward one (ICON's vertical solver).
#[scan_operator(axis = K, forward = true, init = (0.0, 0.0))]
fn tridiag_forward(state: (f64, f64), a: f64, b: f64, c: f64, d: f64) -> (f64, f64) {
    let g = 1.0 / (b + a * state.0);
    (-c * g, (d - a * state.1) * g)
}
#[scan_operator(axis = K, forward = false, init = 0.0)]
fn tridiag_backward(x_above: f64, cp: f64, dp: f64) -> f64 {
    dp + cp * x_above
}
#[field_operator]
fn solve_tridiag(
    a: Field<(Cell, K), f64>,
    b: Field<(Cell, K), f64>,
    c: Field<(Cell, K), f64>,
    d: Field<(Cell, K), f64>,
) -> Field<(Cell, K), f64> {
    let (cp, dp) = tridiag_forward(a, b, c, d);
    tridiag_backward(cp, dp)
}
#[program]
fn solve_prog(
    a: &Field<(Cell, K), f64>,
    b: &Field<(Cell, K), f64>,
    c: &Field<(Cell, K), f64>,
    d: &Field<(Cell, K), f64>,
    x: &mut Field<(Cell, K), f64>,
) {
    solve_tridiag(a, b, c, d).write_to(x);
}

#[test]
fn tridiagonal_solve() {
    let mut rng = rng(1002);
    let n_cells = 6;
    let dom = sized(&[n_cells, NK]);
    let a: Field<(Cell, K), f64> = random_field(&mut rng, &dom);
    let c: Field<(Cell, K), f64> = random_field(&mut rng, &dom);
    let d: Field<(Cell, K), f64> = random_field(&mut rng, &dom);
    // Diagonally dominant, so the solve is well conditioned.
    let b = Field::from_fn(&dom, Layout::default(), |p| {
        3.0 + at(&a, p).abs() + at(&c, p).abs()
    })
    .unwrap();
    for_each_backend(|backend| {
        let mut x = poisoned(&dom);
        solve_prog::compile(&backend.options())?.call(solve_prog::Args {
            a: &a,
            b: &b,
            c: &c,
            d: &d,
            x: &mut x,
        })?;
        // The reference solves with the textbook Thomas loop and checks the residual too.
        let nk = NK as i64;
        let mut want = vec![vec![0.0; NK]; n_cells];
        for cell in 0..n_cells as i64 {
            let (mut cp, mut dp) = (vec![0.0; NK], vec![0.0; NK]);
            for k in 0..nk {
                let (ak, bk, ck, dk) = (
                    at(&a, &[cell, k]),
                    at(&b, &[cell, k]),
                    at(&c, &[cell, k]),
                    at(&d, &[cell, k]),
                );
                let (cprev, dprev) = if k == 0 {
                    (0.0, 0.0)
                } else {
                    (cp[k as usize - 1], dp[k as usize - 1])
                };
                let g = 1.0 / (bk + ak * cprev);
                cp[k as usize] = -ck * g;
                dp[k as usize] = (dk - ak * dprev) * g;
            }
            let mut above = 0.0;
            for k in (0..NK).rev() {
                above = dp[k] + cp[k] * above;
                want[cell as usize][k] = above;
            }
        }
        expect_field("x", &x, &dom, |p| want[p[0] as usize][p[1] as usize]);
        for cell in 0..n_cells as i64 {
            for k in 0..nk {
                let get = |kk: i64| {
                    if (0..nk).contains(&kk) {
                        at(&x, &[cell, kk])
                    } else {
                        0.0
                    }
                };
                let lhs = at(&a, &[cell, k]) * get(k - 1)
                    + at(&b, &[cell, k]) * get(k)
                    + at(&c, &[cell, k]) * get(k + 1);
                assert!(
                    (lhs - at(&d, &[cell, k])).abs() < 1e-10,
                    "residual at ({cell}, {k})"
                );
            }
        }
        Ok(())
    });
}

/// A scan called directly from a program, with a field of a non-zero vertical origin (half
/// levels 1..NK+1) and a scalar argument.
#[program]
fn direct_scan(x: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>, step: f64) {
    running_sum(x, step).write_to(out, domain![K: 2..10]);
}

#[test]
fn scan_from_a_program_on_half_levels() {
    let mut rng = rng(1003);
    let (ni, nk) = (NI as i64, NK as i64);
    let dom = [0..ni, 1..nk + 1];
    let x: Field<(I, K), f64> = random_field(&mut rng, &dom);
    let written = [0..ni, 2..nk + 1];
    for_each_backend(|backend| {
        let mut out = poisoned(&dom);
        direct_scan::compile(&backend.options())?.call(direct_scan::Args {
            x: &x,
            out: &mut out,
            step: 0.5,
        })?;
        expect_field("out", &out, &written, |p| {
            (2..=p[1]).map(|k| at(&x, &[p[0], k]) + 0.5).sum()
        });
        Ok(())
    });
}

/// GT4Py `test_scan_different_domain_in_tuple`: arguments with different vertical ranges; the
/// scan runs over the written range, which both cover.
#[program]
fn different_ranges(x: &Field<(I, K), f64>, y: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>) {
    product_from_top(x, y).write_to(out, domain![K: 1..9]);
}

#[test]
fn arguments_with_different_vertical_ranges() {
    let mut rng = rng(1005);
    let (ni, nk) = (NI as i64, NK as i64);
    let x: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, 0..nk + 1]);
    let y: Field<(I, K), f64> = random_field(&mut rng, &[0..ni, 1..nk]);
    let dom = sized(&[NI, NK]);
    for_each_backend(|backend| {
        let mut out = poisoned(&dom);
        different_ranges::compile(&backend.options())?.call(different_ranges::Args {
            x: &x,
            y: &y,
            out: &mut out,
        })?;
        expect_field("out", &out, &[0..ni, 1..nk], |p| {
            (p[1]..nk).map(|k| at(&x, &[p[0], k])).product()
        });
        Ok(())
    });
}

/// An f32 carry and an i32 counter in one tuple, backward over a partial column.
#[scan_operator(axis = K, forward = false, init = (0.0f32, 0))]
fn count_down(state: (f32, i32), x: f32) -> (f32, i32) {
    (state.0 * 0.5f32 + x, state.1 + 1)
}
#[program]
fn count_down_prog(
    x: &Field<(I, K), f32>,
    value: &mut Field<(I, K), f32>,
    count: &mut Field<(I, K), i32>,
) {
    count_down(x).write_to((value, count), domain![I: 1..4, K: 0..7]);
}

#[test]
fn backward_f32_and_i32_tuple_carry() {
    let mut rng = rng(1006);
    let dom = sized(&[NI, NK]);
    let x: Field<(I, K), f32> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let mut value = poisoned(&dom);
        let mut count = poisoned(&dom);
        count_down_prog::compile(&backend.options())?.call(count_down_prog::Args {
            x: &x,
            value: &mut value,
            count: &mut count,
        })?;
        let want = |i: i64, k: i64| {
            (k..7)
                .rev()
                .fold(0.0f32, |acc, kk| acc * 0.5 + at(&x, &[i, kk]))
        };
        expect_field("value", &value, &[1..4, 0..7], |p| want(p[0], p[1]));
        expect_field("count", &count, &[1..4, 0..7], |p| 7 - p[1] as i32);
        Ok(())
    });
}
