//! GT4Py `test_program.py`: identity and shift, copy and double copy, a restricted copy,
//! operator → operator, tuple outputs, non-zero-origin input and output fields, and an output
//! read elementwise by the call that writes it. Wrong argument types and domain dimensions
//! not of the output are compile-time errors in gt4rs (UI tests `program_value_type_mismatch`,
//! `domain_dimension_mismatch`); wrong sizes are run-time errors, tested here.

use super::common::*;

#[field_operator]
fn identity(a: Field<(I, J), f64>) -> Field<(I, J), f64> {
    a
}
#[field_operator]
fn shift_by_one(a: Field<(I, J), f64>) -> Field<(I, J), f64> {
    a.at(I + 1)
}
#[field_operator]
fn identity_then_shift(a: Field<(I, J), f64>) -> Field<(I, J), f64> {
    shift_by_one(identity(a)) * 2.0
}

#[program]
fn copies(
    a: &Field<(I, J), f64>,
    copy: &mut Field<(I, J), f64>,
    copy_again: &mut Field<(I, J), f64>,
    shifted: &mut Field<(I, J), f64>,
    restricted: &mut Field<(I, J), f64>,
    nested: &mut Field<(I, J), f64>,
) {
    identity(a).write_to(copy);
    identity(a).write_to(copy_again);
    shift_by_one(a).write_to(shifted, domain![I: 0..4]);
    identity(a).write_to(restricted, domain![I: 1..4, J: 2..5]);
    identity_then_shift(a).write_to(nested, domain![I: 0..4]);
}

#[test]
fn identity_shift_double_copy_restricted_copy_and_nested_operators() {
    let mut rng = rng(1501);
    let (ni, nj) = (NI as i64, NJ as i64);
    let dom = sized(&[NI, NJ]);
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let mut outs = [
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
        ];
        let [copy, copy_again, shifted, restricted, nested] = &mut outs;
        copies::compile(&backend.options())?.call(copies::Args {
            a: &a,
            copy,
            copy_again,
            shifted,
            restricted,
            nested,
        })?;
        expect_field("copy", &outs[0], &dom, |p| at(&a, p));
        expect_field("copy_again", &outs[1], &dom, |p| at(&a, p));
        expect_field("shifted", &outs[2], &[0..ni - 1, 0..nj], |p| {
            at(&a, &[p[0] + 1, p[1]])
        });
        expect_field("restricted", &outs[3], &[1..4, 2..5], |p| at(&a, p));
        expect_field("nested", &outs[4], &[0..ni - 1, 0..nj], |p| {
            2.0 * at(&a, &[p[0] + 1, p[1]])
        });
        Ok(())
    });
}

/// Inputs and outputs whose domains start at non-zero indices (GT4Py
/// `test_{in,out}_field_arg_with_non_zero_domain_start`): indices are absolute.
#[program]
fn copy_shifted(a: &Field<(I, J), f64>, out: &mut Field<(I, J), f64>, i_start: i32, i_end: i32) {
    shift_by_one(a).write_to(out, domain![I: i_start..i_end]);
}

#[test]
fn non_zero_domain_starts() {
    let mut rng = rng(1502);
    let nj = NJ as i64;
    let a: Field<(I, J), f64> = random_field(&mut rng, &[2..9, 0..nj]);
    let out_dom = [3..7, 0..nj];
    for_each_backend(|backend| {
        let mut out = poisoned(&out_dom);
        copy_shifted::compile(&backend.options())?.call(copy_shifted::Args {
            a: &a,
            out: &mut out,
            i_start: 4,
            i_end: 7,
        })?;
        expect_field("out", &out, &[4..7, 0..nj], |p| at(&a, &[p[0] + 1, p[1]]));
        Ok(())
    });
}

/// A call reads the field it writes elementwise (an in-place update), and a later call reads
/// what an earlier one wrote: calls run in order.
#[field_operator]
fn relax(state: Field<(I, J), f64>, forcing: Field<(I, J), f64>) -> Field<(I, J), f64> {
    state * 0.5 + forcing
}
#[program]
fn update_in_place(
    state: &mut Field<(I, J), f64>,
    forcing: &Field<(I, J), f64>,
    shifted: &mut Field<(I, J), f64>,
) {
    relax(state, forcing).write_to(state, domain![J: 1..6]);
    shift_by_one(state).write_to(shifted, domain![I: 0..4]);
}

