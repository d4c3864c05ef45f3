//! The Cartesian classics in the DSL (always built, see `icon/dsl/README.md`): lap and laplap
//! (GT4Py `test_laplacian.py`), hdiff with flux limiter and vadv (GT4Py
//! `stencil_definitions.py`), with the operation order of [`super::reference`].

use gt4rs::prelude::*;

use super::dims::{I, J, K};

#[field_operator]
pub fn _lap(f: Field<(I, J), f64>) -> Field<(I, J), f64> {
    -4.0 * f + f.at(I + 1) + f.at(J + 1) + f.at(I - 1) + f.at(J - 1)
}

#[field_operator]
pub fn _laplap(f: Field<(I, J), f64>) -> Field<(I, J), f64> {
    _lap(_lap(f))
}

/// `out[1:-1, 1:-1] = lap(f)` for an `ni × nj` field.
#[program]
pub fn lap(f: &Field<(I, J), f64>, out: &mut Field<(I, J), f64>, ni: i32, nj: i32) {
    _lap(f).write_to(out, domain![I: 1..ni - 1, J: 1..nj - 1]);
}

/// `out[2:-2, 2:-2] = lap(lap(f))` for an `ni × nj` field.
#[program]
pub fn laplap(f: &Field<(I, J), f64>, out: &mut Field<(I, J), f64>, ni: i32, nj: i32) {
    _laplap(f).write_to(out, domain![I: 2..ni - 2, J: 2..nj - 2]);
}

#[field_operator]
pub fn _hdiff_lap(f: Field<(I, J, K), f64>) -> Field<(I, J, K), f64> {
    4.0 * f - (f.at(I + 1) + f.at(I - 1) + f.at(J + 1) + f.at(J - 1))
}

/// Horizontal diffusion with flux limiter: a flux that runs down the gradient of `in_field` is
/// set to zero.
#[field_operator]
pub fn _hdiff(
    in_field: Field<(I, J, K), f64>,
    coeff: Field<(I, J, K), f64>,
) -> Field<(I, J, K), f64> {
    let lap_field = _hdiff_lap(in_field);
    let res_x = lap_field.at(I + 1) - lap_field;
    let flx_field = select(res_x * (in_field.at(I + 1) - in_field) > 0.0, 0.0, res_x);
    let res_y = lap_field.at(J + 1) - lap_field;
    let fly_field = select(res_y * (in_field.at(J + 1) - in_field) > 0.0, 0.0, res_y);
    in_field - coeff * (flx_field - flx_field.at(I - 1) + fly_field - fly_field.at(J - 1))
}

/// `out_field[2:-2, 2:-2, :]`: the inputs carry a halo of 2 in I and J.
#[program]
pub fn hdiff(
    in_field: &Field<(I, J, K), f64>,
    coeff: &Field<(I, J, K), f64>,
    out_field: &mut Field<(I, J, K), f64>,
    ni: i32,
    nj: i32,
    nk: i32,
) {
    _hdiff(in_field, coeff).write_to(out_field, domain![I: 2..ni - 2, J: 2..nj - 2, K: 0..nk]);
}

/// Thomas forward sweep; `acol` is 0 on the first level and `ccol` on the last, so the carry
/// `(0, 0)` reproduces the special first and last levels exactly.
#[scan_operator(axis = K, forward = true, init = (0.0, 0.0))]
pub fn _vadv_forward(state: (f64, f64), acol: f64, bcol: f64, ccol: f64, dcol: f64) -> (f64, f64) {
    let divided = 1.0 / (bcol - state.0 * acol);
    (ccol * divided, (dcol - state.1 * acol) * divided)
}

#[scan_operator(axis = K, forward = false, init = 0.0)]
pub fn _vadv_backward(datacol_above: f64, ccol: f64, dcol: f64) -> f64 {
    dcol - ccol * datacol_above
}

