//! A call whose later output uses a value an earlier output stores: where the earlier output's
//! domain covers the later one's, the fused backends load the stored value instead of
//! computing it again (`ir/src/lower/read_back.rs`); where it does not, they compute it. Both
//! give the call value at every point, whatever the domains, the field written in place or not.

use gt4rs::prelude::*;
use gt4rs_tests::*;

/// A value worth storing (shifted reads and a square root), and a second output that uses it.
#[field_operator]
fn stored_and_reused(
    a: Field<(I, K), f64>,
    b: Field<(I, K), f64>,
) -> (Field<(I, K), f64>, Field<(I, K), f64>) {
    let heavy = (a * a.at(I + 1) + b.at(K + 1) * b).abs().sqrt() + a.at(K + 1) * b.at(I + 1);
    (heavy, heavy * b - a)
}

#[program]
fn stored_then_reused(
    a: &Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    first: &mut Field<(I, K), f64>,
    second: &mut Field<(I, K), f64>,
    first_start: i32,
    first_end: i32,
    second_start: i32,
    second_end: i32,
    levels: i32,
) {
    stored_and_reused(a, b).write_to(
        (first, second),
        (
            domain![I: first_start..first_end, K: 0..levels],
            domain![I: second_start..second_end, K: 0..levels],
        ),
    );
}

/// The same with the first output written over its own input `a`.
#[program]
fn stored_in_place_then_reused(
    a: &mut Field<(I, K), f64>,
    b: &Field<(I, K), f64>,
    second: &mut Field<(I, K), f64>,
    first_start: i32,
    first_end: i32,
    second_start: i32,
    second_end: i32,
    levels: i32,
) {
    stored_and_reused(a, b).write_to(
        (a, second),
        (
            domain![I: first_start..first_end, K: 0..levels],
            domain![I: second_start..second_end, K: 0..levels],
        ),
    );
}

type F = Field<(I, K), f64>;

const NI: i64 = 12;
const NK: i64 = 7;

fn heavy(a: &Field<(I, K), f64>, b: &Field<(I, K), f64>, p: &[i64]) -> f64 {
    let (i, k) = (p[0], p[1]);
    (at(a, &[i, k]) * at(a, &[i + 1, k]) + at(b, &[i, k + 1]) * at(b, &[i, k]))
        .abs()
        .sqrt()
        + at(a, &[i, k + 1]) * at(b, &[i + 1, k])
}

/// First rows, second rows: nested both ways, overlapping, apart, and empty.
const DOMAINS: [((i64, i64), (i64, i64)); 5] = [
    ((0, 11), (2, 9)),
    ((3, 8), (0, 11)),
    ((0, 6), (4, 11)),
    ((0, 3), (7, 10)),
    ((5, 5), (1, 10)),
];

/// The call's two outputs where they are written and what was there elsewhere: `first` over
/// `first_rows`, `second` over `second_rows`, from the inputs `a` and `b`.
fn expect_outputs(
    (first_name, first, first_before): (&str, &F, &F),
    (second, second_before): (&F, &F),
    (a, b): (&F, &F),
    ((s1, e1), (s2, e2)): ((i64, i64), (i64, i64)),
    levels: i64,
) {
    let inside = |p: &[i64], s: i64, e: i64| (s..e).contains(&p[0]) && p[1] < levels;
    expect_field(first_name, first, &[0..NI, 0..NK], |p| {
        if inside(p, s1, e1) {
            heavy(a, b, p)
        } else {
            at(first_before, p)
        }
    });
    expect_field("second", second, &[0..NI, 0..NK], |p| {
        if inside(p, s2, e2) {
            heavy(a, b, p) * at(b, p) - at(a, p)
        } else {
            at(second_before, p)
        }
    });
}

#[test]
fn a_value_an_earlier_output_stores_is_the_call_value_whatever_the_domains() {
    let mut rng = rng(1701);
    let a: Field<(I, K), f64> = random_field(&mut rng, &[0..NI, 0..NK]);
    let b: Field<(I, K), f64> = random_field(&mut rng, &[0..NI, 0..NK]);
    let first0: Field<(I, K), f64> = random_field(&mut rng, &[0..NI, 0..NK]);
    let second0: Field<(I, K), f64> = random_field(&mut rng, &[0..NI, 0..NK]);
    let levels = NK - 1;
    for rows @ ((s1, e1), (s2, e2)) in DOMAINS {
        for_each_backend(|backend| {
            let prog = stored_then_reused::compile(&backend.options())?;
            let (mut first, mut second) = (first0.clone(), second0.clone());
            prog.call(stored_then_reused::Args {
                a: &a,
                b: &b,
                first: &mut first,
                second: &mut second,
                first_start: s1 as i32,
                first_end: e1 as i32,
                second_start: s2 as i32,
                second_end: e2 as i32,
                levels: levels as i32,
            })?;
            expect_outputs(
                ("first", &first, &first0),
                (&second, &second0),
                (&a, &b),
                rows,
                levels,
            );
            Ok(())
        });
    }
}

#[test]
fn a_value_stored_over_its_own_input_is_read_back_as_the_call_value() {
    let mut rng = rng(1702);
    let a0: Field<(I, K), f64> = random_field(&mut rng, &[0..NI, 0..NK]);
    let b: Field<(I, K), f64> = random_field(&mut rng, &[0..NI, 0..NK]);
    let second0: Field<(I, K), f64> = random_field(&mut rng, &[0..NI, 0..NK]);
    let levels = NK - 1;
    for rows @ ((s1, e1), (s2, e2)) in DOMAINS {
        for_each_backend(|backend| {
            let prog = stored_in_place_then_reused::compile(&backend.options())?;
            let (mut a, mut second) = (a0.clone(), second0.clone());
            prog.call(stored_in_place_then_reused::Args {
                a: &mut a,
                b: &b,
                second: &mut second,
                first_start: s1 as i32,
                first_end: e1 as i32,
                second_start: s2 as i32,
                second_end: e2 as i32,
                levels: levels as i32,
            })?;
            expect_outputs(("a", &a, &a0), (&second, &second0), (&a0, &b), rows, levels);
            Ok(())
        });
    }
}
