// The update of vn by ∇² and ∇⁴ (diffusion steps 4 and 9) and ∇²vn with the Smagorinsky
// coefficients ("stencil 01"), written against ICON's `vpfloat`/`wpfloat` with ICON4Py's `astype`
// casts. Included after `nabla4.rs` (which brings the prelude, `Edge`, `Vertex`, `E2C2V`, `K` and
// `_calculate_nabla4` into scope) by `diffusion::double` and `diffusion::mixed`.

#[field_operator]
pub fn _apply_nabla2_and_nabla4_to_vn(
    area_edge: Field<Edge, wpfloat>,
    kh_smag_e: Field<(Edge, K), vpfloat>,
    z_nabla2_e: Field<(Edge, K), wpfloat>,
    z_nabla4_e2: Field<(Edge, K), vpfloat>,
    diff_multfac_vn: Field<K, wpfloat>,
    nudgecoeff_e: Field<Edge, wpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    nudgezone_diff: vpfloat,
) -> Field<(Edge, K), wpfloat> {
    let kh_smag_e_wp = kh_smag_e as wpfloat;
    let z_nabla4_e2_wp = z_nabla4_e2 as wpfloat;
    let nudgezone_diff_wp = nudgezone_diff as wpfloat;
    let area_edge_broadcast = broadcast(area_edge, (Edge, K));
    vn + area_edge
        * ((nudgezone_diff_wp * nudgecoeff_e).max(kh_smag_e_wp) * z_nabla2_e
            - area_edge_broadcast * diff_multfac_vn * z_nabla4_e2_wp)
}

#[program]
pub fn apply_nabla2_and_nabla4_to_vn(
    area_edge: &Field<Edge, wpfloat>,
    kh_smag_e: &Field<(Edge, K), vpfloat>,
    z_nabla2_e: &Field<(Edge, K), wpfloat>,
    z_nabla4_e2: &Field<(Edge, K), vpfloat>,
    diff_multfac_vn: &Field<K, wpfloat>,
    nudgecoeff_e: &Field<Edge, wpfloat>,
    vn: &mut Field<(Edge, K), wpfloat>,
    nudgezone_diff: vpfloat,
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
    area_edge: Field<Edge, wpfloat>,
    kh_smag_e: Field<(Edge, K), vpfloat>,
    z_nabla2_e: Field<(Edge, K), wpfloat>,
    z_nabla4_e2: Field<(Edge, K), vpfloat>,
    diff_multfac_vn: Field<K, wpfloat>,
    vn: Field<(Edge, K), wpfloat>,
) -> Field<(Edge, K), wpfloat> {
    let kh_smag_e_wp = kh_smag_e as wpfloat;
    let z_nabla4_e2_wp = z_nabla4_e2 as wpfloat;
    vn + area_edge * (kh_smag_e_wp * z_nabla2_e - diff_multfac_vn * z_nabla4_e2_wp * area_edge)
}

