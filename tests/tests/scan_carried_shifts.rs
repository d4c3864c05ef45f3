//! A scan whose level reads values at the level before (in its direction) that that level
//! computed at its own point, as ICON4Py's forward sweep of the vertically implicit solver
//! does: the CPU loop nest carries them down the column instead of computing them again, the
//! first level computing everything (`gt4rs_ir::carried`). Every backend gives the scan's
//! values, with the domain starting at the field's first level (the value before it is in a
//! branch not taken) or further in (it is read), forward and backward, a value carried over
//! two levels, and where the first level's read leaves the field.

use gt4rs::prelude::*;
use gt4rs_tests::*;

#[scan_operator(axis = K, forward = true, init = (0.0, 1.0))]
fn sweep(carry: (f64, f64), now: f64, before: f64, x: f64) -> (f64, f64) {
    let g = 1.0 / (2.0 + now * carry.1 * 0.25);
    // `before` counts at the first level too, where `carry.0` is 0.
    ((x - before * carry.0) * g + 0.125 * before, g)
}

#[scan_operator(axis = K, forward = false, init = 0.5)]
fn rising(carry: f64, now: f64, below: f64) -> f64 {
    0.5 * carry + now - 0.25 * below
}

/// Worth carrying: shifted reads along `I` and a square root.
#[field_operator]
fn term(a: Field<(I, K), f64>, b: Field<(I, K), f64>) -> Field<(I, K), f64> {
    (a * b.at(I + 1) + a.at(I + 1)).abs().sqrt() + b
}

/// The sweep of `term` at K and at K - 1 where there is a level above, restarted elsewhere.
#[field_operator]
fn swept_in_branch(a: Field<(I, K), f64>, b: Field<(I, K), f64>) -> Field<(I, K), f64> {
    let t = term(a, b);
    let (c, g) = concat_where(K > 0, sweep(t, t.at(K - 1), a), (t, b));
    c + g
}

#[program]
fn swept_in_branch_prog(
    a: &Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    out: &mut Field<(I, K), f64>,
    k_start: i32,
    k_end: i32,
) {
    swept_in_branch(a, b).write_to(out, domain![I: 0..8, K: k_start..k_end]);
}

/// The sweep read at K + 1, K and K - 1 everywhere: the value at K + 1 is carried to K and
/// on to K - 1.
#[field_operator]
fn swept_three_levels(a: Field<(I, K), f64>, b: Field<(I, K), f64>) -> Field<(I, K), f64> {
    let t = term(a, b);
    let (c, g) = sweep(t.at(K + 1) + t, t.at(K - 1), a);
    c * g
}

#[program]
fn swept_three_levels_prog(
    a: &Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    out: &mut Field<(I, K), f64>,
    k_start: i32,
    k_end: i32,
) {
    swept_three_levels(a, b).write_to(out, domain![I: 0..8, K: k_start..k_end]);
}

/// A backward scan of `term` at K and at K + 1.
#[field_operator]
fn risen(a: Field<(I, K), f64>, b: Field<(I, K), f64>) -> Field<(I, K), f64> {
    let t = term(a, b);
    rising(t, t.at(K + 1))
}

#[program]
fn risen_prog(
    a: &Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    out: &mut Field<(I, K), f64>,
    k_start: i32,
    k_end: i32,
) {
    risen(a, b).write_to(out, domain![I: 0..8, K: k_start..k_end]);
}

/// Eight terms of shifted and scaled inputs: enough nodes that the sweep of it walks one column
/// at a time, its first level run before the loop over the others.
#[field_operator]
fn wide(a: Field<(I, K), f64>, b: Field<(I, K), f64>) -> Field<(I, K), f64> {
    term(a, b)
        + term(b, a)
        + term(a * 0.5, b)
        + term(b * 0.5, a)
        + term(a, b * 2.0)
        + term(b, a * 2.0)
        + term(a + b, b)
        + term(a - b, a)
}

#[field_operator]
fn swept_wide(a: Field<(I, K), f64>, b: Field<(I, K), f64>) -> Field<(I, K), f64> {
    let t = wide(a, b);
    let (c, g) = sweep(t, t.at(K - 1), a);
    c - g
}

