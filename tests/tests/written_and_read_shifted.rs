//! A call that writes a field it also reads through a shift. Every value of a call is computed
//! from the fields as they were before it (the embedded backend's semantics), so the fused
//! backends read such a field from a copy made before the call writes it. The checker used to
//! refuse these programs ("`a` is written by this call and also read through a shift in it"),
//! although ICON4Py's vertically implicit solver writes `w` on levels `0..n` and reads it only at
//! level `n`.

use gt4rs::prelude::*;
use gt4rs_tests::*;

/// The solver's pattern: levels below `last` from `x`, level `last` from the level below it
/// (`w` has one level more than is written).
#[field_operator]
fn from_the_level_below(
    x: Field<(I, K), f64>,
    w: Field<(I, K), f64>,
    last: i32,
) -> Field<(I, K), f64> {
    concat_where(K < last, x, w.at(K + 1))
}

#[program]
fn from_the_level_below_prog(x: &Field<(I, K), f64>, w: &mut Field<(I, K), f64>, last: i32) {
    from_the_level_below(x, w, last).write_to(w, domain![I: 0..5, K: 0..last + 1]);
}

/// Points read are points written: each level and the one below, along K and along I.
#[field_operator]
fn smooth(a: Field<(I, K), f64>) -> Field<(I, K), f64> {
    a + a.at(K + 1) + a.at(I + 1)
}

#[program]
fn smooth_in_place(a: &mut Field<(I, K), f64>) {
    smooth(a).write_to(a, domain![I: 0..4, K: 0..6]);
}

#[test]
fn a_field_written_on_levels_it_is_not_read_at() {
    let mut rng = rng(1601);
    let nk = 9i64;
    let x: Field<(I, K), f64> = random_field(&mut rng, &[0..5, 0..nk]);
    let w0: Field<(I, K), f64> = random_field(&mut rng, &[0..5, 0..nk]);
    for_each_backend(|backend| {
        let prog = from_the_level_below_prog::compile(&backend.options())?;
        let last = nk - 2;
        let mut w = w0.clone();
        prog.call(from_the_level_below_prog::Args {
            x: &x,
            w: &mut w,
            last: last as i32,
        })?;
        expect_field("w", &w, &[0..5, 0..nk], |p| match p[1] {
            k if k < last => at(&x, p),
            k if k == last => at(&w0, &[p[0], k + 1]),
            _ => at(&w0, p),
        });
        Ok(())
    });
}

#[test]
fn a_field_read_where_the_call_writes_it_reads_what_was_there_before() {
    let mut rng = rng(1602);
    let a0: Field<(I, K), f64> = random_field(&mut rng, &[0..5, 0..7]);
    for_each_backend(|backend| {
        let prog = smooth_in_place::compile(&backend.options())?;
        let mut a = a0.clone();
        prog.call(smooth_in_place::Args { a: &mut a })?;
        expect_field("a", &a, &[0..5, 0..7], |p| {
            if p[0] < 4 && p[1] < 6 {
                at(&a0, p) + at(&a0, &[p[0], p[1] + 1]) + at(&a0, &[p[0] + 1, p[1]])
            } else {
                at(&a0, p)
            }
        });
        Ok(())
    });
}

/// ICON4Py's predictor cell diagnostics' pattern: one call writes `a` on some points and, into
/// another output with another domain, a value read from `a` at the point.
#[field_operator]
fn replace_and_increment(
    a: Field<(I, K), f64>,
    x: Field<(I, K), f64>,
) -> (Field<(I, K), f64>, Field<(I, K), f64>) {
    (x, a + 1.0)
}

#[program]
fn replace_and_increment_prog(
    a: &mut Field<(I, K), f64>,
    x: &Field<(I, K), f64>,
    b: &mut Field<(I, K), f64>,
) {
    replace_and_increment(a, x).write_to(
        (a, b),
        (domain![I: 0..4, K: 0..3], domain![I: 0..5, K: 1..3]),
    );
}

#[test]
fn an_output_of_another_domain_reads_the_written_field_as_it_was_before_the_call() {
    let mut rng = rng(1603);
    let a0: Field<(I, K), f64> = random_field(&mut rng, &[0..5, 0..3]);
    let x: Field<(I, K), f64> = random_field(&mut rng, &[0..5, 0..3]);
    let b0: Field<(I, K), f64> = random_field(&mut rng, &[0..5, 0..3]);
    for_each_backend(|backend| {
        let prog = replace_and_increment_prog::compile(&backend.options())?;
        let (mut a, mut b) = (a0.clone(), b0.clone());
        prog.call(replace_and_increment_prog::Args {
            a: &mut a,
            x: &x,
            b: &mut b,
        })?;
        expect_field("a", &a, &[0..5, 0..3], |p| {
            if p[0] < 4 {
                at(&x, p)
            } else {
                at(&a0, p)
            }
        });
        expect_field("b", &b, &[0..5, 0..3], |p| {
            if p[1] >= 1 {
                at(&a0, p) + 1.0
            } else {
                at(&b0, p)
            }
        });
        Ok(())
    });
}
