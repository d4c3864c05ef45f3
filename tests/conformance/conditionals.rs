//! GT4Py `test_conditionals.py`: `if`/`else` on a scalar bool with locals and temporaries,
//! nested `if`, `else if` chains, and the ternary on fields and on tuples. GT4Py's early
//! `return` inside a branch and `if` without `else` have no gt4rs spelling (a body ends in one
//! expression): the closest equivalent is an `if` expression whose branches end the body. The
//! three error cases are compile-time diagnostics (UI tests `field_if_condition`, …).

use super::common::*;

#[field_operator]
fn branchy(
    a: Field<(I, J), f64>,
    b: Field<(I, J), f64>,
    use_a: bool,
    mode: i32,
) -> (
    Field<(I, J), f64>,
    Field<(I, J), f64>,
    (Field<(I, J), f64>, Field<(I, J), f64>),
) {
    let temporary = a * 2.0;
    let chosen = if use_a {
        let local = temporary + b;
        local * local
    } else {
        b - temporary
    };
    let chain = if mode == 0 {
        a
    } else if mode == 1 {
        if use_a {
            b
        } else {
            a + b
        }
    } else {
        a * b
    };
    let swapped = if use_a { (a, b) } else { (b, a) };
    (chosen, chain, swapped)
}

#[program]
fn branchy_prog(
    a: &Field<(I, J), f64>,
    b: &Field<(I, J), f64>,
    use_a: bool,
    mode: i32,
    chosen: &mut Field<(I, J), f64>,
    chain: &mut Field<(I, J), f64>,
    first: &mut Field<(I, J), f64>,
    second: &mut Field<(I, J), f64>,
) {
    branchy(a, b, use_a, mode).write_to((chosen, chain, (first, second)), domain![J: 1..7]);
}

#[test]
fn scalar_if_with_locals_nesting_and_tuples() {
    let mut rng = rng(701);
    let (ni, nj) = (NI as i64, NJ as i64);
    let dom = sized(&[NI, NJ]);
    let written = [0..ni, 1..nj];
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    let b: Field<(I, J), f64> = random_field(&mut rng, &dom);
    for use_a in [true, false] {
        for mode in 0..3 {
            for_each_backend(|backend| {
                let mut outs = [
                    poisoned(&dom),
                    poisoned(&dom),
                    poisoned(&dom),
                    poisoned(&dom),
                ];
                let [chosen, chain, first, second] = &mut outs;
                branchy_prog::compile(&backend.options())?.call(branchy_prog::Args {
                    a: &a,
                    b: &b,
                    use_a,
                    mode,
                    chosen,
                    chain,
                    first,
                    second,
                })?;
                let (fa, fb) = (|p: &[i64]| at(&a, p), |p: &[i64]| at(&b, p));
                expect_field("chosen", &outs[0], &written, |p| {
                    if use_a {
                        (2.0 * fa(p) + fb(p)).powi(2)
                    } else {
                        fb(p) - 2.0 * fa(p)
                    }
                });
                expect_field("chain", &outs[1], &written, |p| match (mode, use_a) {
                    (0, _) => fa(p),
                    (1, true) => fb(p),
                    (1, false) => fa(p) + fb(p),
                    _ => fa(p) * fb(p),
                });
                expect_field("first", &outs[2], &written, |p| {
                    if use_a {
                        fa(p)
                    } else {
                        fb(p)
                    }
                });
                expect_field("second", &outs[3], &written, |p| {
                    if use_a {
                        fb(p)
                    } else {
                        fa(p)
                    }
                });
                Ok(())
            });
        }
    }
}

/// Only the taken branch is evaluated: the other one would read outside `a` (GT4Py
/// evaluates a scalar `if` lazily too).
#[field_operator]
fn guarded_shift(a: Field<I, f64>, shift: bool) -> Field<I, f64> {
    if shift {
        a.at(I + 1)
    } else {
        a
    }
}
#[program]
fn guarded_shift_prog(a: &Field<I, f64>, out: &mut Field<I, f64>, shift: bool, n: i32) {
    guarded_shift(a, shift).write_to(out, domain![I: 0..n]);
}

#[test]
fn only_the_taken_branch_is_evaluated() {
    let mut rng = rng(702);
    let a: Field<I, f64> = random_field(&mut rng, &sized(&[NI]));
    for_each_backend(|backend| {
        let prog = guarded_shift_prog::compile(&backend.options())?;
        let mut out = poisoned(&sized(&[NI]));
        prog.call(guarded_shift_prog::Args {
            a: &a,
            out: &mut out,
            shift: false,
            n: NI as i32,
        })?;
        expect_field("unshifted", &out, &sized(&[NI]), |p| at(&a, p));
        let mut out = poisoned(&sized(&[NI]));
        prog.call(guarded_shift_prog::Args {
            a: &a,
            out: &mut out,
            shift: true,
            n: NI as i32 - 1,
        })?;
        expect_field("shifted", &out, &sized(&[NI - 1]), |p| at(&a, &[p[0] + 1]));
        Ok(())
    });
}
