//! The diffusion granule's stencils (ICON4Py `atmosphere/diffusion/stencils/*.py`), field
//! operator by field operator, in ICON4Py's operation order. ICON4Py's `_name` field operators
//! keep their names, so that each program `name` can call its operator `_name`.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, Edge, Vertex, C2E, C2E2C, C2E2CO, E2C, E2C2V, K};

/// The programs written against ICON's `vpfloat`/`wpfloat` (`source/*.rs`), with `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/nabla4.rs");
    include!("source/nabla2.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/nabla4.rs");
    include!("source/nabla2.rs");
}

pub use double::*;

// ---------------------------------------------------------------------------------------------
// ∇⁴ of vn and its application (diffusion steps 4 and 9)
// ---------------------------------------------------------------------------------------------

#[field_operator]
pub fn _apply_nabla2_and_nabla4_to_vn(
    area_edge: Field<Edge, f64>,
    kh_smag_e: Field<(Edge, K), f64>,
    z_nabla2_e: Field<(Edge, K), f64>,
    z_nabla4_e2: Field<(Edge, K), f64>,
    diff_multfac_vn: Field<K, f64>,
    nudgecoeff_e: Field<Edge, f64>,
    vn: Field<(Edge, K), f64>,
    nudgezone_diff: f64,
) -> Field<(Edge, K), f64> {
    let area_edge_broadcast = broadcast(area_edge, (Edge, K));
    vn + area_edge
        * ((nudgezone_diff * nudgecoeff_e).max(kh_smag_e) * z_nabla2_e
            - area_edge_broadcast * diff_multfac_vn * z_nabla4_e2)
}

