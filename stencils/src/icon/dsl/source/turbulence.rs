// Turbulence diagnostics (diffusion step 5) and the diffusion of w with the horizontal gradients
// for turbulence (step 11), written against ICON's `vpfloat`/`wpfloat` with ICON4Py's `astype`
// casts. Included after `nabla4.rs` and `nabla2.rs` (which bring the prelude, the dimensions,
// `C2E`, `C2E2CO` and the ∇²w operators into scope) by `diffusion::double` and
// `diffusion::mixed`.

/// The sums are taken in wpfloat and rounded to vpfloat.
#[field_operator]
pub fn _temporary_fields_for_turbulence_diagnostics(
    kh_smag_ec: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    geofac_div: Field<(Cell, C2E), wpfloat>,
    diff_multfac_smag: Field<K, vpfloat>,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
    let kh_smag_ec_wp = kh_smag_ec as wpfloat;
    let diff_multfac_smag_wp = diff_multfac_smag as wpfloat;
    let kh_c_wp = neighbor_sum(kh_smag_ec_wp.at(C2E) * e_bln_c_s, C2E) / diff_multfac_smag_wp;
    let div_wp = neighbor_sum(vn.at(C2E) * geofac_div, C2E);
    (kh_c_wp as vpfloat, div_wp as vpfloat)
}

#[program]
pub fn temporary_fields_for_turbulence_diagnostics(
    kh_smag_ec: &Field<(Edge, K), vpfloat>,
    vn: &Field<(Edge, K), wpfloat>,
    e_bln_c_s: &Field<(Cell, C2E), wpfloat>,
    geofac_div: &Field<(Cell, C2E), wpfloat>,
    diff_multfac_smag: &Field<K, vpfloat>,
    kh_c: &mut Field<(Cell, K), vpfloat>,
    div: &mut Field<(Cell, K), vpfloat>,
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

/// Interpolation to the half level above; ICON4Py takes the product with the weight at the level
/// itself in vpfloat and the rest in wpfloat.
#[field_operator]
pub fn _calculate_diagnostics_for_turbulence(
    div: Field<(Cell, K), vpfloat>,
    kh_c: Field<(Cell, K), vpfloat>,
    wgtfac_c: Field<(Cell, K), vpfloat>,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
    let wgtfac_c_wp = wgtfac_c as wpfloat;
    let div_wp = div as wpfloat;
    let kh_c_wp = kh_c as wpfloat;
    let div_ic_wp = (wgtfac_c * div) as wpfloat + (1.0 - wgtfac_c_wp) * div_wp.at(K - 1);
    let hdef_ic_wp = (wgtfac_c * kh_c) as wpfloat + (1.0 - wgtfac_c_wp) * kh_c_wp.at(K - 1);
    let hdef_ic_wp = hdef_ic_wp * hdef_ic_wp;
    (div_ic_wp as vpfloat, hdef_ic_wp as vpfloat)
}

#[field_operator]
pub fn _calculate_diagnostic_quantities_for_turbulence(
    kh_smag_ec: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    geofac_div: Field<(Cell, C2E), wpfloat>,
    diff_multfac_smag: Field<K, vpfloat>,
    wgtfac_c: Field<(Cell, K), vpfloat>,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
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
    kh_smag_ec: &Field<(Edge, K), vpfloat>,
    vn: &Field<(Edge, K), wpfloat>,
    e_bln_c_s: &Field<(Cell, C2E), wpfloat>,
    geofac_div: &Field<(Cell, C2E), wpfloat>,
    diff_multfac_smag: &Field<K, vpfloat>,
    wgtfac_c: &Field<(Cell, K), vpfloat>,
    div_ic: &mut Field<(Cell, K), vpfloat>,
    hdef_ic: &mut Field<(Cell, K), vpfloat>,
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

#[field_operator]
pub fn _calculate_horizontal_gradients_for_turbulence(
    w: Field<(Cell, K), wpfloat>,
    geofac_grg_x: Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_y: Field<(Cell, C2E2CO), wpfloat>,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
    let dwdx_wp = neighbor_sum(geofac_grg_x * w.at(C2E2CO), C2E2CO);
    let dwdy_wp = neighbor_sum(geofac_grg_y * w.at(C2E2CO), C2E2CO);
    (dwdx_wp as vpfloat, dwdy_wp as vpfloat)
}

/// w stays wpfloat; the gradients and ∇²w are vpfloat.
#[field_operator]
pub fn _apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(
    area: Field<Cell, wpfloat>,
    geofac_n2s: Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_x: Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_y: Field<(Cell, C2E2CO), wpfloat>,
    w_old: Field<(Cell, K), wpfloat>,
    type_shear: i32,
    dwdx: Field<(Cell, K), vpfloat>,
    dwdy: Field<(Cell, K), vpfloat>,
    diff_multfac_w: wpfloat,
    diff_multfac_n2w: Field<K, wpfloat>,
    nrdmax: i32,
    interior_idx: i32,
    halo_idx: i32,
) -> (
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
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
    area: &Field<Cell, wpfloat>,
    geofac_n2s: &Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_x: &Field<(Cell, C2E2CO), wpfloat>,
    geofac_grg_y: &Field<(Cell, C2E2CO), wpfloat>,
    w_old: &Field<(Cell, K), wpfloat>,
    w: &mut Field<(Cell, K), wpfloat>,
    #[static_arg] type_shear: i32,
    dwdx: &mut Field<(Cell, K), vpfloat>,
    dwdy: &mut Field<(Cell, K), vpfloat>,
    diff_multfac_w: wpfloat,
    diff_multfac_n2w: &Field<K, wpfloat>,
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