#[program]
fn swept_wide_prog(
    a: &Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    out: &mut Field<(I, K), f64>,
    k_start: i32,
    k_end: i32,
) {
    swept_wide(a, b).write_to(out, domain![I: 0..8, K: k_start..k_end]);
}

const NI: i64 = 9;
const NK: i64 = 11;

type F = Field<(I, K), f64>;

fn term_at(a: &F, b: &F, i: i64, k: i64) -> f64 {
    (at(a, &[i, k]) * at(b, &[i + 1, k]) + at(a, &[i + 1, k]))
        .abs()
        .sqrt()
        + at(b, &[i, k])
}

/// The forward sweep of column `i` over `levels`, with `now` and `before` at each level; where
/// `restart` holds at a level, the carry starts again from `init` there and the level's value
/// is `restarted`.
#[allow(clippy::type_complexity)]
fn sweep_column(
    levels: std::ops::Range<i64>,
    now: impl Fn(i64) -> f64,
    before: impl Fn(i64) -> f64,
    x: impl Fn(i64) -> f64,
    restart: impl Fn(i64) -> Option<(f64, f64)>,
) -> Vec<(f64, f64)> {
    let mut out = vec![(f64::NAN, f64::NAN); NK as usize];
    let mut carry = (0.0, 1.0);
    for k in levels {
        if let Some(value) = restart(k) {
            carry = (0.0, 1.0);
            out[k as usize] = value;
            continue;
        }
        let g = 1.0 / (2.0 + now(k) * carry.1 * 0.25);
        carry = ((x(k) - before(k) * carry.0) * g + 0.125 * before(k), g);
        out[k as usize] = carry;
    }
    out
}

fn inputs(seed: u64) -> (F, F) {
    let mut rng = rng(seed);
    let a = random_field(&mut rng, &[0..NI, 0..NK]);
    let b = random_field(&mut rng, &[0..NI, 0..NK]);
    (a, b)
}

#[test]
fn a_forward_scan_reading_the_level_above_in_a_branch() {
    let (a, b) = inputs(1801);
    for_each_backend(|backend| {
        let prog = swept_in_branch_prog::compile(&backend.options())?;
        // From the first level (the branch is not taken there), and from further in.
        for (k_start, k_end) in [(0, NK), (0, 1), (3, NK - 2), (4, 5)] {
            let mut out = poisoned(&[0..NI, 0..NK]);
            prog.call(swept_in_branch_prog::Args {
                a: &a,
                b: &b,
                out: &mut out,
                k_start: k_start as i32,
                k_end: k_end as i32,
            })?;
            expect_field("out", &out, &[0..8, k_start..k_end], |p| {
                let i = p[0];
                let column = sweep_column(
                    k_start..k_end,
                    |k| term_at(&a, &b, i, k),
                    |k| term_at(&a, &b, i, k - 1),
                    |k| at(&a, &[i, k]),
                    |k| (k == 0).then(|| (term_at(&a, &b, i, k), at(&b, &[i, k]))),
                );
                let (c, g) = column[p[1] as usize];
                c + g
            });
        }
        Ok(())
    });
}

#[test]
fn a_forward_scan_reading_three_levels() {
    let (a, b) = inputs(1802);
    for_each_backend(|backend| {
        let prog = swept_three_levels_prog::compile(&backend.options())?;
        for (k_start, k_end) in [(1, NK - 1), (2, 3), (5, NK - 1)] {
            let mut out = poisoned(&[0..NI, 0..NK]);
            prog.call(swept_three_levels_prog::Args {
                a: &a,
                b: &b,
                out: &mut out,
                k_start: k_start as i32,
                k_end: k_end as i32,
            })?;
            expect_field("out", &out, &[0..8, k_start..k_end], |p| {
                let i = p[0];
                let t = |k| term_at(&a, &b, i, k);
                let column = sweep_column(
                    k_start..k_end,
                    |k| t(k + 1) + t(k),
                    |k| t(k - 1),
                    |k| at(&a, &[i, k]),
                    |_| None,
                );
                let (c, g) = column[p[1] as usize];
                c * g
            });
        }
        Ok(())
    });
}

