//! GT4Py `test_where.py` (`where` is gt4rs's `select`): a shifted branch, same-size fields,
//! tuples, nested tuples with scalars, promotion, `a != a` and a shifted `select`.

use super::common::*;

#[field_operator]
fn selects(
    mask: Field<(I, J, K), bool>,
    a: Field<(I, J, K), f64>,
    b: Field<(I, J, K), f64>,
    mask_k: Field<K, bool>,
    c: Field<(I, K), f64>,
) -> (
    Field<(I, J, K), f64>,
    Field<(I, J, K), f64>,
    Field<(I, J, K), f64>,
    Field<(I, J, K), f64>,
) {
    let plain = select(mask, a, b);
    let shifted_branch = select(mask, a.at(K - 1), b);
    let promoted = select(mask_k, a, c);
    let never = select(a != a, b, a * 3.0);
    (plain, shifted_branch, promoted, never)
}

#[program]
fn selects_prog(
    mask: &Field<(I, J, K), bool>,
    a: &Field<(I, J, K), f64>,
    b: &Field<(I, J, K), f64>,
    mask_k: &Field<K, bool>,
    c: &Field<(I, K), f64>,
    plain: &mut Field<(I, J, K), f64>,
    shifted_branch: &mut Field<(I, J, K), f64>,
    promoted: &mut Field<(I, J, K), f64>,
    never: &mut Field<(I, J, K), f64>,
) {
    selects(mask, a, b, mask_k, c)
        .write_to((plain, shifted_branch, promoted, never), domain![K: 1..9]);
}

#[test]
fn select_with_shifts_promotion_and_self_comparison() {
    let mut rng = rng(601);
    let (ni, nj, nk) = (NI as i64, NJ as i64, NK as i64);
    let dom = sized(&[NI, NJ, NK]);
    let written = [0..ni, 0..nj, 1..nk];
    let mask: Field<(I, J, K), bool> = random_field(&mut rng, &dom);
    let a: Field<(I, J, K), f64> = random_field(&mut rng, &dom);
    let b: Field<(I, J, K), f64> = random_field(&mut rng, &dom);
    let mask_k: Field<K, bool> = random_field(&mut rng, &sized(&[NK]));
    let c: Field<(I, K), f64> = random_field(&mut rng, &sized(&[NI, NK]));
    for_each_backend(|backend| {
        let mut outs = [
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
        ];
        let [plain, shifted_branch, promoted, never] = &mut outs;
        selects_prog::compile(&backend.options())?.call(selects_prog::Args {
            mask: &mask,
            a: &a,
            b: &b,
            mask_k: &mask_k,
            c: &c,
            plain,
            shifted_branch,
            promoted,
            never,
        })?;
        let m = |p: &[i64]| at(&mask, p);
        expect_field("plain", &outs[0], &written, |p| {
            if m(p) {
                at(&a, p)
            } else {
                at(&b, p)
            }
        });
        expect_field("shifted", &outs[1], &written, |p| {
            if m(p) {
                at(&a, &[p[0], p[1], p[2] - 1])
            } else {
                at(&b, p)
            }
        });
        expect_field("promoted", &outs[2], &written, |p| {
            if at(&mask_k, &[p[2]]) {
                at(&a, p)
            } else {
                at(&c, &[p[0], p[2]])
            }
        });
        expect_field("never", &outs[3], &written, |p| 3.0 * at(&a, p));
        Ok(())
    });
}

/// Tuples, nested tuples with scalars, and a `select` that is shifted afterwards.
#[field_operator]
fn tuple_selects(
    mask: Field<(I, J), bool>,
    a: Field<(I, J), f64>,
    b: Field<(I, J), f64>,
) -> (
    Field<(I, J), f64>,
    (Field<(I, J), f64>, Field<(I, J), f64>),
    Field<(I, J), f64>,
) {
    let (x, (y, z)) = select(mask, (a, (b, 1.0)), (b, (2.0, a)));
    let shifted = select(mask, a, b).at(I + 1);
    (x, (y, z), shifted)
}

