//! GT4Py `test_basic.py`: copy through a tuple; `1.0 / 0.0` and `0.0 / 0.0` through `broadcast`.

use super::common::*;

#[field_operator]
fn copy_through_tuple(a: Field<(I, J, K), f64>) -> Field<(I, J, K), f64> {
    let t = (a, 1.0);
    t.0
}

#[program]
fn copy_prog(a: &Field<(I, J, K), f64>, out: &mut Field<(I, J, K), f64>) {
    copy_through_tuple(a).write_to(out);
}

#[test]
fn copy_through_a_tuple() {
    let mut rng = rng(101);
    let domain = sized(&[NI, NJ, NK]);
    let a: Field<(I, J, K), f64> = random_field(&mut rng, &domain);
    for_each_backend(|backend| {
        let mut out = poisoned(&domain);
        let prog = copy_prog::compile(&backend.options())?;
        prog.call(copy_prog::Args {
            a: &a,
            out: &mut out,
        })?;
        expect_field("out", &out, &domain, |p| at(&a, p));
        Ok(())
    });
}

#[field_operator]
fn divide_by_zero(one: f64, zero: f64) -> (Field<(I, J), f64>, Field<(I, J), f64>) {
    (
        broadcast(one / zero, (I, J)),
        broadcast(zero / zero, (I, J)),
    )
}

#[program]
fn division_prog(
    one: f64,
    zero: f64,
    inf_out: &mut Field<(I, J), f64>,
    nan_out: &mut Field<(I, J), f64>,
) {
    divide_by_zero(one, zero).write_to((inf_out, nan_out));
}

/// Also the literal form `1.0 / 0.0` inside the operator (GT4Py writes literals).
#[field_operator]
fn literal_inf() -> Field<(I, J), f64> {
    broadcast(1.0 / 0.0, (I, J))
}

#[program]
fn literal_inf_prog(out: &mut Field<(I, J), f64>) {
    literal_inf().write_to(out, domain![I: 1..4]);
}

#[test]
fn division_by_zero_gives_inf_and_nan() {
    let domain = sized(&[NI, NJ]);
    for_each_backend(|backend| {
        let mut inf_out = poisoned(&domain);
        // NaN is the expected value here, so the poison of this output is a finite number.
        let mut nan_out: Field<(I, J), f64> = Field::filled(&domain, 7.5, Layout::default())?;
        let prog = division_prog::compile(&backend.options())?;
        prog.call(division_prog::Args {
            one: 1.0,
            zero: 0.0,
            inf_out: &mut inf_out,
            nan_out: &mut nan_out,
        })?;
        expect_field("inf", &inf_out, &domain, |_| f64::INFINITY);
        for p in points(&domain) {
            assert!(at(&nan_out, &p).is_nan(), "0/0 at {p:?}");
        }
        let mut lit = poisoned(&domain);
        literal_inf_prog::compile(&backend.options())?
            .call(literal_inf_prog::Args { out: &mut lit })?;
        expect_field("literal inf", &lit, &[1..4, 0..NJ as i64], |_| {
            f64::INFINITY
        });
        Ok(())
    });
}
