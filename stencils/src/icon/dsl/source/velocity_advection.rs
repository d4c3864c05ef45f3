// Velocity advection "1 to 7" and its parts, written against ICON's `vpfloat`/`wpfloat` with
// ICON4Py's `astype` casts, in ICON4Py's operation order. Included by `velocity_advection::double`
// and `::mixed`, each of which declares the two aliases first.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, Edge, Vertex, E2C, E2C2E, E2V, K, V2C};

/// Formerly `mo_velocity_advection_stencil_01`.
#[field_operator]
pub fn _compute_tangential_wind(
    vn: Field<(Edge, K), wpfloat>,
    rbf_vec_coeff_e: Field<(Edge, E2C2E), wpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let vt = neighbor_sum(rbf_vec_coeff_e * vn.at(E2C2E), E2C2E);
    vt as vpfloat
}

#[program]
pub fn compute_tangential_wind(
    vn: &Field<(Edge, K), wpfloat>,
    rbf_vec_coeff_e: &Field<(Edge, E2C2E), wpfloat>,
    vt: &mut Field<(Edge, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_tangential_wind(vn, rbf_vec_coeff_e).write_to(
        vt,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Formerly `mo_solve_nonhydro_stencil_37` / `mo_velocity_advection_stencil_05`: copies vn and vt
/// and computes the kinetic energy.
#[field_operator]
pub fn _compute_horizontal_kinetic_energy(
    vn: Field<(Edge, K), wpfloat>,
    vt: Field<(Edge, K), vpfloat>,
) -> (
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
) {
    let vn_ie = vn;
    let z_vt_ie = vt;
    let z_kin_hor_e = 0.5 * (vn * vn + (vt * vt) as wpfloat);
    (vn_ie as vpfloat, z_vt_ie, z_kin_hor_e as vpfloat)
}

#[program]
pub fn compute_horizontal_kinetic_energy(
    vn: &Field<(Edge, K), wpfloat>,
    vt: &Field<(Edge, K), vpfloat>,
    vn_ie: &mut Field<(Edge, K), vpfloat>,
    z_vt_ie: &mut Field<(Edge, K), vpfloat>,
    z_kin_hor_e: &mut Field<(Edge, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_horizontal_kinetic_energy(vn, vt).write_to(
        (vn_ie, z_vt_ie, z_kin_hor_e),
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}


/// Formerly `mo_velocity_advection_stencil_02`; reads level k−1, so its domain starts at K = 1.
#[field_operator]
pub fn _interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges(
    wgtfac_e: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    vt: Field<(Edge, K), vpfloat>,
) -> (Field<(Edge, K), vpfloat>, Field<(Edge, K), vpfloat>) {
    let wgtfac_e_wp = wgtfac_e as wpfloat;
    let vn_ie_wp = wgtfac_e_wp * vn + (1.0 - wgtfac_e_wp) * vn.at(K - 1);
    let (_, _, z_kin_hor_e) = _compute_horizontal_kinetic_energy(vn, vt);
    (vn_ie_wp as vpfloat, z_kin_hor_e)
}

#[program]
pub fn interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges(
    wgtfac_e: &Field<(Edge, K), vpfloat>,
    vn: &Field<(Edge, K), wpfloat>,
    vt: &Field<(Edge, K), vpfloat>,
    vn_ie: &mut Field<(Edge, K), vpfloat>,
    z_kin_hor_e: &mut Field<(Edge, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges(wgtfac_e, vn, vt).write_to(
        (vn_ie, z_kin_hor_e),
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// `wgtfac_e·x + (1 − wgtfac_e)·x[k−1]` above the surface, `x` itself at K = 0, computed in
/// wpfloat.
#[field_operator]
pub fn _interpolate_to_half_levels(
    wgtfac_e: Field<(Edge, K), vpfloat>,
    x: Field<(Edge, K), wpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let wgtfac_e_wp = wgtfac_e as wpfloat;
    let x_ie_wp = wgtfac_e_wp * x + (1.0 - wgtfac_e_wp) * x.at(K - 1);
    concat_where(K > 0, x_ie_wp as vpfloat, x as vpfloat)
}

/// The kinetic energy alone: ICON4Py's `_compute_horizontal_kinetic_energy` of
/// `compute_diagnostics_from_normal_wind.py`, renamed here because the operator of that name
/// (above) also returns the copies of vn and vt.
#[field_operator]
pub fn _kinetic_energy(
    vn: Field<(Edge, K), wpfloat>,
    vt: Field<(Edge, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let z_kin_hor_e_wp = 0.5 * (vn * vn + (vt * vt) as wpfloat);
    z_kin_hor_e_wp as vpfloat
}

/// Formerly `mo_velocity_advection_stencil_04` / `mo_solve_nonhydro_stencil_35`.
#[field_operator]
pub fn _compute_contravariant_correction(
    vn: Field<(Edge, K), wpfloat>,
    ddxn_z_full: Field<(Edge, K), vpfloat>,
    ddxt_z_full: Field<(Edge, K), vpfloat>,
    vt: Field<(Edge, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let ddxn_z_full_wp = ddxn_z_full as wpfloat;
    let z_w_concorr_me_wp = vn * ddxn_z_full_wp + (vt * ddxt_z_full) as wpfloat;
    z_w_concorr_me_wp as vpfloat
}

/// Cell to vertex interpolation; V2C has skip values at pentagons.
#[field_operator]
pub fn _mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl(
    p_cell_in: Field<(Cell, K), wpfloat>,
    c_intp: Field<(Vertex, V2C), wpfloat>,
) -> Field<(Vertex, K), vpfloat> {
    let p_vert_out_wp = neighbor_sum(p_cell_in.at(V2C) * c_intp, V2C);
    p_vert_out_wp as vpfloat
}

/// Formerly `mo_velocity_advection_stencil_07`. The difference of `z_w_v` is taken in vpfloat,
/// as in ICON4Py.
#[field_operator]
pub fn _compute_horizontal_advection_term_for_vertical_velocity(
    vn_ie: Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    w: Field<(Cell, K), wpfloat>,
    z_vt_ie: Field<(Edge, K), vpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
    tangent_orientation: Field<Edge, wpfloat>,
    z_w_v: Field<(Vertex, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let z_vt_ie_wp = z_vt_ie as wpfloat;
    let vn_ie_wp = vn_ie as wpfloat;
    let z_v_grad_w_wp = vn_ie_wp * inv_dual_edge_length * (w.at(E2C[0]) - w.at(E2C[1]))
        + z_vt_ie_wp
            * inv_primal_edge_length
            * tangent_orientation
            * (z_w_v.at(E2V[0]) - z_w_v.at(E2V[1])) as wpfloat;
    z_v_grad_w_wp as vpfloat
}

/// Formerly `mo_velocity_advection_stencil_06` / `mo_solve_nonhydro_stencil_38`: vn at the
/// surface half level, extrapolated from the three levels above.
#[field_operator]
pub fn _extrapolate_at_top(
    wgtfacq_e: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let wgtfacq_e_wp = wgtfacq_e as wpfloat;
    let vn_ie_wp = wgtfacq_e_wp.at(K - 1) * vn.at(K - 1)
        + wgtfacq_e_wp.at(K - 2) * vn.at(K - 2)
        + wgtfacq_e_wp.at(K - 3) * vn.at(K - 3);
    vn_ie_wp as vpfloat
}

/// ICON4Py passes the vpfloat `tangential_wind` to `_interpolate_to_half_levels`, whose `x` is
/// wpfloat; the widening cast here is exact, so it changes no value.
#[field_operator]
pub fn _compute_diagnostics_from_normal_wind(
    tangential_wind_on_half_levels: Field<(Edge, K), vpfloat>,
    contravariant_correction_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    horizontal_advection_of_w_at_edges_on_half_levels: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    w: Field<(Cell, K), wpfloat>,
    rbf_vec_coeff_e: Field<(Edge, E2C2E), wpfloat>,
    wgtfac_e: Field<(Edge, K), vpfloat>,
    ddxn_z_full: Field<(Edge, K), vpfloat>,
    ddxt_z_full: Field<(Edge, K), vpfloat>,
    c_intp: Field<(Vertex, V2C), wpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
    tangent_orientation: Field<Edge, wpfloat>,
    skip_compute_predictor_vertical_advection: bool,
    nflatlev: i32,
) -> (
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
) {
    let tangential_wind = _compute_tangential_wind(vn, rbf_vec_coeff_e);
    let horizontal_kinetic_energy_at_edges_on_model_levels = _kinetic_energy(vn, tangential_wind);
    let vn_on_half_levels = _interpolate_to_half_levels(wgtfac_e, vn);
    let tangential_wind_on_half_levels = if !skip_compute_predictor_vertical_advection {
        _interpolate_to_half_levels(wgtfac_e, tangential_wind as wpfloat)
    } else {
        tangential_wind_on_half_levels
    };
    let contravariant_correction_at_edges_on_model_levels = concat_where(
        K >= nflatlev,
        _compute_contravariant_correction(vn, ddxn_z_full, ddxt_z_full, tangential_wind),
        contravariant_correction_at_edges_on_model_levels,
    );
    let w_at_vertices = _mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl(w, c_intp);
    let horizontal_advection_of_w_at_edges_on_half_levels =
        if !skip_compute_predictor_vertical_advection {
            _compute_horizontal_advection_term_for_vertical_velocity(
                vn_on_half_levels,
                inv_dual_edge_length,
                w,
                tangential_wind_on_half_levels,
                inv_primal_edge_length,
                tangent_orientation,
                w_at_vertices,
            )
        } else {
            horizontal_advection_of_w_at_edges_on_half_levels
        };
    (
        tangential_wind,
        tangential_wind_on_half_levels,
        vn_on_half_levels,
        horizontal_kinetic_energy_at_edges_on_model_levels,
        contravariant_correction_at_edges_on_model_levels,
        horizontal_advection_of_w_at_edges_on_half_levels,
    )
}

/// Formerly `fused_velocity_advection_stencil_1_to_7_predictor`. The first call covers K
/// `[vertical_start, vertical_end − 1)`; the second extrapolates `vn_on_half_levels` at the
/// surface half level `vertical_end − 1`. ICON4Py's program declares
/// `tangential_wind_on_half_levels` wpfloat, but its field operator reads and returns it as
/// vpfloat; it is vpfloat here, as the operator computes it.
#[program]
pub fn compute_diagnostics_from_normal_wind(
    tangential_wind: &mut Field<(Edge, K), vpfloat>,
    tangential_wind_on_half_levels: &mut Field<(Edge, K), vpfloat>,
    vn_on_half_levels: &mut Field<(Edge, K), vpfloat>,
    horizontal_kinetic_energy_at_edges_on_model_levels: &mut Field<(Edge, K), vpfloat>,
    contravariant_correction_at_edges_on_model_levels: &mut Field<(Edge, K), vpfloat>,
    horizontal_advection_of_w_at_edges_on_half_levels: &mut Field<(Edge, K), vpfloat>,
    vn: &Field<(Edge, K), wpfloat>,
    w: &Field<(Cell, K), wpfloat>,
    rbf_vec_coeff_e: &Field<(Edge, E2C2E), wpfloat>,
    wgtfac_e: &Field<(Edge, K), vpfloat>,
    ddxn_z_full: &Field<(Edge, K), vpfloat>,
    ddxt_z_full: &Field<(Edge, K), vpfloat>,
    wgtfacq_e: &Field<(Edge, K), vpfloat>,
    c_intp: &Field<(Vertex, V2C), wpfloat>,
    inv_dual_edge_length: &Field<Edge, wpfloat>,
    inv_primal_edge_length: &Field<Edge, wpfloat>,
    tangent_orientation: &Field<Edge, wpfloat>,
    #[static_arg] skip_compute_predictor_vertical_advection: bool,
    nflatlev: i32,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_diagnostics_from_normal_wind(
        tangential_wind_on_half_levels,
        contravariant_correction_at_edges_on_model_levels,
        horizontal_advection_of_w_at_edges_on_half_levels,
        vn,
        w,
        rbf_vec_coeff_e,
        wgtfac_e,
        ddxn_z_full,
        ddxt_z_full,
        c_intp,
        inv_dual_edge_length,
        inv_primal_edge_length,
        tangent_orientation,
        skip_compute_predictor_vertical_advection,
        nflatlev,
    )
    .write_to(
        (
            tangential_wind,
            tangential_wind_on_half_levels,
            vn_on_half_levels,
            horizontal_kinetic_energy_at_edges_on_model_levels,
            contravariant_correction_at_edges_on_model_levels,
            horizontal_advection_of_w_at_edges_on_half_levels,
        ),
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end - 1],
    );
    _extrapolate_at_top(wgtfacq_e, vn).write_to(
        vn_on_half_levels,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_end - 1..vertical_end],
    );
}