/// The tridiagonal coefficients and right-hand side of COSMO vertical advection
/// (`BET_M = BET_P = 0.5`) over K `[0, nk)`, then the Thomas forward sweep.
#[field_operator]
pub fn _vadv_forward_sweep(
    utens_stage: Field<(I, J, K), f64>,
    u_stage: Field<(I, J, K), f64>,
    wcon: Field<(I, J, K), f64>,
    u_pos: Field<(I, J, K), f64>,
    utens: Field<(I, J, K), f64>,
    dtr_stage: f64,
    nk: i32,
) -> (Field<(I, J, K), f64>, Field<(I, J, K), f64>) {
    let gav = -0.25 * (wcon.at(I + 1) + wcon);
    let gcv = 0.25 * (wcon.at(I + 1).at(K + 1) + wcon.at(K + 1));
    let as_ = concat_where(K > 0, gav * 0.5, 0.0);
    let cs = concat_where(K < nk - 1, gcv * 0.5, 0.0);
    let acol = concat_where(K > 0, gav * 0.5, 0.0);
    let ccol = concat_where(K < nk - 1, gcv * 0.5, 0.0);
    let bcol = dtr_stage - acol - ccol;
    let correction_below = concat_where(K > 0, -as_ * (u_stage.at(K - 1) - u_stage), 0.0);
    let correction_above = concat_where(K < nk - 1, cs * (u_stage.at(K + 1) - u_stage), 0.0);
    let correction_term = correction_below - correction_above;
    let dcol = dtr_stage * u_pos + utens + utens_stage + correction_term;
    _vadv_forward(acol, bcol, ccol, dcol)
}

/// The backward sweep and the tendency `dtr_stage·(x − u_pos)`.
#[field_operator]
pub fn _vadv_backward_sweep(
    ccol: Field<(I, J, K), f64>,
    dcol: Field<(I, J, K), f64>,
    u_pos: Field<(I, J, K), f64>,
    dtr_stage: f64,
) -> Field<(I, J, K), f64> {
    let datacol = _vadv_backward(ccol, dcol);
    dtr_stage * (datacol - u_pos)
}

/// Both sweeps in one operator: a scan feeding a scan in the other direction, which the fused
/// backends can only run through a temporary (the embedded backend runs it as is).
#[field_operator]
pub fn _vadv(
    utens_stage: Field<(I, J, K), f64>,
    u_stage: Field<(I, J, K), f64>,
    wcon: Field<(I, J, K), f64>,
    u_pos: Field<(I, J, K), f64>,
    utens: Field<(I, J, K), f64>,
    dtr_stage: f64,
    nk: i32,
) -> Field<(I, J, K), f64> {
    let (ccol, dcol) = _vadv_forward_sweep(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage, nk);
    _vadv_backward_sweep(ccol, dcol, u_pos, dtr_stage)
}

/// COSMO vertical advection; `wcon` has one more point in I than the other fields, and `ccol`,
/// `dcol` are work fields for the forward sweep's results (the fused backends build no
/// temporaries between scans in opposite directions).
#[program]
pub fn vadv(
    utens_stage: &mut Field<(I, J, K), f64>,
    u_stage: &Field<(I, J, K), f64>,
    wcon: &Field<(I, J, K), f64>,
    u_pos: &Field<(I, J, K), f64>,
    utens: &Field<(I, J, K), f64>,
    ccol: &mut Field<(I, J, K), f64>,
    dcol: &mut Field<(I, J, K), f64>,
    dtr_stage: f64,
    ni: i32,
    nj: i32,
    nk: i32,
) {
    _vadv_forward_sweep(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage, nk)
        .write_to((ccol, dcol), domain![I: 0..ni, J: 0..nj, K: 0..nk]);
    _vadv_backward_sweep(ccol, dcol, u_pos, dtr_stage)
        .write_to(utens_stage, domain![I: 0..ni, J: 0..nj, K: 0..nk]);
}
