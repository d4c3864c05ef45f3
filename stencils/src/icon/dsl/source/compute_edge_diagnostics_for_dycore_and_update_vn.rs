// ICON4Py's edge diagnostics of `solve_nonhydro`: the predictor step's hydrostatic correction
// of the pressure gradient on the lowest level
// (`atmosphere/dycore/stencils/compute_hydrostatic_correction_term.py`), its ρ and θ_v at
// edges, horizontal pressure gradient and vn update, and the corrector step's vn update with
// divergence damping (`compute_edge_diagnostics_for_dycore_and_update_vn.py`), written
// against ICON's `vpfloat`/`wpfloat` with ICON4Py's `astype` casts, in ICON4Py's operation
// order and program structure. Included by
// `compute_edge_diagnostics_for_dycore_and_update_vn::double` and `::mixed`, each of which
// declares the two aliases first.
//
// The field operators these programs call come first, each from the ICON4Py file named on it;
// those of `dycore_utils.py` (the fourth-order damping's coefficients) are the
// `dycore_utils` module's, which the instantiating module names.
//
// Where ICON4Py's own types disagree (they agree in its `double` mode only), this follows the
// computation, so that the programs type in `mixed` as in `double`:
// - `_compute_hydrostatic_correction_term` uses the vpfloat `zdiff_gradp` in wpfloat
//   arithmetic without a cast (its source marks the cast as to do): widened here by an exact
//   cast;
// - the hydrostatic correction is written as vpfloat by `compute_hydrostatic_correction_term`
//   (ICON's `z_hydro_corr` is vp), and `compute_rho_theta_pgrad_and_update_vn` reads its lowest
//   level as `hydrostatic_correction_on_lowest_level`, which ICON4Py declares wpfloat: vpfloat
//   here, as it is written, so that the correction of the pressure gradient is vpfloat
//   arithmetic as ICON's;
// - the three pressure gradients are vpfloat, as the operators computing them return them and
//   the program's `horizontal_pressure_gradient` is: `apply_on_vertical_level` and
//   `_compute_horizontal_pressure_gradient` (which declare wpfloat) take and return vpfloat.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, Edge, C2E2CO, E2C, E2C2EO, K};

/// ICON4Py's `compute_hydrostatic_correction_term.py`, formerly
/// `mo_solve_nonhydro_stencil_21`: the hydrostatic correction of the pressure gradient where
/// an edge's neighbouring cells reach below the lowest level, from θ_v at the levels
/// `ikoffset` points to, extrapolated by `zdiff_gradp`.
#[field_operator]
pub fn _compute_hydrostatic_correction_term(
    theta_v: Field<(Cell, K), wpfloat>,
    ikoffset: Field<(Edge, E2C, K), i32>,
    zdiff_gradp: Field<(Edge, E2C, K), vpfloat>,
    theta_v_ic: Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    grav_o_cpd: wpfloat,
) -> Field<(Edge, K), vpfloat> {
    let zdiff_gradp_wp = zdiff_gradp as wpfloat;

    let theta_v_0 = theta_v.at(E2C[0]).at(K + ikoffset[E2C(0)]);
    let theta_v_1 = theta_v.at(E2C[1]).at(K + ikoffset[E2C(1)]);

    let theta_v_ic_0 = theta_v_ic.at(E2C[0]).at(K + ikoffset[E2C(0)]);
    let theta_v_ic_1 = theta_v_ic.at(E2C[1]).at(K + ikoffset[E2C(1)]);

    let theta_v_ic_p1_0 = theta_v_ic.at(E2C[0]).at(K + (ikoffset[E2C(0)] + 1));
    let theta_v_ic_p1_1 = theta_v_ic.at(E2C[1]).at(K + (ikoffset[E2C(1)] + 1));

    let inv_ddqz_z_full_0_wp = inv_ddqz_z_full.at(E2C[0]).at(K + ikoffset[E2C(0)]) as wpfloat;
    let inv_ddqz_z_full_1_wp = inv_ddqz_z_full.at(E2C[1]).at(K + ikoffset[E2C(1)]) as wpfloat;

    let z_theta_0 = theta_v_0
        + zdiff_gradp_wp[E2C(0)] * (theta_v_ic_0 - theta_v_ic_p1_0) * inv_ddqz_z_full_0_wp;
    let z_theta_1 = theta_v_1
        + zdiff_gradp_wp[E2C(1)] * (theta_v_ic_1 - theta_v_ic_p1_1) * inv_ddqz_z_full_1_wp;
    let z_hydro_corr_wp = grav_o_cpd * inv_dual_edge_length * (z_theta_1 - z_theta_0) * 4.0
        / ((z_theta_0 + z_theta_1) * (z_theta_0 + z_theta_1));

    z_hydro_corr_wp as vpfloat
}

