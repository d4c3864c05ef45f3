// The pieces of ICON4Py's vertically implicit solver for w, ρ, exner and θ_v
// (`atmosphere/dycore/stencils/*.py`, formerly `mo_solve_nonhydro_stencil_39` to `_60`): each
// ICON4Py field operator and its program, written against ICON's `vpfloat`/`wpfloat` with
// ICON4Py's `astype` casts, in ICON4Py's operation order. Included by `implicit_solver::double`
// and `implicit_solver::mixed`, each of which declares the two aliases first.
//
// ICON4Py's `PhysicsConstants` appear as the f64 values ICON4Py computes for them
// (`constants.py`): `cvd_o_rd = (1004.64 − 287.04) / 287.04`.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, Edge, C2E, K};

/// Formerly `mo_solve_nonhydro_stencil_39`: the contravariant correction of w at the half
/// level above a full level, from the edges' values of the two full levels around it (reads
/// level k − 1, so ICON's domain starts at K = 1).
#[field_operator]
pub fn _compute_contravariant_correction_of_w(
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    z_w_concorr_me: Field<(Edge, K), vpfloat>,
    wgtfac_c: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let z_w_concorr_me_offset_1 = z_w_concorr_me.at(K - 1);
    let z_w_concorr_me_wp = z_w_concorr_me as wpfloat;
    let z_w_concorr_me_offset_1_wp = z_w_concorr_me_offset_1 as wpfloat;
    let z_w_concorr_mc_m1_wp = neighbor_sum(e_bln_c_s * z_w_concorr_me_offset_1_wp.at(C2E), C2E);
    let z_w_concorr_mc_m0_wp = neighbor_sum(e_bln_c_s * z_w_concorr_me_wp.at(C2E), C2E);
    let z_w_concorr_mc_m1_vp = z_w_concorr_mc_m1_wp as vpfloat;
    let z_w_concorr_mc_m0_vp = z_w_concorr_mc_m0_wp as vpfloat;
    wgtfac_c * z_w_concorr_mc_m0_vp + (1.0 - wgtfac_c) * z_w_concorr_mc_m1_vp
}