#[test]
fn in_place_update_and_calls_in_order() {
    let mut rng = rng(1503);
    let (ni, nj) = (NI as i64, NJ as i64);
    let dom = sized(&[NI, NJ]);
    let initial: Field<(I, J), f64> = random_field(&mut rng, &dom);
    let forcing: Field<(I, J), f64> = random_field(&mut rng, &dom);
    let updated = |p: &[i64]| {
        if (1..6).contains(&p[1]) {
            at(&initial, p) * 0.5 + at(&forcing, p)
        } else {
            at(&initial, p)
        }
    };
    for_each_backend(|backend| {
        let mut state = initial.clone();
        let mut shifted = poisoned(&dom);
        update_in_place::compile(&backend.options())?.call(update_in_place::Args {
            state: &mut state,
            forcing: &forcing,
            shifted: &mut shifted,
        })?;
        for p in points(&dom) {
            assert!(close_to(at(&state, &p), updated(&p)), "state at {p:?}");
        }
        expect_field("shifted", &shifted, &[0..ni - 1, 0..nj], |p| {
            updated(&[p[0] + 1, p[1]])
        });
        Ok(())
    });
}

#[test]
fn wrong_sizes_are_errors() {
    let mut rng = rng(1504);
    let (ni, nj) = (NI as i64, NJ as i64);
    let a: Field<(I, J), f64> = random_field(&mut rng, &sized(&[NI, NJ]));
    for_each_backend(|backend| {
        let prog = copy_shifted::compile(&backend.options())?;
        // The output does not hold the domain.
        let mut small: Field<(I, J), f64> = poisoned(&[0..3, 0..nj]);
        expect_error(
            prog.call(copy_shifted::Args {
                a: &a,
                out: &mut small,
                i_start: 0,
                i_end: 4,
            }),
            &["copy_shifted", "`out`", "0..3"],
        );
        assert!(
            points(&small.domain())
                .iter()
                .all(|p| at(&small, p).is_nan()),
            "a failed call wrote to `out`"
        );
        // The input is too small for the shifted read at I = 4.
        let mut out = poisoned(&sized(&[NI, NJ]));
        expect_error(
            prog.call(copy_shifted::Args {
                a: &a,
                out: &mut out,
                i_start: 0,
                i_end: ni as i32,
            }),
            &["copy_shifted", "I", "5"],
        );
        // A field of the wrong rank cannot be built at all.
        let bad: Result<Field<(I, J), f64>, Error> =
            Field::from_array_zero_origin(ndarray::ArrayD::zeros(vec![NI]));
        expect_error(bad, &["2 dimensions"]);
        Ok(())
    });
}

/// Column-major (Fortran ICON) buffers: the backends follow each field's strides.
#[test]
fn first_contiguous_layout() {
    let mut rng = rng(1505);
    let (ni, nj) = (NI as i64, NJ as i64);
    let dom = [-1..ni + 1, 0..nj];
    let a: Field<(I, J), f64> = Field::from_fn(&dom, Layout::FirstContiguous, |_| {
        <f64 as TestScalar>::random(&mut rng)
    })
    .unwrap();
    assert_eq!(a.strides()[0], 1);
    for_each_backend(|backend| {
        let mut out: Field<(I, J), f64> = Field::filled(&dom, f64::NAN, Layout::FirstContiguous)?;
        copy_shifted::compile(&backend.options())?.call(copy_shifted::Args {
            a: &a,
            out: &mut out,
            i_start: -1,
            i_end: 4,
        })?;
        expect_field("out", &out, &[-1..4, 0..nj], |p| at(&a, &[p[0] + 1, p[1]]));
        Ok(())
    });
}

/// Several calls write one output over different domains (ICON writes the top level with a
/// second call), and a later call overwrites part of an earlier one.
#[field_operator]
fn top_level(a: Field<(I, J), f64>) -> Field<(I, J), f64> {
    a * -3.0
}
#[program]
fn two_regions(a: &Field<(I, J), f64>, out: &mut Field<(I, J), f64>, nj: i32) {
    identity(a).write_to(out, domain![J: 0..nj - 1]);
    top_level(a).write_to(out, domain![J: nj - 1..nj]);
    shift_by_one(a).write_to(out, domain![I: 0..2, J: 1..3]);
}

#[test]
fn calls_write_one_output_over_different_domains() {
    let mut rng = rng(1506);
    let (ni, nj) = (NI as i64, NJ as i64);
    let dom = sized(&[NI, NJ]);
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let mut out = poisoned(&dom);
        two_regions::compile(&backend.options())?.call(two_regions::Args {
            a: &a,
            out: &mut out,
            nj: NJ as i32,
        })?;
        expect_field("out", &out, &[0..ni, 0..nj], |p| {
            if p[0] < 2 && (1..3).contains(&p[1]) {
                at(&a, &[p[0] + 1, p[1]])
            } else if p[1] == nj - 1 {
                -3.0 * at(&a, p)
            } else {
                at(&a, p)
            }
        });
        Ok(())
    });
}