/// `solve_nonhydro` calls it on the lowest level, edges from nudging level 2 to the local ones.
#[program]
pub fn compute_hydrostatic_correction_term(
    theta_v: &Field<(Cell, K), wpfloat>,
    ikoffset: &Field<(Edge, E2C, K), i32>,
    zdiff_gradp: &Field<(Edge, E2C, K), vpfloat>,
    theta_v_ic: &Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: &Field<(Cell, K), vpfloat>,
    inv_dual_edge_length: &Field<Edge, wpfloat>,
    grav_o_cpd: wpfloat,
    z_hydro_corr: &mut Field<(Edge, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_hydrostatic_correction_term(
        theta_v,
        ikoffset,
        zdiff_gradp,
        theta_v_ic,
        inv_ddqz_z_full,
        inv_dual_edge_length,
        grav_o_cpd,
    )
    .write_to(
        z_hydro_corr,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// ICON4Py's `common/math/stencils/cell_horizontal_gradients_by_green_gauss_method.py`: the
/// x and y derivatives of a cell field at cell centres (Green-Gauss), in wpfloat.
#[field_operator]
pub fn cell_horizontal_gradients_by_green_gauss_method(
    scalar_field: Field<(Cell, K), vpfloat>,
    geofac_grg_x: Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_y: Field<(Cell, C2E2CO), wpfloat>,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
    let scalar_field_wp = scalar_field as wpfloat;

    let p_grad_1_u_wp = neighbor_sum(geofac_grg_x * scalar_field_wp.at(C2E2CO), C2E2CO);
    let p_grad_1_v_wp = neighbor_sum(geofac_grg_y * scalar_field_wp.at(C2E2CO), C2E2CO);
    (p_grad_1_u_wp as vpfloat, p_grad_1_v_wp as vpfloat)
}

/// ICON4Py's `compute_horizontal_advection_of_rho_and_theta.py`: the barycentre of the
/// back-trajectory from an edge centre over half a time step, in the coordinates of the
/// upwind cell.
#[field_operator]
pub fn _compute_backward_trajectory_from_edge_center(
    p_vn: Field<(Edge, K), wpfloat>,
    p_vt: Field<(Edge, K), vpfloat>,
    pos_on_tplane_e_1: Field<(Edge, E2C), wpfloat>,
    pos_on_tplane_e_2: Field<(Edge, E2C), wpfloat>,
    primal_normal_cell_1: Field<(Edge, E2C), wpfloat>,
    dual_normal_cell_1: Field<(Edge, E2C), wpfloat>,
    primal_normal_cell_2: Field<(Edge, E2C), wpfloat>,
    dual_normal_cell_2: Field<(Edge, E2C), wpfloat>,
    p_dthalf: wpfloat,
) -> (Field<(Edge, K), wpfloat>, Field<(Edge, K), wpfloat>) {
    let lvn_pos = select(p_vn >= 0.0, true, false);

    let z_ntdistv_bary_1 = -(p_vn * p_dthalf
        + select(
            lvn_pos,
            pos_on_tplane_e_1[E2C(0)],
            pos_on_tplane_e_1[E2C(1)],
        ));

    let z_ntdistv_bary_2 = -(p_vt as wpfloat * p_dthalf
        + select(
            lvn_pos,
            pos_on_tplane_e_2[E2C(0)],
            pos_on_tplane_e_2[E2C(1)],
        ));

    let p_distv_bary_1 = select(
        lvn_pos,
        z_ntdistv_bary_1 * primal_normal_cell_1[E2C(0)]
            + z_ntdistv_bary_2 * dual_normal_cell_1[E2C(0)],
        z_ntdistv_bary_1 * primal_normal_cell_1[E2C(1)]
            + z_ntdistv_bary_2 * dual_normal_cell_1[E2C(1)],
    );

    let p_distv_bary_2 = select(
        lvn_pos,
        z_ntdistv_bary_1 * primal_normal_cell_2[E2C(0)]
            + z_ntdistv_bary_2 * dual_normal_cell_2[E2C(0)],
        z_ntdistv_bary_1 * primal_normal_cell_2[E2C(1)]
            + z_ntdistv_bary_2 * dual_normal_cell_2[E2C(1)],
    );

    (p_distv_bary_1, p_distv_bary_2)
}

/// ICON4Py's `compute_horizontal_advection_of_rho_and_theta.py`: ρ and θ_v at an edge from the
/// upwind cell's perturbations and gradients at the back-trajectory's barycentre.
#[field_operator]
pub fn _compute_upwind_values_of_rho_and_theta_v_at_edges(
    p_vn: Field<(Edge, K), wpfloat>,
    rho_ref_me: Field<(Edge, K), vpfloat>,
    theta_ref_me: Field<(Edge, K), vpfloat>,
    p_distv_bary_1: Field<(Edge, K), wpfloat>,
    p_distv_bary_2: Field<(Edge, K), wpfloat>,
    z_grad_rth_1: Field<(Cell, K), vpfloat>,
    z_grad_rth_2: Field<(Cell, K), vpfloat>,
    z_grad_rth_3: Field<(Cell, K), vpfloat>,
    z_grad_rth_4: Field<(Cell, K), vpfloat>,
    z_rth_pr_1: Field<(Cell, K), vpfloat>,
    z_rth_pr_2: Field<(Cell, K), vpfloat>,
) -> (Field<(Edge, K), wpfloat>, Field<(Edge, K), wpfloat>) {
    let (
        theta_ref_me_wp,
        rho_ref_me_wp,
        z_grad_rth_1_wp,
        z_grad_rth_2_wp,
        z_grad_rth_3_wp,
        z_grad_rth_4_wp,
        z_rth_pr_1_wp,
        z_rth_pr_2_wp,
    ) = (
        theta_ref_me as wpfloat,
        rho_ref_me as wpfloat,
        z_grad_rth_1 as wpfloat,
        z_grad_rth_2 as wpfloat,
        z_grad_rth_3 as wpfloat,
        z_grad_rth_4 as wpfloat,
        z_rth_pr_1 as wpfloat,
        z_rth_pr_2 as wpfloat,
    );

    let z_rho_e_wp = select(
        p_vn >= 0.0,
        rho_ref_me_wp
            + z_rth_pr_1_wp.at(E2C[0])
            + p_distv_bary_1 * z_grad_rth_1_wp.at(E2C[0])
            + p_distv_bary_2 * z_grad_rth_2_wp.at(E2C[0]),
        rho_ref_me_wp
            + z_rth_pr_1_wp.at(E2C[1])
            + p_distv_bary_1 * z_grad_rth_1_wp.at(E2C[1])
            + p_distv_bary_2 * z_grad_rth_2_wp.at(E2C[1]),
    );

    let z_theta_v_e_wp = select(
        p_vn >= 0.0,
        theta_ref_me_wp
            + z_rth_pr_2_wp.at(E2C[0])
            + p_distv_bary_1 * z_grad_rth_3_wp.at(E2C[0])
            + p_distv_bary_2 * z_grad_rth_4_wp.at(E2C[0]),
        theta_ref_me_wp
            + z_rth_pr_2_wp.at(E2C[1])
            + p_distv_bary_1 * z_grad_rth_3_wp.at(E2C[1])
            + p_distv_bary_2 * z_grad_rth_4_wp.at(E2C[1]),
    );

    (z_rho_e_wp, z_theta_v_e_wp)
}

/// ICON4Py's `compute_horizontal_advection_of_rho_and_theta.py`, formerly
/// `mo_solve_nonhydro_stencil_16_fused_btraj_traj_o1`: ρ and θ_v at edges by the Miura scheme
/// (first order in space: the upwind cell's perturbation and gradient at the barycentre of the
/// back-trajectory).
#[field_operator]
pub fn _compute_horizontal_advection_of_rho_and_theta(
    p_vn: Field<(Edge, K), wpfloat>,
    p_vt: Field<(Edge, K), vpfloat>,
    pos_on_tplane_e_1: Field<(Edge, E2C), wpfloat>,
    pos_on_tplane_e_2: Field<(Edge, E2C), wpfloat>,
    primal_normal_cell_1: Field<(Edge, E2C), wpfloat>,
    dual_normal_cell_1: Field<(Edge, E2C), wpfloat>,
    primal_normal_cell_2: Field<(Edge, E2C), wpfloat>,
    dual_normal_cell_2: Field<(Edge, E2C), wpfloat>,
    p_dthalf: wpfloat,
    rho_ref_me: Field<(Edge, K), vpfloat>,
    theta_ref_me: Field<(Edge, K), vpfloat>,
    perturbed_rho_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    perturbed_theta_v_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    geofac_grg_x: Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_y: Field<(Cell, C2E2CO), wpfloat>,
) -> (Field<(Edge, K), wpfloat>, Field<(Edge, K), wpfloat>) {
    let (ddx_perturbed_theta_v, ddy_perturbed_theta_v) =
        cell_horizontal_gradients_by_green_gauss_method(
            perturbed_theta_v_at_cells_on_model_levels,
            geofac_grg_x,
            geofac_grg_y,
        );

    let (ddx_perturbed_rho, ddy_perturbed_rho) = cell_horizontal_gradients_by_green_gauss_method(
        perturbed_rho_at_cells_on_model_levels,
        geofac_grg_x,
        geofac_grg_y,
    );

    let (p_distv_bary_1, p_distv_bary_2) = _compute_backward_trajectory_from_edge_center(
        p_vn,
        p_vt,
        pos_on_tplane_e_1,
        pos_on_tplane_e_2,
        primal_normal_cell_1,
        dual_normal_cell_1,
        primal_normal_cell_2,
        dual_normal_cell_2,
        p_dthalf,
    );

    let (rho_at_edges_on_model_levels, theta_at_edges_on_model_levels) =
        _compute_upwind_values_of_rho_and_theta_v_at_edges(
            p_vn,
            rho_ref_me,
            theta_ref_me,
            p_distv_bary_1,
            p_distv_bary_2,
            ddx_perturbed_rho,
            ddy_perturbed_rho,
            ddx_perturbed_theta_v,
            ddy_perturbed_theta_v,
            perturbed_rho_at_cells_on_model_levels,
            perturbed_theta_v_at_cells_on_model_levels,
        );

    (rho_at_edges_on_model_levels, theta_at_edges_on_model_levels)
}

/// ICON4Py's `compute_horizontal_gradient_of_exner_pressure_for_flat_coordinates.py`, formerly
/// `mo_solve_nonhydro_stencil_18`: exner's horizontal gradient between an edge's two cells.
#[field_operator]
pub fn _compute_horizontal_gradient_of_exner_pressure_for_flat_coordinates(
    inv_dual_edge_length: Field<Edge, wpfloat>,
    z_exner_ex_pr: Field<(Cell, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let z_gradh_exner_wp = inv_dual_edge_length
        * (z_exner_ex_pr.at(E2C[1]) - z_exner_ex_pr.at(E2C[0])) as wpfloat;
    z_gradh_exner_wp as vpfloat
}

/// ICON4Py's `compute_horizontal_gradient_of_exner_pressure_for_nonflat_coordinates.py`,
/// formerly `mo_solve_nonhydro_stencil_19`: the gradient along the terrain-following level,
/// corrected by the slope times exner's vertical derivative at the edge.
#[field_operator]
pub fn _compute_horizontal_gradient_of_exner_pressure_for_nonflat_coordinates(
    inv_dual_edge_length: Field<Edge, wpfloat>,
    z_exner_ex_pr: Field<(Cell, K), vpfloat>,
    ddxn_z_full: Field<(Edge, K), vpfloat>,
    c_lin_e: Field<(Edge, E2C), wpfloat>,
    z_dexner_dz_c_1: Field<(Cell, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let (ddxn_z_full_wp, z_dexner_dz_c_1_wp) = (ddxn_z_full as wpfloat, z_dexner_dz_c_1 as wpfloat);

    let z_gradh_exner_wp = inv_dual_edge_length
        * (z_exner_ex_pr.at(E2C[1]) - z_exner_ex_pr.at(E2C[0])) as wpfloat
        - ddxn_z_full_wp * neighbor_sum(z_dexner_dz_c_1_wp.at(E2C) * c_lin_e, E2C);
    z_gradh_exner_wp as vpfloat
}

/// ICON4Py's `compute_horizontal_gradient_of_exner_pressure_for_multiple_levels.py`, formerly
/// `mo_solve_nonhydro_stencil_20`: the gradient between the neighbouring cells' levels at the
/// edge's height (`ikoffset`), each extrapolated quadratically over `zdiff_gradp`.
#[field_operator]
pub fn _compute_horizontal_gradient_of_exner_pressure_for_multiple_levels(
    inv_dual_edge_length: Field<Edge, wpfloat>,
    z_exner_ex_pr: Field<(Cell, K), vpfloat>,
    zdiff_gradp: Field<(Edge, E2C, K), vpfloat>,
    ikoffset: Field<(Edge, E2C, K), i32>,
    z_dexner_dz_c_1: Field<(Cell, K), vpfloat>,
    z_dexner_dz_c_2: Field<(Cell, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let z_exner_ex_pr_0 = z_exner_ex_pr.at(E2C[0]).at(K + ikoffset[E2C(0)]);
    let z_exner_ex_pr_1 = z_exner_ex_pr.at(E2C[1]).at(K + ikoffset[E2C(1)]);

    let z_dexner_dz_c1_0 = z_dexner_dz_c_1.at(E2C[0]).at(K + ikoffset[E2C(0)]);
    let z_dexner_dz_c1_1 = z_dexner_dz_c_1.at(E2C[1]).at(K + ikoffset[E2C(1)]);

    let z_dexner_dz_c2_0 = z_dexner_dz_c_2.at(E2C[0]).at(K + ikoffset[E2C(0)]);
    let z_dexner_dz_c2_1 = z_dexner_dz_c_2.at(E2C[1]).at(K + ikoffset[E2C(1)]);

    let z_gradh_exner_wp = inv_dual_edge_length
        * ((z_exner_ex_pr_1
            + zdiff_gradp[E2C(1)] * (z_dexner_dz_c1_1 + zdiff_gradp[E2C(1)] * z_dexner_dz_c2_1))
            - (z_exner_ex_pr_0
                + zdiff_gradp[E2C(0)]
                    * (z_dexner_dz_c1_0 + zdiff_gradp[E2C(0)] * z_dexner_dz_c2_0)))
            as wpfloat;

    z_gradh_exner_wp as vpfloat
}

/// ICON4Py's `add_temporal_tendencies_to_vn.py`, formerly `mo_solve_nonhydro_stencil_24`: vn
/// advanced by the advective and physics tendencies and the pressure gradient
/// (`PhysicsConstants.cpd` = 1004.64).
#[field_operator]
pub fn _add_temporal_tendencies_to_vn(
    vn_nnow: Field<(Edge, K), wpfloat>,
    ddt_vn_apc_ntl1: Field<(Edge, K), vpfloat>,
    ddt_vn_phy: Field<(Edge, K), vpfloat>,
    z_theta_v_e: Field<(Edge, K), wpfloat>,
    z_gradh_exner: Field<(Edge, K), vpfloat>,
    dtime: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    let z_gradh_exner_wp = z_gradh_exner as wpfloat;

    vn_nnow
        + dtime
            * (ddt_vn_apc_ntl1 as wpfloat - 1004.64 * z_theta_v_e * z_gradh_exner_wp
                + ddt_vn_phy as wpfloat)
}

/// ICON4Py's `add_analysis_increments_to_vn.py`, formerly `mo_solve_nonhydro_stencil_28`.
#[field_operator]
pub fn _add_analysis_increments_to_vn(
    vn_incr: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    iau_wgt_dyn: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    let vn_incr_wp = vn_incr as wpfloat;
    vn + (iau_wgt_dyn * vn_incr_wp)
}

/// ICON4Py's `compute_vn_on_lateral_boundary.py`, formerly `mo_solve_nonhydro_stencil_29`: vn
/// on the lateral boundary from the driving model's tendency.
#[field_operator]
pub fn _compute_vn_on_lateral_boundary(
    grf_tend_vn: Field<(Edge, K), wpfloat>,
    vn_now: Field<(Edge, K), wpfloat>,
    dtime: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    vn_now + dtime * grf_tend_vn
}

/// The flat levels' value above `nflatlev`, the multiple-level one from `nflat_gradp + 1` on,
/// the terrain-following one between.
#[field_operator]
pub fn apply_on_vertical_level(
    nflatlev: i32,
    nflat_gradp: i32,
    on_flatlevels: Field<(Edge, K), vpfloat>,
    between_flat_and_flatgradp: Field<(Edge, K), vpfloat>,
    below_flatgradp: Field<(Edge, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    concat_where(
        K < nflatlev,
        on_flatlevels,
        concat_where(
            nflat_gradp + 1 <= K,
            below_flatgradp,
            between_flat_and_flatgradp,
        ),
    )
}

/// The hydrostatic correction added where the edge lies below its neighbours' lowest level
/// (ICON's list of such points is a field here, zero elsewhere).
#[field_operator]
pub fn apply_hydrostatic_correction_to_horizontal_gradient_of_exner_pressure(
    pg_exdist: Field<(Edge, K), vpfloat>,
    z_hydro_corr: Field<Edge, vpfloat>,
    z_gradh_exner: Field<(Edge, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    select(
        pg_exdist != 0.0,
        z_gradh_exner + z_hydro_corr * pg_exdist,
        z_gradh_exner,
    )
}

/// The horizontal pressure gradient of the Taylor-hydrostatic discretisation (the only one
/// ICON4Py supports): flat, terrain-following or over multiple levels by level, with the
/// hydrostatic correction.
#[field_operator]
pub fn _compute_horizontal_pressure_gradient(
    temporal_extrapolation_of_perturbed_exner: Field<(Cell, K), vpfloat>,
    ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: Field<(Cell, K), vpfloat>,
    d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: Field<(Cell, K), vpfloat>,
    hydrostatic_correction_on_lowest_level: Field<Edge, vpfloat>,
    ddxn_z_full: Field<(Edge, K), vpfloat>,
    c_lin_e: Field<(Edge, E2C), wpfloat>,
    ikoffset: Field<(Edge, E2C, K), i32>,
    zdiff_gradp: Field<(Edge, E2C, K), vpfloat>,
    pg_exdist: Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    nflatlev: i32,
    nflat_gradp: i32,
) -> Field<(Edge, K), vpfloat> {
    let horizontal_pressure_gradient = apply_on_vertical_level(
        nflatlev,
        nflat_gradp,
        _compute_horizontal_gradient_of_exner_pressure_for_flat_coordinates(
            inv_dual_edge_length,
            temporal_extrapolation_of_perturbed_exner,
        ),
        _compute_horizontal_gradient_of_exner_pressure_for_nonflat_coordinates(
            inv_dual_edge_length,
            temporal_extrapolation_of_perturbed_exner,
            ddxn_z_full,
            c_lin_e,
            ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        ),
        _compute_horizontal_gradient_of_exner_pressure_for_multiple_levels(
            inv_dual_edge_length,
            temporal_extrapolation_of_perturbed_exner,
            zdiff_gradp,
            ikoffset,
            ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
            d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        ),
    );

    apply_hydrostatic_correction_to_horizontal_gradient_of_exner_pressure(
        pg_exdist,
        hydrostatic_correction_on_lowest_level,
        horizontal_pressure_gradient,
    )
}

#[field_operator]
pub fn _compute_rho_theta_pgrad_and_update_vn(
    next_vn: Field<(Edge, K), wpfloat>,
    current_vn: Field<(Edge, K), wpfloat>,
    tangential_wind: Field<(Edge, K), vpfloat>,
    reference_rho_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    reference_theta_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    perturbed_rho_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    perturbed_theta_v_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    temporal_extrapolation_of_perturbed_exner: Field<(Cell, K), vpfloat>,
    ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: Field<(Cell, K), vpfloat>,
    d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: Field<(Cell, K), vpfloat>,
    hydrostatic_correction_on_lowest_level: Field<Edge, vpfloat>,
    predictor_normal_wind_advective_tendency: Field<(Edge, K), vpfloat>,
    normal_wind_tendency_due_to_slow_physics_process: Field<(Edge, K), vpfloat>,
    normal_wind_iau_increment: Field<(Edge, K), vpfloat>,
    grf_tend_vn: Field<(Edge, K), wpfloat>,
    geofac_grg_x: Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_y: Field<(Cell, C2E2CO), wpfloat>,
    pos_on_tplane_e_x: Field<(Edge, E2C), wpfloat>,
    pos_on_tplane_e_y: Field<(Edge, E2C), wpfloat>,
    primal_normal_cell_x: Field<(Edge, E2C), wpfloat>,
    dual_normal_cell_x: Field<(Edge, E2C), wpfloat>,
    primal_normal_cell_y: Field<(Edge, E2C), wpfloat>,
    dual_normal_cell_y: Field<(Edge, E2C), wpfloat>,
    ddxn_z_full: Field<(Edge, K), vpfloat>,
    c_lin_e: Field<(Edge, E2C), wpfloat>,
    ikoffset: Field<(Edge, E2C, K), i32>,
    zdiff_gradp: Field<(Edge, E2C, K), vpfloat>,
    pg_exdist: Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    dtime: wpfloat,
    is_iau_active: bool,
    iau_wgt_dyn: wpfloat,
    limited_area: bool,
    nflatlev: i32,
    nflat_gradp: i32,
    start_edge_lateral_boundary: i32,
    start_edge_lateral_boundary_level_7: i32,
    start_edge_nudging_level_2: i32,
    end_edge_nudging: i32,
    end_edge_halo: i32,
) -> (
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), wpfloat>,
) {
    // ICON initialises the halo edges outside the Miura scheme's edges with zero, so that
    // nothing reads uninitialised values: a value of the call, not a narrower output domain.
    let (rho_at_edges_on_model_levels, theta_v_at_edges_on_model_levels) = concat_where(
        (start_edge_lateral_boundary_level_7 <= Edge) & (Edge < end_edge_halo),
        _compute_horizontal_advection_of_rho_and_theta(
            current_vn,
            tangential_wind,
            pos_on_tplane_e_x,
            pos_on_tplane_e_y,
            primal_normal_cell_x,
            dual_normal_cell_x,
            primal_normal_cell_y,
            dual_normal_cell_y,
            0.5 * dtime,
            reference_rho_at_edges_on_model_levels,
            reference_theta_at_edges_on_model_levels,
            perturbed_rho_at_cells_on_model_levels,
            perturbed_theta_v_at_cells_on_model_levels,
            geofac_grg_x,
            geofac_grg_y,
        ),
        (broadcast(0.0, (Edge, K)), broadcast(0.0, (Edge, K))),
    );

    let horizontal_pressure_gradient = _compute_horizontal_pressure_gradient(
        temporal_extrapolation_of_perturbed_exner,
        ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        hydrostatic_correction_on_lowest_level,
        ddxn_z_full,
        c_lin_e,
        ikoffset,
        zdiff_gradp,
        pg_exdist,
        inv_dual_edge_length,
        nflatlev,
        nflat_gradp,
    );

    let next_vn = concat_where(
        start_edge_nudging_level_2 <= Edge,
        _add_temporal_tendencies_to_vn(
            current_vn,
            predictor_normal_wind_advective_tendency,
            normal_wind_tendency_due_to_slow_physics_process,
            theta_v_at_edges_on_model_levels,
            horizontal_pressure_gradient,
            dtime,
        ),
        next_vn,
    );

    let next_vn = if is_iau_active {
        concat_where(
            start_edge_nudging_level_2 <= Edge,
            _add_analysis_increments_to_vn(normal_wind_iau_increment, next_vn, iau_wgt_dyn),
            next_vn,
        )
    } else {
        next_vn
    };

    let next_vn = if limited_area {
        concat_where(
            (start_edge_lateral_boundary <= Edge) & (Edge < end_edge_nudging),
            _compute_vn_on_lateral_boundary(grf_tend_vn, current_vn, dtime),
            next_vn,
        )
    } else {
        next_vn
    };

    (
        rho_at_edges_on_model_levels,
        theta_v_at_edges_on_model_levels,
        horizontal_pressure_gradient,
        next_vn,
    )
}

/// Formerly `fused_solve_nonhydro_stencil_15_to_28_predictor`: ρ and θ_v at edges (zero on the
/// halo edges outside the Miura scheme's), the horizontal pressure gradient on the prognostic
/// edges, and vn advanced by every tendency (the IAU increment where `is_iau_active`, the
/// driving model's tendency on the lateral boundary of a limited-area grid), each output in
/// ICON4Py's domain. `end_edge_local` bounds two of the domains only.
#[program]
pub fn compute_rho_theta_pgrad_and_update_vn(
    rho_at_edges_on_model_levels: &mut Field<(Edge, K), wpfloat>,
    theta_v_at_edges_on_model_levels: &mut Field<(Edge, K), wpfloat>,
    horizontal_pressure_gradient: &mut Field<(Edge, K), vpfloat>,
    next_vn: &mut Field<(Edge, K), wpfloat>,
    current_vn: &Field<(Edge, K), wpfloat>,
    tangential_wind: &Field<(Edge, K), vpfloat>,
    reference_rho_at_edges_on_model_levels: &Field<(Edge, K), vpfloat>,
    reference_theta_at_edges_on_model_levels: &Field<(Edge, K), vpfloat>,
    perturbed_rho_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    perturbed_theta_v_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    temporal_extrapolation_of_perturbed_exner: &Field<(Cell, K), vpfloat>,
    ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: &Field<(Cell, K), vpfloat>,
    d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: &Field<(Cell, K), vpfloat>,
    hydrostatic_correction_on_lowest_level: &Field<Edge, vpfloat>,
    predictor_normal_wind_advective_tendency: &Field<(Edge, K), vpfloat>,
    normal_wind_tendency_due_to_slow_physics_process: &Field<(Edge, K), vpfloat>,
    normal_wind_iau_increment: &Field<(Edge, K), vpfloat>,
    grf_tend_vn: &Field<(Edge, K), wpfloat>,
    geofac_grg_x: &Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_y: &Field<(Cell, C2E2CO), wpfloat>,
    pos_on_tplane_e_x: &Field<(Edge, E2C), wpfloat>,
    pos_on_tplane_e_y: &Field<(Edge, E2C), wpfloat>,
    primal_normal_cell_x: &Field<(Edge, E2C), wpfloat>,
    dual_normal_cell_x: &Field<(Edge, E2C), wpfloat>,
    primal_normal_cell_y: &Field<(Edge, E2C), wpfloat>,
    dual_normal_cell_y: &Field<(Edge, E2C), wpfloat>,
    ddxn_z_full: &Field<(Edge, K), vpfloat>,
    c_lin_e: &Field<(Edge, E2C), wpfloat>,
    ikoffset: &Field<(Edge, E2C, K), i32>,
    zdiff_gradp: &Field<(Edge, E2C, K), vpfloat>,
    pg_exdist: &Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: &Field<Edge, wpfloat>,
    dtime: wpfloat,
    #[static_arg] is_iau_active: bool,
    iau_wgt_dyn: wpfloat,
    #[static_arg] limited_area: bool,
    nflatlev: i32,
    nflat_gradp: i32,
    start_edge_lateral_boundary: i32,
    start_edge_lateral_boundary_level_7: i32,
    start_edge_nudging_level_2: i32,
    end_edge_nudging: i32,
    end_edge_local: i32,
    end_edge_halo: i32,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_rho_theta_pgrad_and_update_vn(
        next_vn,
        current_vn,
        tangential_wind,
        reference_rho_at_edges_on_model_levels,
        reference_theta_at_edges_on_model_levels,
        perturbed_rho_at_cells_on_model_levels,
        perturbed_theta_v_at_cells_on_model_levels,
        temporal_extrapolation_of_perturbed_exner,
        ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        hydrostatic_correction_on_lowest_level,
        predictor_normal_wind_advective_tendency,
        normal_wind_tendency_due_to_slow_physics_process,
        normal_wind_iau_increment,
        grf_tend_vn,
        geofac_grg_x,
        geofac_grg_y,
        pos_on_tplane_e_x,
        pos_on_tplane_e_y,
        primal_normal_cell_x,
        dual_normal_cell_x,
        primal_normal_cell_y,
        dual_normal_cell_y,
        ddxn_z_full,
        c_lin_e,
        ikoffset,
        zdiff_gradp,
        pg_exdist,
        inv_dual_edge_length,
        dtime,
        is_iau_active,
        iau_wgt_dyn,
        limited_area,
        nflatlev,
        nflat_gradp,
        start_edge_lateral_boundary,
        start_edge_lateral_boundary_level_7,
        start_edge_nudging_level_2,
        end_edge_nudging,
        end_edge_halo,
    )
    .write_to(
        (
            rho_at_edges_on_model_levels,
            theta_v_at_edges_on_model_levels,
            horizontal_pressure_gradient,
            next_vn,
        ),
        (
            domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
            domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
            domain![
                Edge: start_edge_nudging_level_2..end_edge_local,
                K: vertical_start..vertical_end
            ],
            domain![
                Edge: start_edge_lateral_boundary..end_edge_local,
                K: vertical_start..vertical_end
            ],
        ),
    );
}

/// ICON4Py's `add_vertical_wind_derivative_to_divergence_damping.py`, formerly
/// `mo_solve_nonhydro_stencil_17`: the gradient of the divergence with the horizontal gradient
/// of dw/dz added (3-D divergence damping).
#[field_operator]
pub fn _add_vertical_wind_derivative_to_divergence_damping(
    hmask_dd3d: Field<Edge, wpfloat>,
    scalfac_dd3d: Field<K, wpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    z_dwdz_dd: Field<(Cell, K), vpfloat>,
    z_graddiv_vn: Field<(Edge, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let z_graddiv_vn_wp = z_graddiv_vn as wpfloat;

    let scalfac_dd3d = broadcast(scalfac_dd3d, (Edge, K));
    let z_graddiv_vn_wp = z_graddiv_vn_wp
        + (hmask_dd3d
            * scalfac_dd3d
            * inv_dual_edge_length
            * (z_dwdz_dd.at(E2C[1]) - z_dwdz_dd.at(E2C[0])) as wpfloat);
    z_graddiv_vn_wp as vpfloat
}

/// ICON4Py's `add_temporal_tendencies_to_vn_by_interpolating_between_time_levels.py`, formerly
/// `mo_solve_nonhydro_stencil_23`: vn advanced by the predictor's and the corrector's advective
/// tendencies weighted, the physics tendency and the pressure gradient.
#[field_operator]
pub fn _add_temporal_tendencies_to_vn_by_interpolating_between_time_levels(
    vn_nnow: Field<(Edge, K), wpfloat>,
    ddt_vn_apc_ntl1: Field<(Edge, K), vpfloat>,
    ddt_vn_apc_ntl2: Field<(Edge, K), vpfloat>,
    ddt_vn_phy: Field<(Edge, K), vpfloat>,
    z_theta_v_e: Field<(Edge, K), wpfloat>,
    z_gradh_exner: Field<(Edge, K), vpfloat>,
    dtime: wpfloat,
    wgt_nnow_vel: wpfloat,
    wgt_nnew_vel: wpfloat,
    cpd: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    let (ddt_vn_phy_wp, z_gradh_exner_wp, ddt_vn_apc_ntl1_wp, ddt_vn_apc_ntl2_wp) = (
        ddt_vn_phy as wpfloat,
        z_gradh_exner as wpfloat,
        ddt_vn_apc_ntl1 as wpfloat,
        ddt_vn_apc_ntl2 as wpfloat,
    );

    vn_nnow
        + dtime
            * (wgt_nnow_vel * ddt_vn_apc_ntl1_wp + wgt_nnew_vel * ddt_vn_apc_ntl2_wp + ddt_vn_phy_wp
                - cpd * z_theta_v_e * z_gradh_exner_wp)
}

/// ICON4Py's `apply_2nd_order_divergence_damping.py`, formerly `mo_solve_nonhydro_stencil_26`.
#[field_operator]
pub fn _apply_2nd_order_divergence_damping(
    z_graddiv_vn: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    scal_divdamp_o2: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    let z_graddiv_vn_wp = z_graddiv_vn as wpfloat;
    vn + (scal_divdamp_o2 * z_graddiv_vn_wp)
}

/// ICON4Py's `compute_graddiv2_of_vn.py`, formerly `mo_solve_nonhydro_stencil_25`: the
/// gradient of the divergence of the divergence's gradient (fourth-order damping).
#[field_operator]
pub fn _compute_graddiv2_of_vn(
    geofac_grdiv: Field<(Edge, E2C2EO), wpfloat>,
    z_graddiv_vn: Field<(Edge, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let z_graddiv_vn_wp = z_graddiv_vn as wpfloat;

    let z_graddiv2_vn_wp = neighbor_sum(z_graddiv_vn_wp.at(E2C2EO) * geofac_grdiv, E2C2EO);
    z_graddiv2_vn_wp as vpfloat
}


/// ICON4Py's `apply_weighted_2nd_and_4th_order_divergence_damping.py`, formerly
/// `mo_solve_nonhydro_stencil_27`: fourth-order damping, enhanced towards a nest boundary.
#[field_operator]
pub fn _apply_weighted_2nd_and_4th_order_divergence_damping(
    interpolated_fourth_order_divdamp_factor: Field<K, wpfloat>,
    nudgecoeff_e: Field<Edge, wpfloat>,
    z_graddiv2_vn: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    divdamp_order: i32,
    mean_cell_area: wpfloat,
    second_order_divdamp_factor: wpfloat,
    max_nudging_coefficient: wpfloat,
    dbl_eps: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    let scal_divdamp = dycore_utils::_calculate_fourth_order_divdamp_scaling_coeff(
        interpolated_fourth_order_divdamp_factor,
        divdamp_order,
        mean_cell_area,
        second_order_divdamp_factor,
    );
    let bdy_divdamp = dycore_utils::_calculate_reduced_fourth_order_divdamp_coeff_at_nest_boundary(
        scal_divdamp,
        max_nudging_coefficient,
        dbl_eps,
    );
    let z_graddiv2_vn_wp = z_graddiv2_vn as wpfloat;
    vn + (scal_divdamp + bdy_divdamp * nudgecoeff_e) * z_graddiv2_vn_wp
}

/// ICON4Py's `apply_4th_order_divergence_damping.py` (formerly
/// `mo_solve_nonhydro_4th_order_divdamp`).
#[field_operator]
pub fn _apply_4th_order_divergence_damping(
    interpolated_fourth_order_divdamp_factor: Field<K, wpfloat>,
    z_graddiv2_vn: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    divdamp_order: i32,
    mean_cell_area: wpfloat,
    second_order_divdamp_factor: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    let scal_divdamp = dycore_utils::_calculate_fourth_order_divdamp_scaling_coeff(
        interpolated_fourth_order_divdamp_factor,
        divdamp_order,
        mean_cell_area,
        second_order_divdamp_factor,
    );
    let z_graddiv2_vn_wp = z_graddiv2_vn as wpfloat;
    vn + (scal_divdamp * z_graddiv2_vn_wp)
}

#[field_operator]
pub fn _apply_divergence_damping_and_update_vn(
    horizontal_gradient_of_normal_wind_divergence: Field<(Edge, K), vpfloat>,
    next_vn: Field<(Edge, K), wpfloat>,
    current_vn: Field<(Edge, K), wpfloat>,
    dwdz_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    predictor_normal_wind_advective_tendency: Field<(Edge, K), vpfloat>,
    corrector_normal_wind_advective_tendency: Field<(Edge, K), vpfloat>,
    normal_wind_tendency_due_to_slow_physics_process: Field<(Edge, K), vpfloat>,
    normal_wind_iau_increment: Field<(Edge, K), vpfloat>,
    second_order_divdamp_scaling_coeff: wpfloat,
    theta_v_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    horizontal_pressure_gradient: Field<(Edge, K), vpfloat>,
    horizontal_mask_for_3d_divdamp: Field<Edge, wpfloat>,
    scaling_factor_for_3d_divdamp: Field<K, wpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    nudgecoeff_e: Field<Edge, wpfloat>,
    geofac_grdiv: Field<(Edge, E2C2EO), wpfloat>,
    interpolated_fourth_order_divdamp_factor: Field<K, wpfloat>,
    advection_explicit_weight_parameter: wpfloat,
    advection_implicit_weight_parameter: wpfloat,
    dtime: wpfloat,
    is_iau_active: bool,
    iau_wgt_dyn: wpfloat,
    limited_area: bool,
    apply_2nd_order_divergence_damping: bool,
    apply_4th_order_divergence_damping: bool,
    divdamp_order: i32,
    mean_cell_area: wpfloat,
    second_order_divdamp_factor: wpfloat,
    max_nudging_coefficient: wpfloat,
    dbl_eps: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    // ICON starts the 3-D term at kstart_dd3d; ICON4Py runs it on every level, where the
    // scaling factor is zero above kstart_dd3d.
    let horizontal_gradient_of_total_divergence =
        _add_vertical_wind_derivative_to_divergence_damping(
            horizontal_mask_for_3d_divdamp,
            scaling_factor_for_3d_divdamp,
            inv_dual_edge_length,
            dwdz_at_cells_on_model_levels,
            horizontal_gradient_of_normal_wind_divergence,
        );

    let next_vn = _add_temporal_tendencies_to_vn_by_interpolating_between_time_levels(
        current_vn,
        predictor_normal_wind_advective_tendency,
        corrector_normal_wind_advective_tendency,
        normal_wind_tendency_due_to_slow_physics_process,
        theta_v_at_edges_on_model_levels,
        horizontal_pressure_gradient,
        dtime,
        advection_explicit_weight_parameter,
        advection_implicit_weight_parameter,
        1004.64,
    );

    let next_vn = if apply_2nd_order_divergence_damping {
        _apply_2nd_order_divergence_damping(
            horizontal_gradient_of_total_divergence,
            next_vn,
            second_order_divdamp_scaling_coeff,
        )
    } else {
        next_vn
    };

    let next_vn = if apply_4th_order_divergence_damping {
        let squared_horizontal_gradient_of_total_divergence =
            _compute_graddiv2_of_vn(geofac_grdiv, horizontal_gradient_of_total_divergence);
        if limited_area {
            _apply_weighted_2nd_and_4th_order_divergence_damping(
                interpolated_fourth_order_divdamp_factor,
                nudgecoeff_e,
                squared_horizontal_gradient_of_total_divergence,
                next_vn,
                divdamp_order,
                mean_cell_area,
                second_order_divdamp_factor,
                max_nudging_coefficient,
                dbl_eps,
            )
        } else {
            _apply_4th_order_divergence_damping(
                interpolated_fourth_order_divdamp_factor,
                squared_horizontal_gradient_of_total_divergence,
                next_vn,
                divdamp_order,
                mean_cell_area,
                second_order_divdamp_factor,
            )
        }
    } else {
        next_vn
    };

    if is_iau_active {
        _add_analysis_increments_to_vn(normal_wind_iau_increment, next_vn, iau_wgt_dyn)
    } else {
        next_vn
    }
}

/// Formerly `fused_solve_nonhydro_stencil_15_to_28_corrector`: vn advanced by the advective
/// tendencies of both steps, the physics tendency and the pressure gradient, then damped
/// (second order, fourth order or both; the fourth order enhanced towards the nest boundary
/// of a limited-area grid), with the IAU increment where `is_iau_active`.
#[program]
pub fn apply_divergence_damping_and_update_vn(
    horizontal_gradient_of_normal_wind_divergence: &Field<(Edge, K), vpfloat>,
    next_vn: &mut Field<(Edge, K), wpfloat>,
    current_vn: &Field<(Edge, K), wpfloat>,
    dwdz_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    predictor_normal_wind_advective_tendency: &Field<(Edge, K), vpfloat>,
    corrector_normal_wind_advective_tendency: &Field<(Edge, K), vpfloat>,
    normal_wind_tendency_due_to_slow_physics_process: &Field<(Edge, K), vpfloat>,
    normal_wind_iau_increment: &Field<(Edge, K), vpfloat>,
    second_order_divdamp_scaling_coeff: wpfloat,
    theta_v_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    horizontal_pressure_gradient: &Field<(Edge, K), vpfloat>,
    horizontal_mask_for_3d_divdamp: &Field<Edge, wpfloat>,
    scaling_factor_for_3d_divdamp: &Field<K, wpfloat>,
    inv_dual_edge_length: &Field<Edge, wpfloat>,
    nudgecoeff_e: &Field<Edge, wpfloat>,
    geofac_grdiv: &Field<(Edge, E2C2EO), wpfloat>,
    interpolated_fourth_order_divdamp_factor: &Field<K, wpfloat>,
    advection_explicit_weight_parameter: wpfloat,
    advection_implicit_weight_parameter: wpfloat,
    dtime: wpfloat,
    #[static_arg] is_iau_active: bool,
    iau_wgt_dyn: wpfloat,
    #[static_arg] limited_area: bool,
    #[static_arg] apply_2nd_order_divergence_damping: bool,
    #[static_arg] apply_4th_order_divergence_damping: bool,
    #[static_arg] divdamp_order: i32,
    mean_cell_area: wpfloat,
    second_order_divdamp_factor: wpfloat,
    max_nudging_coefficient: wpfloat,
    dbl_eps: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_divergence_damping_and_update_vn(
        horizontal_gradient_of_normal_wind_divergence,
        next_vn,
        current_vn,
        dwdz_at_cells_on_model_levels,
        predictor_normal_wind_advective_tendency,
        corrector_normal_wind_advective_tendency,
        normal_wind_tendency_due_to_slow_physics_process,
        normal_wind_iau_increment,
        second_order_divdamp_scaling_coeff,
        theta_v_at_edges_on_model_levels,
        horizontal_pressure_gradient,
        horizontal_mask_for_3d_divdamp,
        scaling_factor_for_3d_divdamp,
        inv_dual_edge_length,
        nudgecoeff_e,
        geofac_grdiv,
        interpolated_fourth_order_divdamp_factor,
        advection_explicit_weight_parameter,
        advection_implicit_weight_parameter,
        dtime,
        is_iau_active,
        iau_wgt_dyn,
        limited_area,
        apply_2nd_order_divergence_damping,
        apply_4th_order_divergence_damping,
        divdamp_order,
        mean_cell_area,
        second_order_divdamp_factor,
        max_nudging_coefficient,
        dbl_eps,
    )
    .write_to(
        next_vn,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
