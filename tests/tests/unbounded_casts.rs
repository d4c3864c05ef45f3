//! Casts of floats that do not fit the integer type follow `gt4rs_ir::scalar`'s rule (Rust's
//! `as`) on every backend: NaN becomes 0, values beyond the range saturate at its ends, the rest
//! truncate toward zero. A C cast of such a value is undefined (x86 gives the type's minimum for
//! all of them), so the CUDA kernels cannot use one.

use gt4rs::prelude::*;
use gt4rs_tests::*;
use rand::RngExt;

#[field_operator]
fn truncated(
    x: Field<(Edge, K), f64>,
    y: Field<(Edge, K), f32>,
) -> (
    Field<(Edge, K), i32>,
    Field<(Edge, K), i64>,
    Field<(Edge, K), i32>,
    Field<(Edge, K), i64>,
) {
    (x as i32, x as i64, y as i32, y as i64)
}

#[program]
fn truncated_prog(
    x: &Field<(Edge, K), f64>,
    y: &Field<(Edge, K), f32>,
    x32: &mut Field<(Edge, K), i32>,
    x64: &mut Field<(Edge, K), i64>,
    y32: &mut Field<(Edge, K), i32>,
    y64: &mut Field<(Edge, K), i64>,
) {
    truncated(x, y).write_to((x32, x64, y32, y64));
}

/// Values at and beyond the ends of both integer types, NaN, infinities and fractions.
const SPECIAL: [f64; 22] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1e300,
    -1e300,
    3.5e9,
    -3.5e9,
    2_147_483_647.9,
    2_147_483_648.0,
    -2_147_483_648.0,
    -2_147_483_648.9,
    -2_147_483_649.0,
    9.3e18,
    -9.3e18,
    9_223_372_036_854_775_807.0,
    -9_223_372_036_854_775_808.0,
    0.999,
    -0.999,
    -0.0,
    f64::MIN_POSITIVE,
    1.5,
    -7.75,
];

#[test]
fn casts_of_unbounded_floats_saturate_on_every_backend() {
    let mut rng = rng(20_261_128);
    let domain = [0..40, 0..NK as i64];
    let draw = |rng: &mut TestRng, i: usize| -> f64 {
        match i % 3 {
            0 => SPECIAL[rng.random_range(0..SPECIAL.len())],
            1 => rng.random_range(-1e19..1e19),
            _ => rng.random_range(-3e9..3e9),
        }
    };
    let mut n = 0;
    let x: Field<(Edge, K), f64> = Field::from_fn(&domain, Layout::default(), |_| {
        n += 1;
        draw(&mut rng, n)
    })
    .expect("test domain");
    let mut n = 0;
    let y: Field<(Edge, K), f32> = Field::from_fn(&domain, Layout::default(), |_| {
        n += 2;
        draw(&mut rng, n) as f32
    })
    .expect("test domain");
    for_each_backend(|backend| {
        let program = truncated_prog::compile(&backend.options())?;
        let (mut x32, mut x64) = (poisoned(&domain), poisoned(&domain));
        let (mut y32, mut y64) = (poisoned(&domain), poisoned(&domain));
        program.call(truncated_prog::Args {
            x: &x,
            y: &y,
            x32: &mut x32,
            x64: &mut x64,
            y32: &mut y32,
            y64: &mut y64,
        })?;
        let name = backend.name();
        for p in points(&domain) {
            let (a, b) = (at(&x, &p), at(&y, &p));
            let got = (at(&x32, &p), at(&x64, &p), at(&y32, &p), at(&y64, &p));
            let want = (a as i32, a as i64, b as i32, b as i64);
            assert_eq!(got, want, "{name}: casts of {a:e} and {b:e} at {p:?}");
        }
        Ok(())
    });
}