#[program]
pub fn apply_nabla2_and_nabla4_global_to_vn(
    area_edge: &Field<Edge, wpfloat>,
    kh_smag_e: &Field<(Edge, K), vpfloat>,
    z_nabla2_e: &Field<(Edge, K), wpfloat>,
    z_nabla4_e2: &Field<(Edge, K), vpfloat>,
    diff_multfac_vn: &Field<K, wpfloat>,
    vn: &mut Field<(Edge, K), wpfloat>,
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

/// All of it is wpfloat in ICON4Py: the same in both configurations.
#[field_operator]
pub fn _apply_nabla2_to_vn_in_lateral_boundary(
    z_nabla2_e: Field<(Edge, K), wpfloat>,
    area_edge: Field<Edge, wpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    fac_bdydiff_v: wpfloat,
) -> Field<(Edge, K), wpfloat> {
    vn + (area_edge * fac_bdydiff_v * z_nabla2_e)
}

#[program]
pub fn apply_nabla2_to_vn_in_lateral_boundary(
    z_nabla2_e: &Field<(Edge, K), wpfloat>,
    area_edge: &Field<Edge, wpfloat>,
    vn: &mut Field<(Edge, K), wpfloat>,
    fac_bdydiff_v: wpfloat,
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
    u_vert: Field<(Vertex, K), vpfloat>,
    v_vert: Field<(Vertex, K), vpfloat>,
    primal_normal_vert_v1: Field<(Edge, E2C2V), wpfloat>,
    primal_normal_vert_v2: Field<(Edge, E2C2V), wpfloat>,
    z_nabla2_e: Field<(Edge, K), wpfloat>,
    inv_vert_vert_length: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
    area_edge: Field<Edge, wpfloat>,
    kh_smag_e: Field<(Edge, K), vpfloat>,
    diff_multfac_vn: Field<K, wpfloat>,
    nudgecoeff_e: Field<Edge, wpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    nudgezone_diff: vpfloat,
    fac_bdydiff_v: wpfloat,
    start_2nd_nudge_line_idx_e: i32,
    limited_area: bool,
) -> Field<(Edge, K), wpfloat> {
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
    u_vert: &Field<(Vertex, K), vpfloat>,
    v_vert: &Field<(Vertex, K), vpfloat>,
    primal_normal_vert_v1: &Field<(Edge, E2C2V), wpfloat>,
    primal_normal_vert_v2: &Field<(Edge, E2C2V), wpfloat>,
    z_nabla2_e: &Field<(Edge, K), wpfloat>,
    inv_vert_vert_length: &Field<Edge, wpfloat>,
    inv_primal_edge_length: &Field<Edge, wpfloat>,
    area_edge: &Field<Edge, wpfloat>,
    kh_smag_e: &Field<(Edge, K), vpfloat>,
    diff_multfac_vn: &Field<K, wpfloat>,
    nudgecoeff_e: &Field<Edge, wpfloat>,
    vn: &mut Field<(Edge, K), wpfloat>,
    nudgezone_diff: vpfloat,
    fac_bdydiff_v: wpfloat,
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

/// ∇²vn and the Smagorinsky coefficients ("stencil 01"): computed in wpfloat from the vpfloat
/// inputs; the two coefficients are rounded to vpfloat, ∇²vn stays wpfloat.
#[field_operator]
pub fn _calculate_nabla2_and_smag_coefficients_for_vn(
    diff_multfac_smag: Field<K, vpfloat>,
    tangent_orientation: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
    inv_vert_vert_length: Field<Edge, wpfloat>,
    u_vert: Field<(Vertex, K), vpfloat>,
    v_vert: Field<(Vertex, K), vpfloat>,
    primal_normal_vert_x: Field<(Edge, E2C2V), wpfloat>,
    primal_normal_vert_y: Field<(Edge, E2C2V), wpfloat>,
    dual_normal_vert_x: Field<(Edge, E2C2V), wpfloat>,
    dual_normal_vert_y: Field<(Edge, E2C2V), wpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    smag_limit: Field<K, vpfloat>,
    smag_offset: vpfloat,
) -> (
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), wpfloat>,
) {
    let diff_multfac_smag_wp = diff_multfac_smag as wpfloat;
    let u_vert_wp = u_vert as wpfloat;
    let v_vert_wp = v_vert as wpfloat;
    let smag_offset_wp = smag_offset as wpfloat;
    let v_n =
        u_vert_wp.at(E2C2V) * primal_normal_vert_x + v_vert_wp.at(E2C2V) * primal_normal_vert_y;
    let nabla2_of_vn = (v_n[E2C2V(0)] + v_n[E2C2V(1)] - 2.0 * vn)
        * (inv_primal_edge_length * inv_primal_edge_length)
        + (v_n[E2C2V(2)] + v_n[E2C2V(3)] - 2.0 * vn)
            * (inv_vert_vert_length * inv_vert_vert_length);
    // The lengths in the denominators are twice those of the diffusion stencil.
    let nabla2_of_vn = 4.0 * nabla2_of_vn;
    let v_t = u_vert_wp.at(E2C2V) * dual_normal_vert_x + v_vert_wp.at(E2C2V) * dual_normal_vert_y;
    let l_p = tangent_orientation * inv_primal_edge_length;
    let l_vv = inv_vert_vert_length;
    let kh_smag_part1 =
        (v_n[E2C2V(3)] - v_n[E2C2V(2)]) * l_vv - (v_t[E2C2V(1)] - v_t[E2C2V(0)]) * l_p;
    let kh_smag_part2 =
        (v_n[E2C2V(1)] - v_n[E2C2V(0)]) * l_p + (v_t[E2C2V(3)] - v_t[E2C2V(2)]) * l_vv;
    let kh_smag_wp = diff_multfac_smag_wp
        * (kh_smag_part1 * kh_smag_part1 + kh_smag_part2 * kh_smag_part2).sqrt();
    let kh_smag_vp_for_diffusion = ((kh_smag_wp - smag_offset_wp) as vpfloat).max(0.0);
    let kh_smag_vp_for_diffusion = kh_smag_vp_for_diffusion.min(smag_limit);
    (
        kh_smag_vp_for_diffusion,
        kh_smag_wp as vpfloat,
        nabla2_of_vn,
    )
}

#[program]
pub fn calculate_nabla2_and_smag_coefficients_for_vn(
    diff_multfac_smag: &Field<K, vpfloat>,
    tangent_orientation: &Field<Edge, wpfloat>,
    inv_primal_edge_length: &Field<Edge, wpfloat>,
    inv_vert_vert_length: &Field<Edge, wpfloat>,
    u_vert: &Field<(Vertex, K), vpfloat>,
    v_vert: &Field<(Vertex, K), vpfloat>,
    primal_normal_vert_x: &Field<(Edge, E2C2V), wpfloat>,
    primal_normal_vert_y: &Field<(Edge, E2C2V), wpfloat>,
    dual_normal_vert_x: &Field<(Edge, E2C2V), wpfloat>,
    dual_normal_vert_y: &Field<(Edge, E2C2V), wpfloat>,
    vn: &Field<(Edge, K), wpfloat>,
    smag_limit: &Field<K, vpfloat>,
    kh_smag_e: &mut Field<(Edge, K), vpfloat>,
    kh_smag_ec: &mut Field<(Edge, K), vpfloat>,
    z_nabla2_e: &mut Field<(Edge, K), wpfloat>,
    smag_offset: vpfloat,
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