#[test]
fn a_backward_scan_reading_the_level_below() {
    let (a, b) = inputs(1803);
    for_each_backend(|backend| {
        let prog = risen_prog::compile(&backend.options())?;
        for (k_start, k_end) in [(0, NK - 1), (3, 8), (6, 7)] {
            let mut out = poisoned(&[0..NI, 0..NK]);
            prog.call(risen_prog::Args {
                a: &a,
                b: &b,
                out: &mut out,
                k_start: k_start as i32,
                k_end: k_end as i32,
            })?;
            expect_field("out", &out, &[0..8, k_start..k_end], |p| {
                let i = p[0];
                let mut carry = 0.5;
                for k in (p[1]..k_end).rev() {
                    carry = 0.5 * carry + term_at(&a, &b, i, k) - 0.25 * term_at(&a, &b, i, k + 1);
                }
                carry
            });
        }
        Ok(())
    });
}

/// From the first level, the read at K - 1 leaves the field: an error on every backend, before
/// anything is written on the fused ones.
#[test]
fn the_first_levels_read_outside_the_field_is_an_error() {
    let (a, b) = inputs(1804);
    for_each_backend(|backend| {
        let prog = swept_three_levels_prog::compile(&backend.options())?;
        let mut out = poisoned(&[0..NI, 0..NK]);
        let result = prog.call(swept_three_levels_prog::Args {
            a: &a,
            b: &b,
            out: &mut out,
            k_start: 0,
            k_end: 4,
        });
        // The fused backends check it before the loop (the first level's copy of the stage
        // has every read).
        let needle = if backend.backend == Backend::Embedded {
            "K 0..1 is missing"
        } else {
            "argument `a` is read at K -1..3 (shift -1), outside its domain 0..11"
        };
        expect_error(result, &[needle]);
        Ok(())
    });
}

/// The term of `term_at` over values `x` and `y` at `(i, k)` and `(i + 1, k)`.
fn term_of(x: impl Fn(i64, i64) -> f64, y: impl Fn(i64, i64) -> f64, i: i64, k: i64) -> f64 {
    (x(i, k) * y(i + 1, k) + x(i + 1, k)).abs().sqrt() + y(i, k)
}

fn wide_at(a: &F, b: &F, i: i64, k: i64) -> f64 {
    let a = |i, k| at(a, &[i, k]);
    let b = |i, k| at(b, &[i, k]);
    term_of(a, b, i, k)
        + term_of(b, a, i, k)
        + term_of(|i, k| a(i, k) * 0.5, b, i, k)
        + term_of(|i, k| b(i, k) * 0.5, a, i, k)
        + term_of(a, |i, k| b(i, k) * 2.0, i, k)
        + term_of(b, |i, k| a(i, k) * 2.0, i, k)
        + term_of(|i, k| a(i, k) + b(i, k), b, i, k)
        + term_of(|i, k| a(i, k) - b(i, k), a, i, k)
}

/// A sweep too large to walk columns side by side: its first level runs before the loop.
#[test]
fn a_large_forward_scan_reading_the_level_above() {
    let (a, b) = inputs(1805);
    for_each_backend(|backend| {
        let prog = swept_wide_prog::compile(&backend.options())?;
        for (k_start, k_end) in [(1, NK), (1, 2), (4, 9)] {
            let mut out = poisoned(&[0..NI, 0..NK]);
            prog.call(swept_wide_prog::Args {
                a: &a,
                b: &b,
                out: &mut out,
                k_start: k_start as i32,
                k_end: k_end as i32,
            })?;
            expect_field("out", &out, &[0..8, k_start..k_end], |p| {
                let i = p[0];
                let column = sweep_column(
                    k_start..k_end,
                    |k| wide_at(&a, &b, i, k),
                    |k| wide_at(&a, &b, i, k - 1),
                    |k| at(&a, &[i, k]),
                    |_| None,
                );
                let (c, g) = column[p[1] as usize];
                c - g
            });
        }
        Ok(())
    });
}
