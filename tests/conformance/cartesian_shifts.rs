//! GT4Py `test_cartesian_shifts.py`: `a(I + 1)`, a shift of an expression, and dynamic shifts
//! (`as_offset`) compared with static ones; inputs are allocated extended (halo'd fields
//! starting at -1), since nothing is padded implicitly.

use super::common::*;

#[field_operator]
fn shift_by_one(a: Field<(I, J, K), f64>) -> Field<(I, J, K), f64> {
    a.at(I + 1)
}
#[field_operator]
fn shift_of_expression(
    a: Field<(I, J, K), f64>,
    b: Field<(I, J, K), f64>,
) -> Field<(I, J, K), f64> {
    (a + b.at(I + 1)).at(I + 1)
}
#[field_operator]
fn centred(a: Field<(I, J, K), f64>) -> Field<(I, J, K), f64> {
    a.at(I - 1) + a.at(I + 1) - a.at((J + 1, K - 2))
}

#[program]
fn shifts(
    a: &Field<(I, J, K), f64>,
    b: &Field<(I, J, K), f64>,
    halo: &Field<(I, J, K), f64>,
    plus_one: &mut Field<(I, J, K), f64>,
    of_expression: &mut Field<(I, J, K), f64>,
    around: &mut Field<(I, J, K), f64>,
) {
    shift_by_one(a).write_to(plus_one);
    shift_of_expression(a, b).write_to(of_expression);
    centred(halo).write_to(around, domain![J: 0..6, K: 2..9]);
}

#[test]
fn static_shifts_of_fields_and_expressions() {
    let mut rng = rng(301);
    let out_dom = sized(&[NI, NJ, NK]);
    let (ni, nj, nk) = (NI as i64, NJ as i64, NK as i64);
    let a: Field<(I, J, K), f64> = random_field(&mut rng, &[0..ni + 1, 0..nj, 0..nk]);
    let b: Field<(I, J, K), f64> = random_field(&mut rng, &[0..ni + 2, 0..nj, 0..nk]);
    // A halo'd field: I covers -1..NI+1.
    let halo: Field<(I, J, K), f64> = random_field(&mut rng, &[-1..ni + 1, 0..nj, 0..nk]);
    for_each_backend(|backend| {
        let (mut plus_one, mut of_expression, mut around) =
            (poisoned(&out_dom), poisoned(&out_dom), poisoned(&out_dom));
        let prog = shifts::compile(&backend.options())?;
        prog.call(shifts::Args {
            a: &a,
            b: &b,
            halo: &halo,
            plus_one: &mut plus_one,
            of_expression: &mut of_expression,
            around: &mut around,
        })?;
        expect_field("plus_one", &plus_one, &out_dom, |p| {
            at(&a, &[p[0] + 1, p[1], p[2]])
        });
        expect_field("of_expression", &of_expression, &out_dom, |p| {
            at(&a, &[p[0] + 1, p[1], p[2]]) + at(&b, &[p[0] + 2, p[1], p[2]])
        });
        expect_field("around", &around, &[0..ni, 0..nj - 1, 2..nk], |p| {
            at(&halo, &[p[0] - 1, p[1], p[2]]) + at(&halo, &[p[0] + 1, p[1], p[2]])
                - at(&halo, &[p[0], p[1] + 1, p[2] - 2])
        });
        Ok(())
    });
}

#[field_operator]
fn dynamic_shifts(
    a: Field<(I, J, K), f64>,
    i_off: Field<(I, J, K), i32>,
    k_off: Field<(I, J, K), i32>,
) -> (Field<(I, J, K), f64>, Field<(I, J, K), f64>) {
    (a.at(I + i_off), a.at(K - k_off))
}
#[field_operator]
fn static_equivalent(a: Field<(I, J, K), f64>) -> (Field<(I, J, K), f64>, Field<(I, J, K), f64>) {
    (a.at(I + 1), a.at(K - 2))
}

