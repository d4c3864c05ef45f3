//! GT4Py `test_domain.py`: a scalar size used in the domain and in the operator, a
//! single-point domain, bound expressions (`min`, `/`, arithmetic), 2-D bounds and a tuple
//! output with one domain; and the run-time errors of domains outside a field.

use super::common::*;

#[field_operator]
fn scaled_by_size(a: Field<(I, J), f64>, size: i32) -> Field<(I, J), f64> {
    a * (size as f64)
}

#[program]
fn bounds(
    a: &Field<(I, J), f64>,
    by_size: &mut Field<(I, J), f64>,
    single: &mut Field<(I, J), f64>,
    expressions: &mut Field<(I, J), f64>,
    size: i32,
    lower: i32,
    upper: i32,
) {
    scaled_by_size(a, size).write_to(by_size, domain![I: 0..size - 1]);
    scaled_by_size(a, 1).write_to(single, domain![I: 1..2, J: 3..4]);
    scaled_by_size(a, size).write_to(
        expressions,
        domain![I: 1 * lower..(upper + 0).min(size), J: upper / 2..lower * 2 + 3],
    );
}

#[test]
fn scalar_sizes_single_points_and_bound_expressions() {
    let mut rng = rng(1601);
    let (ni, nj) = (NI as i64, NJ as i64);
    let dom = sized(&[NI, NJ]);
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    let (size, lower, upper) = (NI as i32, 1, 6);
    for_each_backend(|backend| {
        let (mut by_size, mut single, mut expressions) =
            (poisoned(&dom), poisoned(&dom), poisoned(&dom));
        bounds::compile(&backend.options())?.call(bounds::Args {
            a: &a,
            by_size: &mut by_size,
            single: &mut single,
            expressions: &mut expressions,
            size,
            lower,
            upper,
        })?;
        expect_field("by_size", &by_size, &[0..ni - 1, 0..nj], |p| {
            at(&a, p) * size as f64
        });
        expect_field("single", &single, &[1..2, 3..4], |p| at(&a, p));
        expect_field("expressions", &expressions, &[1..5, 3..5], |p| {
            at(&a, p) * size as f64
        });
        Ok(())
    });
}

#[field_operator]
fn pair(a: Field<(I, J), f64>) -> (Field<(I, J), f64>, Field<(I, J), f64>) {
    (a, -a)
}
#[program]
fn pair_prog(
    a: &Field<(I, J), f64>,
    x: &mut Field<(I, J), f64>,
    y: &mut Field<(I, J), f64>,
    i0: i32,
    i1: i32,
    j0: i32,
    j1: i32,
) {
    pair(a).write_to((x, y), domain![I: i0..i1, J: j0..j1]);
}

#[test]
fn tuple_output_with_a_two_dimensional_domain() {
    let mut rng = rng(1602);
    let dom = sized(&[NI, NJ]);
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let (mut x, mut y) = (poisoned(&dom), poisoned(&dom));
        pair_prog::compile(&backend.options())?.call(pair_prog::Args {
            a: &a,
            x: &mut x,
            y: &mut y,
            i0: 1,
            i1: 3,
            j0: 2,
            j1: 7,
        })?;
        expect_field("x", &x, &[1..3, 2..7], |p| at(&a, p));
        expect_field("y", &y, &[1..3, 2..7], |p| -at(&a, p));
        Ok(())
    });
}

#[test]
fn domains_outside_the_fields_are_errors() {
    let mut rng = rng(1603);
    let dom = sized(&[NI, NJ]);
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let prog = pair_prog::compile(&backend.options())?;
        let run = |i0: i32, i1: i32, j0: i32, j1: i32| {
            let (mut x, mut y) = (poisoned(&dom), poisoned(&dom));
            let result = prog.call(pair_prog::Args {
                a: &a,
                x: &mut x,
                y: &mut y,
                i0,
                i1,
                j0,
                j1,
            });
            let untouched = points(&dom)
                .iter()
                .all(|p| at(&x, p).is_nan() && at(&y, p).is_nan());
            (result, untouched)
        };
        // Past the end of I, before the start of J (negative), and both.
        for (i0, i1, j0, j1, dim) in [
            (0, NI as i32 + 1, 0, 2, "I"),
            (0, 2, -1, 3, "J"),
            (-2, 9, -3, 12, "I"),
        ] {
            let (result, untouched) = run(i0, i1, j0, j1);
            expect_error(result, &["pair_prog", "`x`", dim]);
            assert!(untouched, "a failed call wrote to its outputs");
        }
        // An empty domain writes nothing and is no error.
        let (result, untouched) = run(3, 3, 0, 2);
        result?;
        assert!(untouched, "an empty domain wrote");
        Ok(())
    });
}
