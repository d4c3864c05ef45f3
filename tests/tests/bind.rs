//! Bound arguments (`gt4rs::bind!`) and static-argument variants.

use std::sync::Arc;

use gt4rs::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

gt4rs::dimensions! { pub I: horizontal; pub K: vertical; }

#[field_operator]
fn blend(
    a: Field<(I, K), f64>,
    metric: Field<(I, K), f64>,
    weight: Field<I, f64>,
    c: f64,
    flip: bool,
) -> Field<(I, K), f64> {
    let s = if flip { -c } else { c };
    s * a * metric + weight
}

#[program]
pub fn blend_program(
    a: &Field<(I, K), f64>,
    metric: &Field<(I, K), f64>,
    weight: &Field<I, f64>,
    out: &mut Field<(I, K), f64>,
    c: f64,
    #[static_arg] flip: bool,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    blend(a, metric, weight, c, flip).write_to(
        out,
        domain![I: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[program]
fn scale_program(metric: &Field<(I, K), f64>, out: &mut Field<(I, K), f64>, c: f64) {
    blend(metric, metric, broadcast(0.0, (I,)), c, false).write_to(out);
}

mod bound {
    gt4rs::bind! {
        pub mod blend_metric = super::blend_program(metric, weight, c, horizontal_start, horizontal_end);
        pub mod blend_domain = crate::blend_program(metric, horizontal_start, horizontal_end, vertical_start, vertical_end);
    }
}

gt4rs::bind! {
    mod scale_metric = scale_program(metric);
}

const NI: usize = 13;
const NK: usize = 7;

fn random_field<D: gt4rs::Dims>(shape: &[usize], rng: &mut ChaCha8Rng) -> Field<D, f64> {
    let domain: Vec<std::ops::Range<i64>> = shape.iter().map(|&n| 0..n as i64).collect();
    Field::from_fn(&domain, Layout::default(), |_| rng.random_range(-1.0..1.0)).expect("valid")
}

fn poisoned() -> Field<(I, K), f64> {
    Field::filled(&[0..NI as i64, 0..NK as i64], f64::NAN, Layout::default()).expect("valid")
}

fn same(a: &Field<(I, K), f64>, b: &Field<(I, K), f64>) -> bool {
    a.as_array()
        .iter()
        .zip(b.as_array().iter())
        .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
}

struct Inputs {
    a: Field<(I, K), f64>,
    metric: Arc<Field<(I, K), f64>>,
    weight: Arc<Field<I, f64>>,
}

fn inputs() -> Inputs {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    Inputs {
        a: random_field(&[NI, NK], &mut rng),
        metric: Arc::new(random_field(&[NI, NK], &mut rng)),
        weight: Arc::new(random_field(&[NI], &mut rng)),
    }
}

fn unbound(options: &Options, x: &Inputs, flip: bool) -> Result<Field<(I, K), f64>, Error> {
    let mut out = poisoned();
    blend_program::compile(options)?.call(blend_program::Args {
        a: &x.a,
        metric: &x.metric,
        weight: &x.weight,
        out: &mut out,
        c: 0.75,
        flip,
        horizontal_start: 2,
        horizontal_end: 11,
        vertical_start: 1,
        vertical_end: 6,
    })?;
    Ok(out)
}

#[test]
fn bound_fields_and_scalars_give_the_unbound_result() -> Result<(), Error> {
    let x = inputs();
    for backend in [Backend::Embedded, Backend::Cpu] {
        let options = Options::new(backend);
        for flip in [false, true] {
            let expected = unbound(&options, &x, flip)?;
            assert!(expected.as_array().iter().any(|v| !v.is_nan()));

            let metric_bound = bound::blend_metric::compile(
                &options,
                bound::blend_metric::Bound {
                    metric: Arc::clone(&x.metric),
                    weight: Arc::clone(&x.weight),
                    c: 0.75,
                    horizontal_start: 2,
                    horizontal_end: 11,
                },
            )?;
            let mut out = poisoned();
            metric_bound.call(bound::blend_metric::Args {
                a: &x.a,
                out: &mut out,
                flip,
                vertical_start: 1,
                vertical_end: 6,
            })?;
            assert!(
                same(&out, &expected),
                "{backend:?} flip={flip}: metric bound"
            );

            let domain_bound = bound::blend_domain::compile(
                &options,
                bound::blend_domain::Bound {
                    metric: Arc::clone(&x.metric),
                    horizontal_start: 2,
                    horizontal_end: 11,
                    vertical_start: 1,
                    vertical_end: 6,
                },
            )?;
            let mut out = poisoned();
            domain_bound.call(bound::blend_domain::Args {
                a: &x.a,
                weight: &x.weight,
                out: &mut out,
                c: 0.75,
                flip,
            })?;
            assert!(
                same(&out, &expected),
                "{backend:?} flip={flip}: domain bound"
            );
        }
    }
    Ok(())
}

#[test]
fn two_bound_programs_share_one_metric_field() -> Result<(), Error> {
    let x = inputs();
    let options = Options::new(Backend::Cpu);
    let blend = bound::blend_domain::compile(
        &options,
        bound::blend_domain::Bound {
            metric: Arc::clone(&x.metric),
            horizontal_start: 0,
            horizontal_end: NI as i32,
            vertical_start: 0,
            vertical_end: NK as i32,
        },
    )?;
    let scale = scale_metric::compile(
        &options,
        scale_metric::Bound {
            metric: Arc::clone(&x.metric),
        },
    )?;
    assert_eq!(Arc::strong_count(&x.metric), 3);
    assert!(Arc::ptr_eq(&blend.bound().metric, &scale.bound().metric));

    let mut scaled = poisoned();
    scale.call(scale_metric::Args {
        out: &mut scaled,
        c: -1.5,
    })?;
    for (s, m) in scaled.as_array().iter().zip(x.metric.as_array().iter()) {
        assert_eq!(*s, -1.5 * m * m);
    }
    let mut blended = poisoned();
    blend.call(bound::blend_domain::Args {
        a: &x.a,
        weight: &x.weight,
        out: &mut blended,
        c: 2.0,
        flip: false,
    })?;
    assert!(blended.as_array().iter().all(|v| v.is_finite()));
    Ok(())
}

#[test]
fn static_variants_accept_listed_values_and_reject_others() -> Result<(), Error> {
    let x = inputs();
    for backend in [Backend::Embedded, Backend::Cpu] {
        let listed =
            Options::new(backend).with_static_variants("blend_program", "flip", [false, true]);
        for flip in [false, true] {
            let plain = unbound(&Options::new(backend), &x, flip)?;
            assert!(same(&unbound(&listed, &x, flip)?, &plain));
        }

        let only_false = Options::new(backend).with_static_arg("blend_program", "flip", false);
        unbound(&only_false, &x, false)?;
        let err = unbound(&only_false, &x, true).expect_err("true was not compiled");
        let message = err.to_string();
        for part in ["blend_program", "flip", "true", "compiled values: false"] {
            assert!(message.contains(part), "`{part}` missing from: {message}");
        }

        // On demand, CPU and embedded take the value at run time.
        let on_demand = only_false.clone().with_unlisted_static_values(true);
        let plain = unbound(&Options::new(backend), &x, true)?;
        assert!(same(&unbound(&on_demand, &x, true)?, &plain));
    }
    Ok(())
}

#[test]
fn static_variants_of_unknown_or_mistyped_parameters_are_errors() {
    let misspelt = Options::new(Backend::Cpu).with_static_arg("blend_program", "flop", true);
    let err = blend_program::compile(&misspelt)
        .err()
        .expect("no such static argument");
    assert!(err.to_string().contains("flop"), "{err}");

    let not_static = Options::new(Backend::Cpu).with_static_arg("blend_program", "c", 1.0);
    let err = blend_program::compile(&not_static)
        .err()
        .expect("`c` is not static");
    assert!(err.to_string().contains("`c`"), "{err}");

    let mistyped = Options::new(Backend::Cpu).with_static_variants("blend_program", "flip", [1]);
    let err = blend_program::compile(&mistyped)
        .err()
        .expect("flip is a bool");
    assert!(err.to_string().contains("bool"), "{err}");
}

#[test]
fn parameter_types_are_nameable() {
    let weight: blend_program::types::weight =
        Field::filled(&[0..3], 1.0, Layout::default()).expect("valid");
    let c: blend_program::types::c = 0.5;
    let flip: blend_program::types::flip = true;
    assert_eq!(weight.shape(), &[3]);
    assert!(c > 0.0 && flip);
}
