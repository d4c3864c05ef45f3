//! GT4Py `test_broadcast.py`: broadcast of a field and of a scalar, two broadcasts added, a
//! broadcast then shifted. 0-d fields (`Field[[], int32]`) have no gt4rs spelling: a scalar
//! parameter is the closest equivalent and is covered by the scalar broadcast.

use super::common::*;

#[field_operator]
fn broadcasts(
    a: Field<I, f64>,
    b: Field<J, f64>,
    c: Field<K, f64>,
    s: f64,
) -> (
    Field<(I, J), f64>,
    Field<(I, J), f64>,
    Field<(I, J), f64>,
    Field<(I, K), f64>,
) {
    let field = broadcast(a, (I, J));
    let scalar = broadcast(s, (I, J));
    let sum = broadcast(a, (I, J)) + broadcast(b, (I, J));
    let shifted = broadcast(c, (I, K)).at(K + 1);
    (field, scalar, sum, shifted)
}

#[program]
fn broadcast_prog(
    a: &Field<I, f64>,
    b: &Field<J, f64>,
    c: &Field<K, f64>,
    s: f64,
    field: &mut Field<(I, J), f64>,
    scalar: &mut Field<(I, J), f64>,
    sum: &mut Field<(I, J), f64>,
    shifted: &mut Field<(I, K), f64>,
    nk: i32,
) {
    broadcasts(a, b, c, s).write_to(
        (field, scalar, sum, shifted),
        (
            domain![],
            domain![I: 1..4],
            domain![J: 2..7],
            domain![K: 0..nk - 1],
        ),
    );
}

#[test]
fn broadcast_fields_and_scalars() {
    let mut rng = rng(401);
    let (ni, nj, nk) = (NI as i64, NJ as i64, NK as i64);
    let a: Field<I, f64> = random_field(&mut rng, &sized(&[NI]));
    let b: Field<J, f64> = random_field(&mut rng, &sized(&[NJ]));
    let c: Field<K, f64> = random_field(&mut rng, &sized(&[NK]));
    let s = 0.625;
    let ij = sized(&[NI, NJ]);
    let ik = sized(&[NI, NK]);
    for_each_backend(|backend| {
        let (mut field, mut scalar, mut sum) = (poisoned(&ij), poisoned(&ij), poisoned(&ij));
        let mut shifted = poisoned(&ik);
        let prog = broadcast_prog::compile(&backend.options())?;
        prog.call(broadcast_prog::Args {
            a: &a,
            b: &b,
            c: &c,
            s,
            field: &mut field,
            scalar: &mut scalar,
            sum: &mut sum,
            shifted: &mut shifted,
            nk: NK as i32,
        })?;
        expect_field("field", &field, &ij, |p| at(&a, &[p[0]]));
        expect_field("scalar", &scalar, &[1..4, 0..nj], |_| s);
        expect_field("sum", &sum, &[0..ni, 2..nj], |p| {
            at(&a, &[p[0]]) + at(&b, &[p[1]])
        });
        expect_field("shifted", &shifted, &[0..ni, 0..nk - 1], |p| {
            at(&c, &[p[1] + 1])
        });
        Ok(())
    });
}