#[program]
pub fn compute_contravariant_correction_of_w(
    e_bln_c_s: &Field<(Cell, C2E), wpfloat>,
    z_w_concorr_me: &Field<(Edge, K), vpfloat>,
    wgtfac_c: &Field<(Cell, K), vpfloat>,
    w_concorr_c: &mut Field<(Cell, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_contravariant_correction_of_w(e_bln_c_s, z_w_concorr_me, wgtfac_c).write_to(
        w_concorr_c,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_40`: the contravariant correction of w at the surface
/// (half level nlev), extrapolated quadratically from the three full levels above it.
#[field_operator]
pub fn _compute_contravariant_correction_of_w_for_lower_boundary(
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    z_w_concorr_me: Field<(Edge, K), vpfloat>,
    wgtfacq_c: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let z_w_concorr_me_wp = z_w_concorr_me as wpfloat;
    let z_w_concorr_me_offset_1 = z_w_concorr_me_wp.at(K - 1);
    let z_w_concorr_me_offset_2 = z_w_concorr_me_wp.at(K - 2);
    let z_w_concorr_me_offset_3 = z_w_concorr_me_wp.at(K - 3);
    let z_w_concorr_mc_m1 = neighbor_sum(e_bln_c_s * z_w_concorr_me_offset_1.at(C2E), C2E);
    let z_w_concorr_mc_m2 = neighbor_sum(e_bln_c_s * z_w_concorr_me_offset_2.at(C2E), C2E);
    let z_w_concorr_mc_m3 = neighbor_sum(e_bln_c_s * z_w_concorr_me_offset_3.at(C2E), C2E);
    let z_w_concorr_mc_m1_vp = z_w_concorr_mc_m1 as vpfloat;
    let z_w_concorr_mc_m2_vp = z_w_concorr_mc_m2 as vpfloat;
    let z_w_concorr_mc_m3_vp = z_w_concorr_mc_m3 as vpfloat;
    wgtfacq_c.at(K - 1) * z_w_concorr_mc_m1_vp
        + wgtfacq_c.at(K - 2) * z_w_concorr_mc_m2_vp
        + wgtfacq_c.at(K - 3) * z_w_concorr_mc_m3_vp
}

#[program]
pub fn compute_contravariant_correction_of_w_for_lower_boundary(
    e_bln_c_s: &Field<(Cell, C2E), wpfloat>,
    z_w_concorr_me: &Field<(Edge, K), vpfloat>,
    wgtfacq_c: &Field<(Cell, K), vpfloat>,
    w_concorr_c: &mut Field<(Cell, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_contravariant_correction_of_w_for_lower_boundary(e_bln_c_s, z_w_concorr_me, wgtfacq_c)
        .write_to(
            w_concorr_c,
            domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
        );
}

/// Formerly `mo_solve_nonhydro_stencil_41`: the divergence of the mass and θ_v fluxes.
#[field_operator]
pub fn _compute_divergence_of_fluxes_of_rho_and_theta(
    geofac_div: Field<(Cell, C2E), wpfloat>,
    mass_fl_e: Field<(Edge, K), wpfloat>,
    z_theta_v_fl_e: Field<(Edge, K), wpfloat>,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
    let z_flxdiv_mass_wp = neighbor_sum(geofac_div * mass_fl_e.at(C2E), C2E);
    let z_flxdiv_theta_wp = neighbor_sum(geofac_div * z_theta_v_fl_e.at(C2E), C2E);
    (z_flxdiv_mass_wp as vpfloat, z_flxdiv_theta_wp as vpfloat)
}

#[program]
pub fn compute_divergence_of_fluxes_of_rho_and_theta(
    geofac_div: &Field<(Cell, C2E), wpfloat>,
    mass_fl_e: &Field<(Edge, K), wpfloat>,
    z_theta_v_fl_e: &Field<(Edge, K), wpfloat>,
    z_flxdiv_mass: &mut Field<(Cell, K), vpfloat>,
    z_flxdiv_theta: &mut Field<(Cell, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_divergence_of_fluxes_of_rho_and_theta(geofac_div, mass_fl_e, z_theta_v_fl_e)
        .write_to(
            (z_flxdiv_mass, z_flxdiv_theta),
            domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
        );
}

/// Formerly `mo_solve_nonhydro_stencil_56_63`: ∂w/∂z for the divergence damping (reads level
/// k + 1 of the half-level fields w and w_concorr_c).
#[field_operator]
pub fn _compute_dwdz_for_divergence_damping(
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    w: Field<(Cell, K), wpfloat>,
    w_concorr_c: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let inv_ddqz_z_full_wp = inv_ddqz_z_full as wpfloat;
    let z_dwdz_dd_wp = inv_ddqz_z_full_wp
        * ((w - w.at(K + 1)) - (w_concorr_c - w_concorr_c.at(K + 1)) as wpfloat);
    z_dwdz_dd_wp as vpfloat
}

#[program]
pub fn compute_dwdz_for_divergence_damping(
    inv_ddqz_z_full: &Field<(Cell, K), vpfloat>,
    w: &Field<(Cell, K), wpfloat>,
    w_concorr_c: &Field<(Cell, K), vpfloat>,
    z_dwdz_dd: &mut Field<(Cell, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_dwdz_for_divergence_damping(inv_ddqz_z_full, w, w_concorr_c).write_to(
        z_dwdz_dd,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_44`: the coefficients α and β of the implicit system.
#[field_operator]
pub fn _compute_solver_coefficients_matrix(
    exner_nnow: Field<(Cell, K), wpfloat>,
    rho_nnow: Field<(Cell, K), wpfloat>,
    theta_v_nnow: Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    vwind_impl_wgt: Field<Cell, wpfloat>,
    theta_v_ic: Field<(Cell, K), wpfloat>,
    rho_ic: Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
    rd: wpfloat,
    cvd: wpfloat,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
    let inv_ddqz_z_full_wp = inv_ddqz_z_full as wpfloat;
    let z_beta_wp =
        dtime * rd * exner_nnow / (cvd * rho_nnow * theta_v_nnow) * inv_ddqz_z_full_wp;
    let z_alpha_wp = vwind_impl_wgt * theta_v_ic * rho_ic;
    (z_beta_wp as vpfloat, z_alpha_wp as vpfloat)
}

#[program]
pub fn compute_solver_coefficients_matrix(
    z_beta: &mut Field<(Cell, K), vpfloat>,
    exner_nnow: &Field<(Cell, K), wpfloat>,
    rho_nnow: &Field<(Cell, K), wpfloat>,
    theta_v_nnow: &Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: &Field<(Cell, K), vpfloat>,
    z_alpha: &mut Field<(Cell, K), vpfloat>,
    vwind_impl_wgt: &Field<Cell, wpfloat>,
    theta_v_ic: &Field<(Cell, K), wpfloat>,
    rho_ic: &Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
    rd: wpfloat,
    cvd: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_solver_coefficients_matrix(
        exner_nnow,
        rho_nnow,
        theta_v_nnow,
        inv_ddqz_z_full,
        vwind_impl_wgt,
        theta_v_ic,
        rho_ic,
        dtime,
        rd,
        cvd,
    )
    .write_to(
        (z_beta, z_alpha),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_48` / `_49`: the explicit parts of ρ and exner (reads
/// level k + 1 of the half-level fields `z_contr_w_fl_l` and `theta_v_ic`).
#[field_operator]
pub fn _compute_explicit_part_for_rho_and_exner(
    rho_nnow: Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    z_flxdiv_mass: Field<(Cell, K), vpfloat>,
    z_contr_w_fl_l: Field<(Cell, K), wpfloat>,
    exner_pr: Field<(Cell, K), wpfloat>,
    z_beta: Field<(Cell, K), vpfloat>,
    z_flxdiv_theta: Field<(Cell, K), vpfloat>,
    theta_v_ic: Field<(Cell, K), wpfloat>,
    ddt_exner_phy: Field<(Cell, K), vpfloat>,
    dtime: wpfloat,
) -> (Field<(Cell, K), wpfloat>, Field<(Cell, K), wpfloat>) {
    let inv_ddqz_z_full_wp = inv_ddqz_z_full as wpfloat;
    let z_flxdiv_mass_wp = z_flxdiv_mass as wpfloat;
    let z_beta_wp = z_beta as wpfloat;
    let z_flxdiv_theta_wp = z_flxdiv_theta as wpfloat;
    let ddt_exner_phy_wp = ddt_exner_phy as wpfloat;
    let z_rho_expl_wp = rho_nnow
        - dtime
            * inv_ddqz_z_full_wp
            * (z_flxdiv_mass_wp + z_contr_w_fl_l - z_contr_w_fl_l.at(K + 1));
    let z_exner_expl_wp = exner_pr
        - z_beta_wp
            * (z_flxdiv_theta_wp + theta_v_ic * z_contr_w_fl_l
                - theta_v_ic.at(K + 1) * z_contr_w_fl_l.at(K + 1))
        + dtime * ddt_exner_phy_wp;
    (z_rho_expl_wp, z_exner_expl_wp)
}

#[program]
pub fn compute_explicit_part_for_rho_and_exner(
    z_rho_expl: &mut Field<(Cell, K), wpfloat>,
    z_exner_expl: &mut Field<(Cell, K), wpfloat>,
    rho_nnow: &Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: &Field<(Cell, K), vpfloat>,
    z_flxdiv_mass: &Field<(Cell, K), vpfloat>,
    z_contr_w_fl_l: &Field<(Cell, K), wpfloat>,
    exner_pr: &Field<(Cell, K), wpfloat>,
    z_beta: &Field<(Cell, K), vpfloat>,
    z_flxdiv_theta: &Field<(Cell, K), vpfloat>,
    theta_v_ic: &Field<(Cell, K), wpfloat>,
    ddt_exner_phy: &Field<(Cell, K), vpfloat>,
    dtime: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_explicit_part_for_rho_and_exner(
        rho_nnow,
        inv_ddqz_z_full,
        z_flxdiv_mass,
        z_contr_w_fl_l,
        exner_pr,
        z_beta,
        z_flxdiv_theta,
        theta_v_ic,
        ddt_exner_phy,
        dtime,
    )
    .write_to(
        (z_rho_expl, z_exner_expl),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_50`: the analysis increments of data assimilation
/// added to the explicit parts of ρ and exner.
#[field_operator]
pub fn _add_analysis_increments_from_data_assimilation(
    z_rho_expl: Field<(Cell, K), wpfloat>,
    z_exner_expl: Field<(Cell, K), wpfloat>,
    rho_incr: Field<(Cell, K), vpfloat>,
    exner_incr: Field<(Cell, K), vpfloat>,
    iau_wgt_dyn: wpfloat,
) -> (Field<(Cell, K), wpfloat>, Field<(Cell, K), wpfloat>) {
    let rho_incr_wp = rho_incr as wpfloat;
    let exner_incr_wp = exner_incr as wpfloat;
    let z_rho_expl_wp = z_rho_expl + iau_wgt_dyn * rho_incr_wp;
    let z_exner_expl_wp = z_exner_expl + iau_wgt_dyn * exner_incr_wp;
    (z_rho_expl_wp, z_exner_expl_wp)
}

#[program]
pub fn add_analysis_increments_from_data_assimilation(
    z_rho_expl: &mut Field<(Cell, K), wpfloat>,
    z_exner_expl: &mut Field<(Cell, K), wpfloat>,
    rho_incr: &Field<(Cell, K), vpfloat>,
    exner_incr: &Field<(Cell, K), vpfloat>,
    iau_wgt_dyn: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _add_analysis_increments_from_data_assimilation(
        z_rho_expl,
        z_exner_expl,
        rho_incr,
        exner_incr,
        iau_wgt_dyn,
    )
    .write_to(
        (z_rho_expl, z_exner_expl),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_54`: Rayleigh damping of w.
#[field_operator]
pub fn _apply_rayleigh_damping_mechanism(
    z_raylfac: Field<K, wpfloat>,
    w: Field<(Cell, K), wpfloat>,
) -> Field<(Cell, K), wpfloat> {
    let z_raylfac = broadcast(z_raylfac, (Cell, K));
    z_raylfac * w
}

#[program]
pub fn apply_rayleigh_damping_mechanism(
    z_raylfac: &Field<K, wpfloat>,
    w: &mut Field<(Cell, K), wpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_rayleigh_damping_mechanism(z_raylfac, w).write_to(
        w,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_55`: ρ, exner and θ_v of the new time level from the
/// explicit parts and the solved w (reads level k + 1 of the half-level fields `rho_ic`, `w`
/// and `z_alpha`).
#[field_operator]
pub fn _compute_results_for_thermodynamic_variables(
    z_rho_expl: Field<(Cell, K), wpfloat>,
    vwind_impl_wgt: Field<Cell, wpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    rho_ic: Field<(Cell, K), wpfloat>,
    w: Field<(Cell, K), wpfloat>,
    z_exner_expl: Field<(Cell, K), wpfloat>,
    exner_ref_mc: Field<(Cell, K), vpfloat>,
    z_alpha: Field<(Cell, K), vpfloat>,
    z_beta: Field<(Cell, K), vpfloat>,
    rho_now: Field<(Cell, K), wpfloat>,
    theta_v_now: Field<(Cell, K), wpfloat>,
    exner_now: Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
) -> (
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
) {
    let inv_ddqz_z_full_wp = inv_ddqz_z_full as wpfloat;
    let exner_ref_mc_wp = exner_ref_mc as wpfloat;
    let z_alpha_wp = z_alpha as wpfloat;
    let z_beta_wp = z_beta as wpfloat;
    let rho_new_wp = z_rho_expl
        - vwind_impl_wgt
            * dtime
            * inv_ddqz_z_full_wp
            * (rho_ic * w - rho_ic.at(K + 1) * w.at(K + 1));
    let exner_new_wp = z_exner_expl + exner_ref_mc_wp
        - z_beta_wp * (z_alpha_wp * w - z_alpha_wp.at(K + 1) * w.at(K + 1));
    // ICON4Py's `PhysicsConstants.cvd_o_rd`.
    let theta_v_new_wp = rho_now
        * theta_v_now
        * ((exner_new_wp / exner_now - 1.0) * 2.4999999999999996 + 1.0)
        / rho_new_wp;
    (rho_new_wp, exner_new_wp, theta_v_new_wp)
}

#[program]
pub fn compute_results_for_thermodynamic_variables(
    z_rho_expl: &Field<(Cell, K), wpfloat>,
    vwind_impl_wgt: &Field<Cell, wpfloat>,
    inv_ddqz_z_full: &Field<(Cell, K), vpfloat>,
    rho_ic: &Field<(Cell, K), wpfloat>,
    w: &Field<(Cell, K), wpfloat>,
    z_exner_expl: &Field<(Cell, K), wpfloat>,
    exner_ref_mc: &Field<(Cell, K), vpfloat>,
    z_alpha: &Field<(Cell, K), vpfloat>,
    z_beta: &Field<(Cell, K), vpfloat>,
    rho_now: &Field<(Cell, K), wpfloat>,
    theta_v_now: &Field<(Cell, K), wpfloat>,
    exner_now: &Field<(Cell, K), wpfloat>,
    rho_new: &mut Field<(Cell, K), wpfloat>,
    exner_new: &mut Field<(Cell, K), wpfloat>,
    theta_v_new: &mut Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_results_for_thermodynamic_variables(
        z_rho_expl,
        vwind_impl_wgt,
        inv_ddqz_z_full,
        rho_ic,
        w,
        z_exner_expl,
        exner_ref_mc,
        z_alpha,
        z_beta,
        rho_now,
        theta_v_now,
        exner_now,
        dtime,
    )
    .write_to(
        (rho_new, exner_new, theta_v_new),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_58`: the mass and volume fluxes at half levels,
/// accumulated over the substeps.
#[field_operator]
pub fn _update_mass_volume_flux(
    z_contr_w_fl_l: Field<(Cell, K), wpfloat>,
    rho_ic: Field<(Cell, K), wpfloat>,
    vwind_impl_wgt: Field<Cell, wpfloat>,
    w: Field<(Cell, K), wpfloat>,
    mass_flx_ic: Field<(Cell, K), wpfloat>,
    vol_flx_ic: Field<(Cell, K), wpfloat>,
    r_nsubsteps: wpfloat,
) -> (Field<(Cell, K), wpfloat>, Field<(Cell, K), wpfloat>) {
    let z_a = r_nsubsteps * (z_contr_w_fl_l + rho_ic * vwind_impl_wgt * w);
    let mass_flx_ic_wp = mass_flx_ic + z_a;
    let vol_flx_ic_wp = vol_flx_ic + z_a / rho_ic;
    (mass_flx_ic_wp, vol_flx_ic_wp)
}

#[program]
pub fn update_mass_volume_flux(
    z_contr_w_fl_l: &Field<(Cell, K), wpfloat>,
    rho_ic: &Field<(Cell, K), wpfloat>,
    vwind_impl_wgt: &Field<Cell, wpfloat>,
    w: &Field<(Cell, K), wpfloat>,
    mass_flx_ic: &mut Field<(Cell, K), wpfloat>,
    vol_flx_ic: &mut Field<(Cell, K), wpfloat>,
    r_nsubsteps: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _update_mass_volume_flux(
        z_contr_w_fl_l,
        rho_ic,
        vwind_impl_wgt,
        w,
        mass_flx_ic,
        vol_flx_ic,
        r_nsubsteps,
    )
    .write_to(
        (mass_flx_ic, vol_flx_ic),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_60`: the dynamical exner increment of the step.
#[field_operator]
pub fn _update_dynamical_exner_time_increment(
    exner: Field<(Cell, K), wpfloat>,
    ddt_exner_phy: Field<(Cell, K), vpfloat>,
    exner_dyn_incr: Field<(Cell, K), vpfloat>,
    ndyn_substeps_var: wpfloat,
    dtime: wpfloat,
) -> Field<(Cell, K), vpfloat> {
    let exner_dyn_incr_wp = exner_dyn_incr as wpfloat;
    let ddt_exner_phy_wp = ddt_exner_phy as wpfloat;
    let exner_dyn_incr_wp =
        exner - (exner_dyn_incr_wp + ndyn_substeps_var * dtime * ddt_exner_phy_wp);
    exner_dyn_incr_wp as vpfloat
}

#[program]
pub fn update_dynamical_exner_time_increment(
    exner: &Field<(Cell, K), wpfloat>,
    ddt_exner_phy: &Field<(Cell, K), vpfloat>,
    exner_dyn_incr: &mut Field<(Cell, K), vpfloat>,
    ndyn_substeps_var: wpfloat,
    dtime: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _update_dynamical_exner_time_increment(
        exner,
        ddt_exner_phy,
        exner_dyn_incr,
        ndyn_substeps_var,
        dtime,
    )
    .write_to(
        exner_dyn_incr,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
