//! GT4Py `test_tuples.py`: multicopy, mixed field and scalar tuples, unpromotable dimensions in
//! one tuple, nested returns and unpacking (with `_`). Tuple *arguments* of programs have no
//! gt4rs spelling (program parameters are fields and scalars), so tuples are built inside the
//! operator; GT4Py's starred unpacking has no Rust equivalent; the "too many / too few values"
//! errors are compile-time diagnostics (UI test `tuple_pattern_mismatch`).

use super::common::*;

#[field_operator]
fn make_tuple(
    a: Field<(I, J), f64>,
    b: Field<(I, J), f64>,
    s: f64,
) -> ((Field<(I, J), f64>, f64), Field<(I, J), f64>) {
    ((a, s), b)
}

#[field_operator]
fn tuples(
    a: Field<(I, J), f64>,
    b: Field<(I, J), f64>,
    c: Field<K, i32>,
    s: f64,
) -> (
    Field<(I, J), f64>,
    (Field<(I, J), f64>, (Field<K, i32>, Field<(I, J), f64>)),
) {
    let ((x, scalar), y) = make_tuple(a, b, s);
    let (_, second) = (x, y * scalar);
    let nested = (second, (c * 2, make_tuple(b, a, s).0 .0));
    (x + y, nested)
}

#[program]
fn tuples_prog(
    a: &Field<(I, J), f64>,
    b: &Field<(I, J), f64>,
    c: &Field<K, i32>,
    s: f64,
    sum: &mut Field<(I, J), f64>,
    scaled: &mut Field<(I, J), f64>,
    doubled: &mut Field<K, i32>,
    copied: &mut Field<(I, J), f64>,
) {
    tuples(a, b, c, s).write_to((sum, (scaled, (doubled, copied))));
}

#[test]
fn nested_tuples_unpacking_and_unpromotable_dimensions() {
    let mut rng = rng(1101);
    let ij = sized(&[NI, NJ]);
    let k = sized(&[NK]);
    let a: Field<(I, J), f64> = random_field(&mut rng, &ij);
    let b: Field<(I, J), f64> = random_field(&mut rng, &ij);
    let c: Field<K, i32> = random_field(&mut rng, &k);
    let s = -0.75;
    for_each_backend(|backend| {
        let (mut sum, mut scaled, mut copied) = (poisoned(&ij), poisoned(&ij), poisoned(&ij));
        let mut doubled = poisoned(&k);
        tuples_prog::compile(&backend.options())?.call(tuples_prog::Args {
            a: &a,
            b: &b,
            c: &c,
            s,
            sum: &mut sum,
            scaled: &mut scaled,
            doubled: &mut doubled,
            copied: &mut copied,
        })?;
        expect_field("sum", &sum, &ij, |p| at(&a, p) + at(&b, p));
        expect_field("scaled", &scaled, &ij, |p| at(&b, p) * s);
        expect_field("doubled", &doubled, &k, |p| at(&c, p) * 2);
        expect_field("copied", &copied, &ij, |p| at(&b, p));
        Ok(())
    });
}

/// GT4Py `test_multicopy`: `(a, b)` written to `(out_a, out_b)` with one shared domain.
#[field_operator]
fn multicopy(
    a: Field<(I, J, K), f64>,
    b: Field<(I, J, K), i32>,
) -> (Field<(I, J, K), f64>, Field<(I, J, K), i32>) {
    (a, b)
}
#[program]
fn multicopy_prog(
    a: &Field<(I, J, K), f64>,
    b: &Field<(I, J, K), i32>,
    out_a: &mut Field<(I, J, K), f64>,
    out_b: &mut Field<(I, J, K), i32>,
) {
    multicopy(a, b).write_to((out_a, out_b), domain![I: 1..4, K: 0..5]);
}

#[test]
fn multicopy_with_one_domain() {
    let mut rng = rng(1102);
    let dom = sized(&[NI, NJ, NK]);
    let written = [1..4, 0..NJ as i64, 0..5];
    let a: Field<(I, J, K), f64> = random_field(&mut rng, &dom);
    let b: Field<(I, J, K), i32> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let mut out_a = poisoned(&dom);
        let mut out_b = poisoned(&dom);
        multicopy_prog::compile(&backend.options())?.call(multicopy_prog::Args {
            a: &a,
            b: &b,
            out_a: &mut out_a,
            out_b: &mut out_b,
        })?;
        expect_field("out_a", &out_a, &written, |p| at(&a, p));
        expect_field("out_b", &out_b, &written, |p| at(&b, p));
        Ok(())
    });
}
