//! GT4Py `test_icon_like_scan.py`: ICON's solve_nonhydro stencil 52 as a scan with a tuple
//! carry holding a "first level" flag, written from level 1 on (GT4Py's sliced `out[:, 1:]` is a
//! domain here), with the in/out fields read by the call that writes them. GT4Py's NamedTuple
//! carry is a tuple here (gt4rs has no named collections).

use super::common::*;

#[scan_operator(axis = K, forward = true, init = (0.0, 0.0, true))]
fn stencil_52_like(
    state: (f64, f64, bool),
    w: f64,
    z_q: f64,
    z_a: f64,
    z_b: f64,
    z_c: f64,
) -> (f64, f64, bool) {
    let z_g = z_b + z_a * state.0;
    let z_q_new = (0.0 - z_c) / z_g;
    let w_new = (w - z_a * state.1) / z_g;
    if state.2 {
        (z_q, w, false)
    } else {
        (z_q_new, w_new, false)
    }
}

#[field_operator]
fn solve_52_like(
    w: Field<(Cell, K), f64>,
    z_q: Field<(Cell, K), f64>,
    z_a: Field<(Cell, K), f64>,
    z_b: Field<(Cell, K), f64>,
    z_c: Field<(Cell, K), f64>,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    let (z_q_res, w_res, _) = stencil_52_like(w, z_q, z_a, z_b, z_c);
    (z_q_res, w_res)
}

/// The same scan with a dummy third output (the flag, converted), as GT4Py's `_tup` variant.
#[field_operator]
fn solve_52_like_with_flag(
    w: Field<(Cell, K), f64>,
    z_q: Field<(Cell, K), f64>,
    z_a: Field<(Cell, K), f64>,
    z_b: Field<(Cell, K), f64>,
    z_c: Field<(Cell, K), f64>,
) -> (
    Field<(Cell, K), f64>,
    (Field<(Cell, K), f64>, Field<(Cell, K), i32>),
) {
    let (z_q_res, w_res, first) = stencil_52_like(w, z_q, z_a, z_b, z_c);
    (z_q_res, (w_res, select(first, 1, 0)))
}

#[program]
fn solve_nonhydro_52_like(
    z_alpha: &Field<(Cell, K), f64>,
    z_beta: &Field<(Cell, K), f64>,
    z_q: &mut Field<(Cell, K), f64>,
    w: &mut Field<(Cell, K), f64>,
    nlev: i32,
) {
    solve_52_like(w, z_q, z_alpha, z_beta, z_alpha.at(K + 1))
        .write_to((z_q, w), domain![K: 1..nlev]);
}

#[program]
fn solve_nonhydro_52_like_with_flag(
    z_alpha: &Field<(Cell, K), f64>,
    z_beta: &Field<(Cell, K), f64>,
    w_in: &Field<(Cell, K), f64>,
    z_q_in: &Field<(Cell, K), f64>,
    z_q: &mut Field<(Cell, K), f64>,
    w: &mut Field<(Cell, K), f64>,
    flag: &mut Field<(Cell, K), i32>,
    nlev: i32,
) {
    solve_52_like_with_flag(w_in, z_q_in, z_alpha, z_beta, z_alpha.at(K + 1))
        .write_to((z_q, (w, flag)), domain![K: 1..nlev]);
}

/// The reference: the Fortran loop of stencil 52 over one column, from level 1.
fn reference(
    z_alpha: &Field<(Cell, K), f64>,
    z_beta: &Field<(Cell, K), f64>,
    w: &Field<(Cell, K), f64>,
    z_q: &Field<(Cell, K), f64>,
    cell: i64,
    nlev: i64,
) -> (Vec<f64>, Vec<f64>) {
    let mut zq: Vec<f64> = (0..nlev).map(|k| at(z_q, &[cell, k])).collect();
    let mut ww: Vec<f64> = (0..nlev).map(|k| at(w, &[cell, k])).collect();
    for k in 2..nlev {
        let z_a = at(z_alpha, &[cell, k]);
        let z_g = at(z_beta, &[cell, k]) + z_a * zq[k as usize - 1];
        zq[k as usize] = -at(z_alpha, &[cell, k + 1]) / z_g;
        ww[k as usize] = (ww[k as usize] - z_a * ww[k as usize - 1]) / z_g;
    }
    (zq, ww)
}

#[test]
fn stencil_52_like_scan_from_level_one() {
    let mut rng = rng(1901);
    let (n_cells, nlev) = (6usize, NK as i64);
    let dom = sized(&[n_cells, NK]);
    // z_alpha has one level more (it is read at K + 1), like ICON's half-level fields.
    let z_alpha: Field<(Cell, K), f64> = random_field(&mut rng, &sized(&[n_cells, NK + 1]));
    let z_beta = Field::from_fn(&dom, Layout::default(), |_| 3.0 + rng_value(&mut rng)).unwrap();
    let w0: Field<(Cell, K), f64> = random_field(&mut rng, &dom);
    let z_q0: Field<(Cell, K), f64> = random_field(&mut rng, &dom);
    let columns: Vec<(Vec<f64>, Vec<f64>)> = (0..n_cells as i64)
        .map(|c| reference(&z_alpha, &z_beta, &w0, &z_q0, c, nlev))
        .collect();
    for_each_backend(|backend| {
        let (mut z_q, mut w) = (z_q0.clone(), w0.clone());
        solve_nonhydro_52_like::compile(&backend.options())?.call(
            solve_nonhydro_52_like::Args {
                z_alpha: &z_alpha,
                z_beta: &z_beta,
                z_q: &mut z_q,
                w: &mut w,
                nlev: nlev as i32,
            },
        )?;
        for p in points(&dom) {
            let (zq, ww) = &columns[p[0] as usize];
            assert!(
                close_to(at(&z_q, &p), zq[p[1] as usize]),
                "z_q at {p:?}: {} vs {}",
                at(&z_q, &p),
                zq[p[1] as usize]
            );
            assert!(close_to(at(&w, &p), ww[p[1] as usize]), "w at {p:?}");
        }

        let (mut z_q, mut w, mut flag) = (poisoned(&dom), poisoned(&dom), poisoned(&dom));
        solve_nonhydro_52_like_with_flag::compile(&backend.options())?.call(
            solve_nonhydro_52_like_with_flag::Args {
                z_alpha: &z_alpha,
                z_beta: &z_beta,
                w_in: &w0,
                z_q_in: &z_q0,
                z_q: &mut z_q,
                w: &mut w,
                flag: &mut flag,
                nlev: nlev as i32,
            },
        )?;
        let written = [0..n_cells as i64, 1..nlev];
        expect_field("z_q", &z_q, &written, |p| {
            columns[p[0] as usize].0[p[1] as usize]
        });
        expect_field("w", &w, &written, |p| {
            columns[p[0] as usize].1[p[1] as usize]
        });
        expect_field("flag", &flag, &written, |_| 0);
        Ok(())
    });
}

fn rng_value(rng: &mut TestRng) -> f64 {
    <f64 as TestScalar>::random(rng).abs()
}
