//! GT4Py `test_scalar_args.py`: int and bool scalars (`not a` is `!a`), a scalar passed on to a
//! nested operator, a scalar together with a field, and a scalar used twice.

use super::common::*;

#[field_operator]
fn scaled(a: Field<(I, K), f64>, factor: f64) -> Field<(I, K), f64> {
    a * factor
}
#[field_operator]
fn scalars(
    a: Field<(I, K), f64>,
    factor: f64,
    count: i32,
    wide: i64,
    flag: bool,
) -> (
    Field<(I, K), f64>,
    Field<(I, K), i32>,
    Field<(I, K), i64>,
    Field<(I, K), f64>,
) {
    let nested = scaled(a, factor) + factor * factor;
    let counted = broadcast(count * 2 - 1, (I, K));
    let widened = broadcast(wide + 3, (I, K));
    let negated = if !flag { a } else { -a };
    (nested, counted, widened, negated)
}

#[program]
fn scalars_prog(
    a: &Field<(I, K), f64>,
    factor: f64,
    count: i32,
    wide: i64,
    flag: bool,
    nested: &mut Field<(I, K), f64>,
    counted: &mut Field<(I, K), i32>,
    widened: &mut Field<(I, K), i64>,
    negated: &mut Field<(I, K), f64>,
) {
    scalars(a, factor, count, wide, flag)
        .write_to((nested, counted, widened, negated), domain![K: 2..7]);
}

#[test]
fn int_float_and_bool_scalars() {
    let mut rng = rng(901);
    let (ni, _) = (NI as i64, NK as i64);
    let dom = sized(&[NI, NK]);
    let written = [0..ni, 2..7];
    let a: Field<(I, K), f64> = random_field(&mut rng, &dom);
    for flag in [true, false] {
        for_each_backend(|backend| {
            let (mut nested, mut negated) = (poisoned(&dom), poisoned(&dom));
            let mut counted = poisoned(&dom);
            let mut widened = poisoned(&dom);
            scalars_prog::compile(&backend.options())?.call(scalars_prog::Args {
                a: &a,
                factor: -1.25,
                count: 17,
                wide: 5_000_000_000,
                flag,
                nested: &mut nested,
                counted: &mut counted,
                widened: &mut widened,
                negated: &mut negated,
            })?;
            expect_field("nested", &nested, &written, |p| {
                at(&a, p) * -1.25 + 1.25 * 1.25
            });
            expect_field("counted", &counted, &written, |_| 33);
            expect_field("widened", &widened, &written, |_| 5_000_000_003);
            expect_field("negated", &negated, &written, |p| {
                if flag {
                    -at(&a, p)
                } else {
                    at(&a, p)
                }
            });
            Ok(())
        });
    }
}

/// Static arguments (`#[static_arg]`, GT4Py's `static_params`) take new values on every call of
/// one compiled program.
#[field_operator]
fn static_choice(a: Field<(I, K), f64>, negate: bool, levels: i32) -> Field<(I, K), f64> {
    let signed = if negate { -a } else { a };
    concat_where(K < levels, signed, a * 0.0 + 2.0)
}
#[program]
fn static_choice_prog(
    a: &Field<(I, K), f64>,
    out: &mut Field<(I, K), f64>,
    #[static_arg] negate: bool,
    #[static_arg] levels: i32,
) {
    static_choice(a, negate, levels).write_to(out);
}

#[test]
fn static_arguments_change_between_calls() {
    let mut rng = rng(902);
    let dom = sized(&[NI, NK]);
    let a: Field<(I, K), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let prog = static_choice_prog::compile(&backend.options())?;
        for (negate, levels) in [(true, 3), (false, 3), (true, 7), (false, 0)] {
            let mut out = poisoned(&dom);
            prog.call(static_choice_prog::Args {
                a: &a,
                out: &mut out,
                negate,
                levels,
            })?;
            expect_field("out", &out, &dom, |p| {
                if p[1] < levels as i64 {
                    if negate {
                        -at(&a, p)
                    } else {
                        at(&a, p)
                    }
                } else {
                    2.0
                }
            });
        }
        Ok(())
    });
}