#[program]
fn dynamic_prog(
    a: &Field<(I, J, K), f64>,
    i_off: &Field<(I, J, K), i32>,
    k_off: &Field<(I, J, K), i32>,
    along_i: &mut Field<(I, J, K), f64>,
    along_k: &mut Field<(I, J, K), f64>,
) {
    dynamic_shifts(a, i_off, k_off).write_to((along_i, along_k), domain![K: 2..9]);
}
#[program]
fn static_prog(
    a: &Field<(I, J, K), f64>,
    along_i: &mut Field<(I, J, K), f64>,
    along_k: &mut Field<(I, J, K), f64>,
) {
    static_equivalent(a).write_to((along_i, along_k), domain![K: 2..9]);
}

#[test]
fn dynamic_shifts_match_the_loop_and_the_static_shift() {
    let mut rng = rng(302);
    let (ni, nj, nk) = (NI as i64, NJ as i64, NK as i64);
    let out_dom = sized(&[NI, NJ, NK]);
    let written = [0..ni, 0..nj, 2..nk];
    let a: Field<(I, J, K), f64> = random_field(&mut rng, &[-1..ni + 2, 0..nj, 0..nk]);
    // Offsets within the halo: I by -1..=2, K by 0..=2. The offset fields cover the written
    // levels only.
    let i_off = random_int_field(&mut rng, &written, -1..3);
    let k_off = random_int_field(&mut rng, &written, 0..3);
    let ones = Field::from_fn(&written, Layout::default(), |_| 1).unwrap();
    let twos = Field::from_fn(&written, Layout::default(), |_| 2).unwrap();
    for_each_backend(|backend| {
        let (mut along_i, mut along_k) = (poisoned(&out_dom), poisoned(&out_dom));
        let prog = dynamic_prog::compile(&backend.options())?;
        prog.call(dynamic_prog::Args {
            a: &a,
            i_off: &i_off,
            k_off: &k_off,
            along_i: &mut along_i,
            along_k: &mut along_k,
        })?;
        expect_field("along_i", &along_i, &written, |p| {
            at(&a, &[p[0] + at(&i_off, p) as i64, p[1], p[2]])
        });
        expect_field("along_k", &along_k, &written, |p| {
            at(&a, &[p[0], p[1], p[2] - at(&k_off, p) as i64])
        });

        // Constant offset fields give exactly the static shifts.
        let (mut dyn_i, mut dyn_k) = (poisoned(&out_dom), poisoned(&out_dom));
        prog.call(dynamic_prog::Args {
            a: &a,
            i_off: &ones,
            k_off: &twos,
            along_i: &mut dyn_i,
            along_k: &mut dyn_k,
        })?;
        let (mut stat_i, mut stat_k) = (poisoned(&out_dom), poisoned(&out_dom));
        static_prog::compile(&backend.options())?.call(static_prog::Args {
            a: &a,
            along_i: &mut stat_i,
            along_k: &mut stat_k,
        })?;
        expect_field("static I", &stat_i, &written, |p| at(&dyn_i, p));
        expect_field("static K", &stat_k, &written, |p| at(&dyn_k, p));
        Ok(())
    });
}

/// Offsets that would read outside the shifted field only at points the call does not write
/// (K 0..2 here) are fine: such a read is undefined, an error only where it is written.
#[test]
fn dynamic_shift_reads_outside_only_where_nothing_is_written() {
    let mut rng = rng(303);
    let (ni, nj, nk) = (NI as i64, NJ as i64, NK as i64);
    let dom = sized(&[NI, NJ, NK]);
    let a: Field<(I, J, K), f64> = random_field(&mut rng, &[-1..ni + 2, 0..nj, 0..nk]);
    let zeros = Field::from_fn(&dom, Layout::default(), |_| 0).unwrap();
    let twos = Field::from_fn(&dom, Layout::default(), |_| 2).unwrap();
    for_each_backend(|backend| {
        let (mut along_i, mut along_k) = (poisoned(&dom), poisoned(&dom));
        dynamic_prog::compile(&backend.options())?.call(dynamic_prog::Args {
            a: &a,
            i_off: &zeros,
            k_off: &twos,
            along_i: &mut along_i,
            along_k: &mut along_k,
        })?;
        expect_field("along_k", &along_k, &[0..ni, 0..nj, 2..nk], |p| {
            at(&a, &[p[0], p[1], p[2] - 2])
        });
        Ok(())
    });
}
