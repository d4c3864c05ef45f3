//! The debug checks every program has: NaN in what a call wrote, negative values in named
//! outputs, an unknown check refused at `compile()`. On every backend configuration.

use gt4rs::debug::DebugChecks;
use gt4rs::prelude::*;
use gt4rs_tests::*;

#[field_operator]
fn ratio(a: Field<(I, J), f64>, b: Field<(I, J), f64>) -> Field<(I, J), f64> {
    a / b
}

#[program]
fn divide(
    a: &Field<(I, J), f64>,
    b: &Field<(I, J), f64>,
    out: &mut Field<(I, J), f64>,
    i_end: i32,
) {
    ratio(a, b).write_to(out, domain![I: 1..i_end, J: 0..4]);
}

fn checks(spec: &str) -> DebugChecks {
    DebugChecks::parse(spec).expect("a valid specification")
}

#[test]
fn nan_written_inside_the_domain_is_reported_and_nan_outside_it_is_not() {
    let mut rng = rng(4101);
    let dom = [0..6, 0..4];
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    let mut b: Field<(I, J), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let program = divide::compile(&backend.options().with_debug(checks("nan")))?;
        // The poisoned output holds NaN outside 1..5: only what the call wrote is checked.
        let mut out = poisoned(&dom);
        program.call(divide::Args {
            a: &a,
            b: &b,
            out: &mut out,
            i_end: 5,
        })?;
        // 0 / 0 at I = 3, J = 2.
        let mut zero_a = a.clone();
        zero_a.set(&[3, 2], 0.0)?;
        b.set(&[3, 2], 0.0)?;
        let result = program.call(divide::Args {
            a: &zero_a,
            b: &b,
            out: &mut out,
            i_end: 5,
        });
        expect_error(result, &["divide", "debug check", "`out`", "NaN", "[3, 2]"]);
        b.set(&[3, 2], 1.0)?;
        Ok(())
    });
}

#[test]
fn negative_values_in_a_named_output_are_reported() {
    let mut rng = rng(4102);
    let dom = [0..6, 0..4];
    let a: Field<(I, J), f64> = random_field_in(&mut rng, &dom, 1.0..2.0);
    let mut b: Field<(I, J), f64> = random_field_in(&mut rng, &dom, 1.0..2.0);
    b.set(&[2, 1], -1.0).expect("inside");
    for_each_backend(|backend| {
        let mut out = poisoned(&dom);
        // Not named: no check.
        divide::compile(&backend.options().with_debug(checks("negative=other")))?.call(
            divide::Args {
                a: &a,
                b: &b,
                out: &mut out,
                i_end: 5,
            },
        )?;
        let named = divide::compile(&backend.options().with_debug(checks("negative=out")))?;
        let result = named.call(divide::Args {
            a: &a,
            b: &b,
            out: &mut out,
            i_end: 5,
        });
        expect_error(result, &["`out`", "negative", "[2, 1]"]);
        Ok(())
    });
}

#[test]
fn checks_are_off_unless_asked_for() {
    let program = divide::compile(&Options::new(Backend::Cpu).with_debug(DebugChecks::off()))
        .expect("compiles");
    assert!(!program.debug_checks().is_on());
}
