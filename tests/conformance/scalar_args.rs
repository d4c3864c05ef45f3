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