#[program]
fn tuple_selects_prog(
    mask: &Field<(I, J), bool>,
    a: &Field<(I, J), f64>,
    b: &Field<(I, J), f64>,
    x: &mut Field<(I, J), f64>,
    y: &mut Field<(I, J), f64>,
    z: &mut Field<(I, J), f64>,
    shifted: &mut Field<(I, J), f64>,
) {
    tuple_selects(mask, a, b).write_to((x, (y, z), shifted), domain![I: 0..4]);
}

#[test]
fn select_on_nested_tuples_with_scalars_and_shifted() {
    let mut rng = rng(602);
    let (ni, nj) = (NI as i64, NJ as i64);
    let dom = sized(&[NI, NJ]);
    let written = [0..ni - 1, 0..nj];
    let mask: Field<(I, J), bool> = random_field(&mut rng, &dom);
    let a: Field<(I, J), f64> = random_field(&mut rng, &dom);
    let b: Field<(I, J), f64> = random_field(&mut rng, &dom);
    for_each_backend(|backend| {
        let (mut x, mut y, mut z, mut shifted) = (
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
            poisoned(&dom),
        );
        tuple_selects_prog::compile(&backend.options())?.call(tuple_selects_prog::Args {
            mask: &mask,
            a: &a,
            b: &b,
            x: &mut x,
            y: &mut y,
            z: &mut z,
            shifted: &mut shifted,
        })?;
        let m = |p: &[i64]| at(&mask, p);
        expect_field(
            "x",
            &x,
            &written,
            |p| if m(p) { at(&a, p) } else { at(&b, p) },
        );
        expect_field("y", &y, &written, |p| if m(p) { at(&b, p) } else { 2.0 });
        expect_field("z", &z, &written, |p| if m(p) { 1.0 } else { at(&a, p) });
        expect_field("shifted", &shifted, &written, |p| {
            let q = [p[0] + 1, p[1]];
            if m(&q) {
                at(&a, &q)
            } else {
                at(&b, &q)
            }
        });
        Ok(())
    });
}

/// A scalar mask, scalar branches over a mask field, and f32 operands.
#[field_operator]
fn scalar_parts(
    flag: bool,
    mask_k: Field<K, bool>,
    a: Field<(I, K), f32>,
) -> (Field<(I, K), f32>, Field<K, f32>) {
    (select(flag, a, -a), select(mask_k, 1.5, -0.5))
}
#[program]
fn scalar_parts_prog(
    flag: bool,
    mask_k: &Field<K, bool>,
    a: &Field<(I, K), f32>,
    chosen: &mut Field<(I, K), f32>,
    levels: &mut Field<K, f32>,
) {
    scalar_parts(flag, mask_k, a).write_to((chosen, levels), (domain![I: 1..5], domain![K: 2..9]));
}

#[test]
fn scalar_masks_and_scalar_branches() {
    let mut rng = rng(603);
    let (ni, nk) = (NI as i64, NK as i64);
    let mask_k: Field<K, bool> = random_field(&mut rng, &sized(&[NK]));
    let a: Field<(I, K), f32> = random_field(&mut rng, &sized(&[NI, NK]));
    for flag in [true, false] {
        for_each_backend(|backend| {
            let mut chosen = poisoned(&sized(&[NI, NK]));
            let mut levels = poisoned(&sized(&[NK]));
            scalar_parts_prog::compile(&backend.options())?.call(scalar_parts_prog::Args {
                flag,
                mask_k: &mask_k,
                a: &a,
                chosen: &mut chosen,
                levels: &mut levels,
            })?;
            expect_field("chosen", &chosen, &[1..ni, 0..nk], |p| {
                if flag {
                    at(&a, p)
                } else {
                    -at(&a, p)
                }
            });
            expect_field("levels", &levels, &[2..nk], |p| {
                if at(&mask_k, p) {
                    1.5
                } else {
                    -0.5
                }
            });
            Ok(())
        });
    }
}
