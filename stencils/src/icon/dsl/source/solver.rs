// The implicit vertical solver for w, written against ICON's `vpfloat`/`wpfloat` with ICON4Py's
// `astype` casts, in ICON4Py's operation order. Included by `solver::double` and
// `solver::mixed`, each of which declares the two aliases first.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, K};

/// Thomas forward sweep with the carry `(c', d')` of the level above; `(0, 0)` at the top is the
/// boundary condition for the upper element and for w at the model top. The carry types are
/// ICON4Py's: its `init` is `(vpfloat, float)` and the sweep returns `c'` in vpfloat and `d'` in
/// wpfloat (ICON4Py's return annotation says `(wpfloat, wpfloat)`, which GT4Py does not check
/// for scans); `float` is f64, which wpfloat always is.
#[scan_operator(axis = K, forward = true, init = (0.0, 0.0))]
pub fn tridiagonal_forward_sweep_for_w(
    state_kminus1: (vpfloat, wpfloat),
    a: vpfloat,
    b: vpfloat,
    c: vpfloat,
    d: wpfloat,
) -> (vpfloat, wpfloat) {
    let c_kminus1 = state_kminus1.0 as vpfloat;
    let d_kminus1 = state_kminus1.1;
    // Normalises the diagonal element to 1.
    let normalization = 1.0 / (b + a * c_kminus1);
    let c_new = (0.0 - c) * normalization;
    let d_new = (d - (a as wpfloat) * d_kminus1) * (normalization as wpfloat);
    (c_new, d_new)
}

/// Formerly `mo_solve_nonhydro_stencil_52`.
#[field_operator]
pub fn _solve_tridiagonal_matrix_for_w_forward_sweep(
    vwind_impl_wgt: Field<Cell, wpfloat>,
    theta_v_ic: Field<(Cell, K), wpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    z_alpha: Field<(Cell, K), vpfloat>,
    z_beta: Field<(Cell, K), vpfloat>,
    z_w_expl: Field<(Cell, K), wpfloat>,
    z_exner_expl: Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
    cpd: wpfloat,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), wpfloat>) {
    let ddqz_z_half_wp = ddqz_z_half as wpfloat;
    let z_gamma_vp = (dtime * cpd * vwind_impl_wgt * theta_v_ic / ddqz_z_half_wp) as vpfloat;
    let z_a = (0.0 - z_gamma_vp) * z_beta.at(K - 1) * z_alpha.at(K - 1);
    let z_c = (0.0 - z_gamma_vp) * z_beta * z_alpha.at(K + 1);
    let z_b = 1.0 + z_gamma_vp * z_alpha * (z_beta.at(K - 1) + z_beta);
    let z_gamma_wp = z_gamma_vp as wpfloat;
    let w_prep = z_w_expl - z_gamma_wp * (z_exner_expl.at(K - 1) - z_exner_expl);
    tridiagonal_forward_sweep_for_w(z_a, z_b, z_c, w_prep)
}

#[program]
pub fn solve_tridiagonal_matrix_for_w_forward_sweep(
    vwind_impl_wgt: &Field<Cell, wpfloat>,
    theta_v_ic: &Field<(Cell, K), wpfloat>,
    ddqz_z_half: &Field<(Cell, K), vpfloat>,
    z_alpha: &Field<(Cell, K), vpfloat>,
    z_beta: &Field<(Cell, K), vpfloat>,
    z_w_expl: &Field<(Cell, K), wpfloat>,
    z_exner_expl: &Field<(Cell, K), wpfloat>,
    z_q: &mut Field<(Cell, K), vpfloat>,
    w: &mut Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
    cpd: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _solve_tridiagonal_matrix_for_w_forward_sweep(
        vwind_impl_wgt,
        theta_v_ic,
        ddqz_z_half,
        z_alpha,
        z_beta,
        z_w_expl,
        z_exner_expl,
        dtime,
        cpd,
    )
    .write_to(
        (z_q, w),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_53_scan`: `w[k] + w_new[k+1]·z_q[k]`, bottom up, in
/// wpfloat.
#[scan_operator(axis = K, forward = false, init = 0.0)]
pub fn _solve_tridiagonal_matrix_for_w_back_substitution_scan(
    w_state: wpfloat,
    z_q: vpfloat,
    w: wpfloat,
) -> wpfloat {
    w + w_state * z_q as wpfloat
}

#[program]
pub fn solve_tridiagonal_matrix_for_w_back_substitution(
    z_q: &Field<(Cell, K), vpfloat>,
    w: &mut Field<(Cell, K), wpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _solve_tridiagonal_matrix_for_w_back_substitution_scan(z_q, w).write_to(
        w,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
