//! `i32` static arguments that a program only compares with literals: tested for equality (one
//! literal negative), the CPU kernels get a copy per literal and one for every other value;
//! compared in order, a copy per class of values that compare alike (a `match` at the call
//! picks it). Every backend gives the same values for the literals, for values next to them and
//! for values far from them.

use gt4rs_tests::*;

use gt4rs::prelude::*;

#[field_operator]
fn by_mode(a: Field<(I, K), f64>, mode: i32) -> Field<(I, K), f64> {
    if mode == -1 {
        a * 2.0
    } else if mode != 3 {
        a + 1.0
    } else {
        a.at(K - 1)
    }
}

#[program]
fn by_mode_prog(a: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>, #[static_arg] mode: i32) {
    by_mode(a, mode).write_to(out, domain![I: 0..5, K: 1..4]);
}

#[test]
fn each_value_of_an_integer_static_runs_its_own_copy() {
    let ir = gt4rs::__private::ir::lower::lower(by_mode_prog::ir()).expect("lowers");
    assert_eq!(
        ir.equality_tests_of(2),
        Some([-1, 3].into_iter().collect()),
        "the program tests `mode` against -1 and 3 only"
    );
    each_mode_on_every_backend(
        1701,
        &[-1, 3, 0, -2, 2, 4, i32::MIN, i32::MAX],
        |options, a, mode, out| {
            by_mode_prog::compile(options)?.call(by_mode_prog::Args { a, out, mode })
        },
        |mode, a, p| match mode {
            -1 => 2.0 * at(a, p),
            3 => at(a, &[p[0], p[1] - 1]),
            _ => at(a, p) + 1.0,
        },
    );
}

/// Runs a program of `a` and `mode` (through `run`, on every backend, into a NaN-poisoned
/// output) for each of `modes`, and checks the levels it writes against `expected`.
fn each_mode_on_every_backend(
    seed: u64,
    modes: &[i32],
    run: impl Fn(&Options, &Field<(I, K), f64>, i32, &mut Field<(I, K), f64>) -> Result<(), Error>,
    expected: impl Fn(i32, &Field<(I, K), f64>, &[i64]) -> f64,
) {
    let mut rng = rng(seed);
    let a: Field<(I, K), f64> = random_field(&mut rng, &[0..5, 0..4]);
    for_each_backend(|backend| {
        for &mode in modes {
            let mut out = poisoned(&[0..5, 0..4]);
            run(&backend.options(), &a, mode, &mut out)?;
            expect_field(&format!("mode {mode}"), &out, &[0..5, 1..4], |p| {
                expected(mode, &a, p)
            });
        }
        Ok(())
    });
}

#[field_operator]
fn by_order(a: Field<(I, K), f64>, mode: i32) -> Field<(I, K), f64> {
    if mode >= 3 {
        a * 2.0
    } else if 0 > mode {
        a.at(K - 1)
    } else {
        a + 1.0
    }
}

#[program]
fn by_order_prog(a: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>, #[static_arg] mode: i32) {
    by_order(a, mode).write_to(out, domain![I: 0..5, K: 1..4]);
}

/// An `i32` static argument compared in order (`mode >= 3`, `0 > mode`): the CPU kernels get a
/// copy per class of values (`..=-1`, `0..=2`, `3..`); every backend gives the same values at
/// each class's edges and far from them.
#[test]
fn each_class_of_an_integer_static_compared_in_order_runs_its_own_copy() {
    let ir = gt4rs::__private::ir::lower::lower(by_order_prog::ir()).expect("lowers");
    let comparisons = ir
        .literal_comparisons_of(2)
        .expect("compared with literals only");
    assert_eq!(comparisons.len(), 2, "{comparisons:?}");
    assert_eq!(ir.equality_tests_of(2), None, "not equality tests only");
    each_mode_on_every_backend(
        1702,
        &[-1, 0, 2, 3, 4, -7, 9, i32::MIN, i32::MAX],
        |options, a, mode, out| {
            by_order_prog::compile(options)?.call(by_order_prog::Args { a, out, mode })
        },
        |mode, a, p| match mode {
            3.. => 2.0 * at(a, p),
            ..=-1 => at(a, &[p[0], p[1] - 1]),
            _ => at(a, p) + 1.0,
        },
    );
}