#[program]
pub fn apply_nabla2_and_nabla4_to_vn(
    area_edge: &Field<Edge, f64>,
    kh_smag_e: &Field<(Edge, K), f64>,
    z_nabla2_e: &Field<(Edge, K), f64>,
    z_nabla4_e2: &Field<(Edge, K), f64>,
    diff_multfac_vn: &Field<K, f64>,
    nudgecoeff_e: &Field<Edge, f64>,
    vn: &mut Field<(Edge, K), f64>,
    nudgezone_diff: f64,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_nabla2_and_nabla4_to_vn(
        area_edge,
        kh_smag_e,
        z_nabla2_e,
        z_nabla4_e2,
        diff_multfac_vn,
        nudgecoeff_e,
        vn,
        nudgezone_diff,
    )
    .write_to(
        vn,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _apply_nabla2_and_nabla4_global_to_vn(
    area_edge: Field<Edge, f64>,
    kh_smag_e: Field<(Edge, K), f64>,
    z_nabla2_e: Field<(Edge, K), f64>,
    z_nabla4_e2: Field<(Edge, K), f64>,
    diff_multfac_vn: Field<K, f64>,
    vn: Field<(Edge, K), f64>,
) -> Field<(Edge, K), f64> {
    vn + area_edge * (kh_smag_e * z_nabla2_e - diff_multfac_vn * z_nabla4_e2 * area_edge)
}

#[program]
pub fn apply_nabla2_and_nabla4_global_to_vn(
    area_edge: &Field<Edge, f64>,
    kh_smag_e: &Field<(Edge, K), f64>,
    z_nabla2_e: &Field<(Edge, K), f64>,
    z_nabla4_e2: &Field<(Edge, K), f64>,
    diff_multfac_vn: &Field<K, f64>,
    vn: &mut Field<(Edge, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_nabla2_and_nabla4_global_to_vn(
        area_edge,
        kh_smag_e,
        z_nabla2_e,
        z_nabla4_e2,
        diff_multfac_vn,
        vn,
    )
    .write_to(
        vn,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _apply_nabla2_to_vn_in_lateral_boundary(
    z_nabla2_e: Field<(Edge, K), f64>,
    area_edge: Field<Edge, f64>,
    vn: Field<(Edge, K), f64>,
    fac_bdydiff_v: f64,
) -> Field<(Edge, K), f64> {
    vn + (area_edge * fac_bdydiff_v * z_nabla2_e)
}

#[program]
pub fn apply_nabla2_to_vn_in_lateral_boundary(
    z_nabla2_e: &Field<(Edge, K), f64>,
    area_edge: &Field<Edge, f64>,
    vn: &mut Field<(Edge, K), f64>,
    fac_bdydiff_v: f64,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_nabla2_to_vn_in_lateral_boundary(z_nabla2_e, area_edge, vn, fac_bdydiff_v).write_to(
        vn,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// Stencils "04 05 06" fused: ∇⁴, then the ∇²/∇⁴ update of vn inside the second nudge line and
/// beyond, and (limited area only) the ∇² boundary update before it.
#[field_operator]
pub fn _apply_diffusion_to_vn(
    u_vert: Field<(Vertex, K), f64>,
    v_vert: Field<(Vertex, K), f64>,
    primal_normal_vert_v1: Field<(Edge, E2C2V), f64>,
    primal_normal_vert_v2: Field<(Edge, E2C2V), f64>,
    z_nabla2_e: Field<(Edge, K), f64>,
    inv_vert_vert_length: Field<Edge, f64>,
    inv_primal_edge_length: Field<Edge, f64>,
    area_edge: Field<Edge, f64>,
    kh_smag_e: Field<(Edge, K), f64>,
    diff_multfac_vn: Field<K, f64>,
    nudgecoeff_e: Field<Edge, f64>,
    vn: Field<(Edge, K), f64>,
    nudgezone_diff: f64,
    fac_bdydiff_v: f64,
    start_2nd_nudge_line_idx_e: i32,
    limited_area: bool,
) -> Field<(Edge, K), f64> {
    let z_nabla4_e2 = _calculate_nabla4(
        u_vert,
        v_vert,
        primal_normal_vert_v1,
        primal_normal_vert_v2,
        z_nabla2_e,
        inv_vert_vert_length,
        inv_primal_edge_length,
    );
    if limited_area {
        concat_where(
            Edge >= start_2nd_nudge_line_idx_e,
            _apply_nabla2_and_nabla4_to_vn(
                area_edge,
                kh_smag_e,
                z_nabla2_e,
                z_nabla4_e2,
                diff_multfac_vn,
                nudgecoeff_e,
                vn,
                nudgezone_diff,
            ),
            _apply_nabla2_to_vn_in_lateral_boundary(z_nabla2_e, area_edge, vn, fac_bdydiff_v),
        )
    } else {
        concat_where(
            Edge >= start_2nd_nudge_line_idx_e,
            _apply_nabla2_and_nabla4_global_to_vn(
                area_edge,
                kh_smag_e,
                z_nabla2_e,
                z_nabla4_e2,
                diff_multfac_vn,
                vn,
            ),
            vn,
        )
    }
}

#[program]
pub fn apply_diffusion_to_vn(
    u_vert: &Field<(Vertex, K), f64>,
    v_vert: &Field<(Vertex, K), f64>,
    primal_normal_vert_v1: &Field<(Edge, E2C2V), f64>,
    primal_normal_vert_v2: &Field<(Edge, E2C2V), f64>,
    z_nabla2_e: &Field<(Edge, K), f64>,
    inv_vert_vert_length: &Field<Edge, f64>,
    inv_primal_edge_length: &Field<Edge, f64>,
    area_edge: &Field<Edge, f64>,
    kh_smag_e: &Field<(Edge, K), f64>,
    diff_multfac_vn: &Field<K, f64>,
    nudgecoeff_e: &Field<Edge, f64>,
    vn: &mut Field<(Edge, K), f64>,
    nudgezone_diff: f64,
    fac_bdydiff_v: f64,
    start_2nd_nudge_line_idx_e: i32,
    #[static_arg] limited_area: bool,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_diffusion_to_vn(
        u_vert,
        v_vert,
        primal_normal_vert_v1,
        primal_normal_vert_v2,
        z_nabla2_e,
        inv_vert_vert_length,
        inv_primal_edge_length,
        area_edge,
        kh_smag_e,
        diff_multfac_vn,
        nudgecoeff_e,
        vn,
        nudgezone_diff,
        fac_bdydiff_v,
        start_2nd_nudge_line_idx_e,
        limited_area,
    )
    .write_to(
        vn,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

// ---------------------------------------------------------------------------------------------
// ∇²vn and Smagorinsky coefficients (diffusion step 4, "stencil 01")
// ---------------------------------------------------------------------------------------------

#[field_operator]
pub fn _calculate_nabla2_and_smag_coefficients_for_vn(
    diff_multfac_smag: Field<K, f64>,
    tangent_orientation: Field<Edge, f64>,
    inv_primal_edge_length: Field<Edge, f64>,
    inv_vert_vert_length: Field<Edge, f64>,
    u_vert: Field<(Vertex, K), f64>,
    v_vert: Field<(Vertex, K), f64>,
    primal_normal_vert_x: Field<(Edge, E2C2V), f64>,
    primal_normal_vert_y: Field<(Edge, E2C2V), f64>,
    dual_normal_vert_x: Field<(Edge, E2C2V), f64>,
    dual_normal_vert_y: Field<(Edge, E2C2V), f64>,
    vn: Field<(Edge, K), f64>,
    smag_limit: Field<K, f64>,
    smag_offset: f64,
) -> (
    Field<(Edge, K), f64>,
    Field<(Edge, K), f64>,
    Field<(Edge, K), f64>,
) {
    let v_n = u_vert.at(E2C2V) * primal_normal_vert_x + v_vert.at(E2C2V) * primal_normal_vert_y;
    let nabla2_of_vn = (v_n[E2C2V(0)] + v_n[E2C2V(1)] - 2.0 * vn)
        * (inv_primal_edge_length * inv_primal_edge_length)
        + (v_n[E2C2V(2)] + v_n[E2C2V(3)] - 2.0 * vn)
            * (inv_vert_vert_length * inv_vert_vert_length);
    // The lengths in the denominators are twice those of the diffusion stencil.
    let nabla2_of_vn = 4.0 * nabla2_of_vn;
    let v_t = u_vert.at(E2C2V) * dual_normal_vert_x + v_vert.at(E2C2V) * dual_normal_vert_y;
    let l_p = tangent_orientation * inv_primal_edge_length;
    let l_vv = inv_vert_vert_length;
    let kh_smag_part1 =
        (v_n[E2C2V(3)] - v_n[E2C2V(2)]) * l_vv - (v_t[E2C2V(1)] - v_t[E2C2V(0)]) * l_p;
    let kh_smag_part2 =
        (v_n[E2C2V(1)] - v_n[E2C2V(0)]) * l_p + (v_t[E2C2V(3)] - v_t[E2C2V(2)]) * l_vv;
    let kh_smag =
        diff_multfac_smag * (kh_smag_part1 * kh_smag_part1 + kh_smag_part2 * kh_smag_part2).sqrt();
    let kh_smag_for_diffusion = (kh_smag - smag_offset).max(0.0);
    let kh_smag_for_diffusion = kh_smag_for_diffusion.min(smag_limit);
    (kh_smag_for_diffusion, kh_smag, nabla2_of_vn)
}

#[program]
pub fn calculate_nabla2_and_smag_coefficients_for_vn(
    diff_multfac_smag: &Field<K, f64>,
    tangent_orientation: &Field<Edge, f64>,
    inv_primal_edge_length: &Field<Edge, f64>,
    inv_vert_vert_length: &Field<Edge, f64>,
    u_vert: &Field<(Vertex, K), f64>,
    v_vert: &Field<(Vertex, K), f64>,
    primal_normal_vert_x: &Field<(Edge, E2C2V), f64>,
    primal_normal_vert_y: &Field<(Edge, E2C2V), f64>,
    dual_normal_vert_x: &Field<(Edge, E2C2V), f64>,
    dual_normal_vert_y: &Field<(Edge, E2C2V), f64>,
    vn: &Field<(Edge, K), f64>,
    smag_limit: &Field<K, f64>,
    kh_smag_e: &mut Field<(Edge, K), f64>,
    kh_smag_ec: &mut Field<(Edge, K), f64>,
    z_nabla2_e: &mut Field<(Edge, K), f64>,
    smag_offset: f64,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _calculate_nabla2_and_smag_coefficients_for_vn(
        diff_multfac_smag,
        tangent_orientation,
        inv_primal_edge_length,
        inv_vert_vert_length,
        u_vert,
        v_vert,
        primal_normal_vert_x,
        primal_normal_vert_y,
        dual_normal_vert_x,
        dual_normal_vert_y,
        vn,
        smag_limit,
        smag_offset,
    )
    .write_to(
        (kh_smag_e, kh_smag_ec, z_nabla2_e),
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

// ---------------------------------------------------------------------------------------------
// Turbulence diagnostics (diffusion step 5)
// ---------------------------------------------------------------------------------------------

#[field_operator]
pub fn _temporary_fields_for_turbulence_diagnostics(
    kh_smag_ec: Field<(Edge, K), f64>,
    vn: Field<(Edge, K), f64>,
    e_bln_c_s: Field<(Cell, C2E), f64>,
    geofac_div: Field<(Cell, C2E), f64>,
    diff_multfac_smag: Field<K, f64>,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    let kh_c = neighbor_sum(kh_smag_ec.at(C2E) * e_bln_c_s, C2E) / diff_multfac_smag;
    let div = neighbor_sum(vn.at(C2E) * geofac_div, C2E);
    (kh_c, div)
}

#[program]
pub fn temporary_fields_for_turbulence_diagnostics(
    kh_smag_ec: &Field<(Edge, K), f64>,
    vn: &Field<(Edge, K), f64>,
    e_bln_c_s: &Field<(Cell, C2E), f64>,
    geofac_div: &Field<(Cell, C2E), f64>,
    diff_multfac_smag: &Field<K, f64>,
    kh_c: &mut Field<(Cell, K), f64>,
    div: &mut Field<(Cell, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _temporary_fields_for_turbulence_diagnostics(
        kh_smag_ec,
        vn,
        e_bln_c_s,
        geofac_div,
        diff_multfac_smag,
    )
    .write_to(
        (kh_c, div),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _calculate_diagnostics_for_turbulence(
    div: Field<(Cell, K), f64>,
    kh_c: Field<(Cell, K), f64>,
    wgtfac_c: Field<(Cell, K), f64>,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    let div_ic = wgtfac_c * div + (1.0 - wgtfac_c) * div.at(K - 1);
    let hdef_ic = wgtfac_c * kh_c + (1.0 - wgtfac_c) * kh_c.at(K - 1);
    let hdef_ic = hdef_ic * hdef_ic;
    (div_ic, hdef_ic)
}

#[field_operator]
pub fn _calculate_diagnostic_quantities_for_turbulence(
    kh_smag_ec: Field<(Edge, K), f64>,
    vn: Field<(Edge, K), f64>,
    e_bln_c_s: Field<(Cell, C2E), f64>,
    geofac_div: Field<(Cell, C2E), f64>,
    diff_multfac_smag: Field<K, f64>,
    wgtfac_c: Field<(Cell, K), f64>,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    let (kh_c, div) = _temporary_fields_for_turbulence_diagnostics(
        kh_smag_ec,
        vn,
        e_bln_c_s,
        geofac_div,
        diff_multfac_smag,
    );
    _calculate_diagnostics_for_turbulence(div, kh_c, wgtfac_c)
}

#[program]
pub fn calculate_diagnostic_quantities_for_turbulence(
    kh_smag_ec: &Field<(Edge, K), f64>,
    vn: &Field<(Edge, K), f64>,
    e_bln_c_s: &Field<(Cell, C2E), f64>,
    geofac_div: &Field<(Cell, C2E), f64>,
    diff_multfac_smag: &Field<K, f64>,
    wgtfac_c: &Field<(Cell, K), f64>,
    div_ic: &mut Field<(Cell, K), f64>,
    hdef_ic: &mut Field<(Cell, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _calculate_diagnostic_quantities_for_turbulence(
        kh_smag_ec,
        vn,
        e_bln_c_s,
        geofac_div,
        diff_multfac_smag,
        wgtfac_c,
    )
    .write_to(
        (div_ic, hdef_ic),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

// ---------------------------------------------------------------------------------------------
// Diffusion of w and horizontal gradients for turbulence (diffusion step 11)
// ---------------------------------------------------------------------------------------------

#[field_operator]
pub fn _calculate_horizontal_gradients_for_turbulence(
    w: Field<(Cell, K), f64>,
    geofac_grg_x: Field<(Cell, C2E2CO), f64>,
    geofac_grg_y: Field<(Cell, C2E2CO), f64>,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    let dwdx = neighbor_sum(geofac_grg_x * w.at(C2E2CO), C2E2CO);
    let dwdy = neighbor_sum(geofac_grg_y * w.at(C2E2CO), C2E2CO);
    (dwdx, dwdy)
}

#[field_operator]
pub fn _apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(
    area: Field<Cell, f64>,
    geofac_n2s: Field<(Cell, C2E2CO), f64>,
    geofac_grg_x: Field<(Cell, C2E2CO), f64>,
    geofac_grg_y: Field<(Cell, C2E2CO), f64>,
    w_old: Field<(Cell, K), f64>,
    type_shear: i32,
    dwdx: Field<(Cell, K), f64>,
    dwdy: Field<(Cell, K), f64>,
    diff_multfac_w: f64,
    diff_multfac_n2w: Field<K, f64>,
    nrdmax: i32,
    interior_idx: i32,
    halo_idx: i32,
) -> (
    Field<(Cell, K), f64>,
    Field<(Cell, K), f64>,
    Field<(Cell, K), f64>,
) {
    let (dwdx, dwdy) = if type_shear == 2 {
        concat_where(
            K > 0,
            _calculate_horizontal_gradients_for_turbulence(w_old, geofac_grg_x, geofac_grg_y),
            (dwdx, dwdy),
        )
    } else {
        (dwdx, dwdy)
    };
    let z_nabla2_c = _calculate_nabla2_for_w(w_old, geofac_n2s);
    let w = concat_where(
        (Cell >= interior_idx) & (Cell < halo_idx),
        _apply_nabla2_to_w(area, z_nabla2_c, geofac_n2s, w_old, diff_multfac_w),
        w_old,
    );
    let w = concat_where(
        (K > 0) & (K < nrdmax) & (Cell >= interior_idx) & (Cell < halo_idx),
        _apply_nabla2_to_w_in_upper_damping_layer(w, diff_multfac_n2w, area, z_nabla2_c),
        w,
    );
    (w, dwdx, dwdy)
}

#[program]
pub fn apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(
    area: &Field<Cell, f64>,
    geofac_n2s: &Field<(Cell, C2E2CO), f64>,
    geofac_grg_x: &Field<(Cell, C2E2CO), f64>,
    geofac_grg_y: &Field<(Cell, C2E2CO), f64>,
    w_old: &Field<(Cell, K), f64>,
    w: &mut Field<(Cell, K), f64>,
    #[static_arg] type_shear: i32,
    dwdx: &mut Field<(Cell, K), f64>,
    dwdy: &mut Field<(Cell, K), f64>,
    diff_multfac_w: f64,
    diff_multfac_n2w: &Field<K, f64>,
    nrdmax: i32,
    interior_idx: i32,
    halo_idx: i32,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(
        area,
        geofac_n2s,
        geofac_grg_x,
        geofac_grg_y,
        w_old,
        type_shear,
        dwdx,
        dwdy,
        diff_multfac_w,
        diff_multfac_n2w,
        nrdmax,
        interior_idx,
        halo_idx,
    )
    .write_to(
        (w, dwdx, dwdy),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

// ---------------------------------------------------------------------------------------------
// Cold-pool enhancement of the Smagorinsky coefficient (diffusion step 13)
// ---------------------------------------------------------------------------------------------

#[field_operator]
pub fn _temporary_field_for_grid_point_cold_pools_enhancement(
    theta_v: Field<(Cell, K), f64>,
    theta_ref_mc: Field<(Cell, K), f64>,
    thresh_tdiff: f64,
    smallest_vpfloat: f64,
) -> Field<(Cell, K), f64> {
    let tdiff = theta_v - neighbor_sum(theta_v.at(C2E2C), C2E2C) / 3.0;
    let trefdiff = theta_ref_mc - neighbor_sum(theta_ref_mc.at(C2E2C), C2E2C) / 3.0;
    select(
        ((tdiff - trefdiff) < thresh_tdiff) & (trefdiff < 0.0)
            | (tdiff - trefdiff < 1.5 * thresh_tdiff),
        (thresh_tdiff - tdiff + trefdiff) * 5.0e-4,
        smallest_vpfloat,
    )
}

#[field_operator]
pub fn _enhance_diffusion_coefficient_for_grid_point_cold_pools(
    kh_smag_e: Field<(Edge, K), f64>,
    enh_diffu_3d: Field<(Cell, K), f64>,
) -> Field<(Edge, K), f64> {
    kh_smag_e.max(max_over(enh_diffu_3d.at(E2C), E2C))
}

#[field_operator]
pub fn _calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(
    theta_v: Field<(Cell, K), f64>,
    theta_ref_mc: Field<(Cell, K), f64>,
    thresh_tdiff: f64,
    smallest_vpfloat: f64,
    kh_smag_e: Field<(Edge, K), f64>,
) -> Field<(Edge, K), f64> {
    let enh_diffu_3d = _temporary_field_for_grid_point_cold_pools_enhancement(
        theta_v,
        theta_ref_mc,
        thresh_tdiff,
        smallest_vpfloat,
    );
    _enhance_diffusion_coefficient_for_grid_point_cold_pools(kh_smag_e, enh_diffu_3d)
}

#[program]
pub fn calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(
    theta_v: &Field<(Cell, K), f64>,
    theta_ref_mc: &Field<(Cell, K), f64>,
    thresh_tdiff: f64,
    smallest_vpfloat: f64,
    kh_smag_e: &mut Field<(Edge, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(
        theta_v,
        theta_ref_mc,
        thresh_tdiff,
        smallest_vpfloat,
        kh_smag_e,
    )
    .write_to(
        kh_smag_e,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

// ---------------------------------------------------------------------------------------------
// Diffusion of θ and the exner update (diffusion step 14)
// ---------------------------------------------------------------------------------------------

/// Truly horizontal diffusion over steep points: θ of each C2E2C neighbour is read at the level
/// `k + zd_vertoffset` and the one below it (GT4Py `as_offset(Koff, …)`), and interpolated with
/// `vcoef`.
#[field_operator]
pub fn _truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
    zd_vertoffset: Field<(Cell, C2E2C, K), i32>,
    zd_diffcoef: Field<(Cell, K), f64>,
    geofac_n2s_c: Field<Cell, f64>,
    geofac_n2s_nbh: Field<(Cell, C2E2C), f64>,
    vcoef: Field<(Cell, C2E2C, K), f64>,
    theta_v: Field<(Cell, K), f64>,
    z_temp: Field<(Cell, K), f64>,
) -> Field<(Cell, K), f64> {
    let theta_v_0 = theta_v.at(C2E2C[0]).at(K + zd_vertoffset[C2E2C(0)]);
    let theta_v_1 = theta_v.at(C2E2C[1]).at(K + zd_vertoffset[C2E2C(1)]);
    let theta_v_2 = theta_v.at(C2E2C[2]).at(K + zd_vertoffset[C2E2C(2)]);
    let theta_v_0_m1 = theta_v.at(C2E2C[0]).at(K + (zd_vertoffset[C2E2C(0)] + 1));
    let theta_v_1_m1 = theta_v.at(C2E2C[1]).at(K + (zd_vertoffset[C2E2C(1)] + 1));
    let theta_v_2_m1 = theta_v.at(C2E2C[2]).at(K + (zd_vertoffset[C2E2C(2)] + 1));
    let sum_tmp = theta_v * geofac_n2s_c
        + geofac_n2s_nbh[C2E2C(0)]
            * (vcoef[C2E2C(0)] * theta_v_0 + (1.0 - vcoef[C2E2C(0)]) * theta_v_0_m1)
        + geofac_n2s_nbh[C2E2C(1)]
            * (vcoef[C2E2C(1)] * theta_v_1 + (1.0 - vcoef[C2E2C(1)]) * theta_v_1_m1)
        + geofac_n2s_nbh[C2E2C(2)]
            * (vcoef[C2E2C(2)] * theta_v_2 + (1.0 - vcoef[C2E2C(2)]) * theta_v_2_m1);
    z_temp + zd_diffcoef * sum_tmp
}

#[program]
pub fn truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
    zd_vertoffset: &Field<(Cell, C2E2C, K), i32>,
    zd_diffcoef: &Field<(Cell, K), f64>,
    geofac_n2s_c: &Field<Cell, f64>,
    geofac_n2s_nbh: &Field<(Cell, C2E2C), f64>,
    vcoef: &Field<(Cell, C2E2C, K), f64>,
    theta_v: &Field<(Cell, K), f64>,
    z_temp: &mut Field<(Cell, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
        zd_vertoffset,
        zd_diffcoef,
        geofac_n2s_c,
        geofac_n2s_nbh,
        vcoef,
        theta_v,
        z_temp,
    )
    .write_to(
        z_temp,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _update_theta_and_exner(
    z_temp: Field<(Cell, K), f64>,
    area: Field<Cell, f64>,
    theta_v: Field<(Cell, K), f64>,
    exner: Field<(Cell, K), f64>,
    rd_o_cvd: f64,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    let z_theta = theta_v;
    let theta_v = theta_v + (area * z_temp);
    let exner = exner * (1.0 + rd_o_cvd * (theta_v / z_theta - 1.0));
    (theta_v, exner)
}

#[program]
pub fn update_theta_and_exner(
    z_temp: &Field<(Cell, K), f64>,
    area: &Field<Cell, f64>,
    theta_v: &mut Field<(Cell, K), f64>,
    exner: &mut Field<(Cell, K), f64>,
    rd_o_cvd: f64,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _update_theta_and_exner(z_temp, area, theta_v, exner, rd_o_cvd).write_to(
        (theta_v, exner),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _apply_diffusion_to_theta_and_exner(
    kh_smag_e: Field<(Edge, K), f64>,
    inv_dual_edge_length: Field<Edge, f64>,
    theta_v: Field<(Cell, K), f64>,
    geofac_div: Field<(Cell, C2E), f64>,
    zd_vertoffset: Field<(Cell, C2E2C, K), i32>,
    zd_diffcoef: Field<(Cell, K), f64>,
    geofac_n2s_c: Field<Cell, f64>,
    geofac_n2s_nbh: Field<(Cell, C2E2C), f64>,
    vcoef: Field<(Cell, C2E2C, K), f64>,
    area: Field<Cell, f64>,
    exner: Field<(Cell, K), f64>,
    rd_o_cvd: f64,
    apply_zdiffusion_t: bool,
) -> (Field<(Cell, K), f64>, Field<(Cell, K), f64>) {
    let z_nabla2_e = _calculate_nabla2_for_z(kh_smag_e, inv_dual_edge_length, theta_v);
    let z_temp = _calculate_nabla2_of_theta(z_nabla2_e, geofac_div);
    // Only where `zd_diffcoef` is not 0, so that the other fields need not be read elsewhere.
    let z_temp = if apply_zdiffusion_t {
        select(
            zd_diffcoef != 0.0,
            _truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
                zd_vertoffset,
                zd_diffcoef,
                geofac_n2s_c,
                geofac_n2s_nbh,
                vcoef,
                theta_v,
                z_temp,
            ),
            z_temp,
        )
    } else {
        z_temp
    };
    _update_theta_and_exner(z_temp, area, theta_v, exner, rd_o_cvd)
}

#[program]
pub fn apply_diffusion_to_theta_and_exner(
    kh_smag_e: &Field<(Edge, K), f64>,
    inv_dual_edge_length: &Field<Edge, f64>,
    theta_v_in: &Field<(Cell, K), f64>,
    geofac_div: &Field<(Cell, C2E), f64>,
    zd_vertoffset: &Field<(Cell, C2E2C, K), i32>,
    zd_diffcoef: &Field<(Cell, K), f64>,
    geofac_n2s_c: &Field<Cell, f64>,
    geofac_n2s_nbh: &Field<(Cell, C2E2C), f64>,
    vcoef: &Field<(Cell, C2E2C, K), f64>,
    area: &Field<Cell, f64>,
    theta_v: &mut Field<(Cell, K), f64>,
    exner: &mut Field<(Cell, K), f64>,
    rd_o_cvd: f64,
    #[static_arg] apply_zdiffusion_t: bool,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_diffusion_to_theta_and_exner(
        kh_smag_e,
        inv_dual_edge_length,
        theta_v_in,
        geofac_div,
        zd_vertoffset,
        zd_diffcoef,
        geofac_n2s_c,
        geofac_n2s_nbh,
        vcoef,
        area,
        exner,
        rd_o_cvd,
        apply_zdiffusion_t,
    )
    .write_to(
        (theta_v, exner),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
