//! The implicit vertical solver for w (ICON4Py `atmosphere/dycore/stencils/
//! solve_tridiagonal_matrix_for_w_forward_sweep.py` and `…_back_substitution.py`).

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, K};

/// Thomas forward sweep with the carry `(c', d')` of the level above; `(0, 0)` at the top is the
/// boundary condition for the upper element and for w at the model top.
#[scan_operator(axis = K, forward = true, init = (0.0, 0.0))]
pub fn tridiagonal_forward_sweep_for_w(
    state_kminus1: (f64, f64),
    a: f64,
    b: f64,
    c: f64,
    d: f64,
) -> (f64, f64) {
    let c_kminus1 = state_kminus1.0;
    let d_kminus1 = state_kminus1.1;
    // Normalises the diagonal element to 1.
    let normalization = 1.0 / (b + a * c_kminus1);
    let c_new = (0.0 - c) * normalization;
    let d_new = (d - a * d_kminus1) * normalization;
    (c_new, d_new)
}

/// Formerly `mo_solve_nonhydro_stencil_52`.
#[field_operator]
pub fn _solve_tridiagonal_matrix_for_w_forward_sweep(
    vwind_impl_wgt: Field<Cell, f64>,
    theta_v_ic: Field<(Cell, K), f64>,
    ddqz_z_half: Field<(Cell, K), f64>,
    z_alpha: Field<(Cell, K), f64>,
    z_beta: Field<(Cell, K), f64>,
    z_w_expl: Field<(Cell, K), f64>,
    z_exner_expl: Field<(Cell, K), f64>,
    dtime: f64,
    cpd: f64,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    let z_gamma = dtime * cpd * vwind_impl_wgt * theta_v_ic / ddqz_z_half;
    let z_a = (0.0 - z_gamma) * z_beta.at(K - 1) * z_alpha.at(K - 1);
    let z_c = (0.0 - z_gamma) * z_beta * z_alpha.at(K + 1);
    let z_b = 1.0 + z_gamma * z_alpha * (z_beta.at(K - 1) + z_beta);
    let w_prep = z_w_expl - z_gamma * (z_exner_expl.at(K - 1) - z_exner_expl);
    tridiagonal_forward_sweep_for_w(z_a, z_b, z_c, w_prep)
}

#[program]
pub fn solve_tridiagonal_matrix_for_w_forward_sweep(
    vwind_impl_wgt: &Field<Cell, f64>,
    theta_v_ic: &Field<(Cell, K), f64>,
    ddqz_z_half: &Field<(Cell, K), f64>,
    z_alpha: &Field<(Cell, K), f64>,
    z_beta: &Field<(Cell, K), f64>,
    z_w_expl: &Field<(Cell, K), f64>,
    z_exner_expl: &Field<(Cell, K), f64>,
    z_q: &mut Field<(Cell, K), f64>,
    w: &mut Field<(Cell, K), f64>,
    dtime: f64,
    cpd: f64,
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

/// Formerly `mo_solve_nonhydro_stencil_53_scan`: `w[k] + w_new[k+1]·z_q[k]`, bottom up.
#[scan_operator(axis = K, forward = false, init = 0.0)]
pub fn _solve_tridiagonal_matrix_for_w_back_substitution_scan(
    w_state: f64,
    z_q: f64,
    w: f64,
) -> f64 {
    w + w_state * z_q
}

#[program]
pub fn solve_tridiagonal_matrix_for_w_back_substitution(
    z_q: &Field<(Cell, K), f64>,
    w: &mut Field<(Cell, K), f64>,
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
