// The diffusion of θ over steep points and the θ/exner update (diffusion step 14), written
// against ICON's `vpfloat`/`wpfloat` with ICON4Py's `astype` casts. Included after `nabla4.rs`,
// `nabla2.rs` (the prelude, the dimensions, `C2E`, `E2C`, the ∇²θ operators) and
// `cold_pools.rs` (`C2E2C`) by `diffusion::double` and `diffusion::mixed`.

/// Truly horizontal diffusion over steep points: θ of each C2E2C neighbour is read at the level
/// `k + zd_vertoffset` and the one below it (GT4Py `as_offset(Koff, …)`), and interpolated with
/// `vcoef`. Everything but `z_temp` is wpfloat; the update is rounded back to vpfloat.
#[field_operator]
pub fn _truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
    zd_vertoffset: Field<(Cell, C2E2C, K), i32>,
    zd_diffcoef: Field<(Cell, K), wpfloat>,
    geofac_n2s_c: Field<Cell, wpfloat>,
    geofac_n2s_nbh: Field<(Cell, C2E2C), wpfloat>,
    vcoef: Field<(Cell, C2E2C, K), wpfloat>,
    theta_v: Field<(Cell, K), wpfloat>,
    z_temp: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let z_temp_wp = z_temp as wpfloat;
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
    let z_temp_wp = z_temp_wp + zd_diffcoef * sum_tmp;
    z_temp_wp as vpfloat
}

#[program]
pub fn truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
    zd_vertoffset: &Field<(Cell, C2E2C, K), i32>,
    zd_diffcoef: &Field<(Cell, K), wpfloat>,
    geofac_n2s_c: &Field<Cell, wpfloat>,
    geofac_n2s_nbh: &Field<(Cell, C2E2C), wpfloat>,
    vcoef: &Field<(Cell, C2E2C, K), wpfloat>,
    theta_v: &Field<(Cell, K), wpfloat>,
    z_temp: &mut Field<(Cell, K), vpfloat>,
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

/// θ_v and exner are wpfloat; the vpfloat increment and `rd_o_cvd` are widened first.
#[field_operator]
pub fn _update_theta_and_exner(
    z_temp: Field<(Cell, K), vpfloat>,
    area: Field<Cell, wpfloat>,
    theta_v: Field<(Cell, K), wpfloat>,
    exner: Field<(Cell, K), wpfloat>,
    rd_o_cvd: vpfloat,
) -> (Field<(Cell, K), wpfloat>, Field<(Cell, K), wpfloat>) {
    let rd_o_cvd_wp = rd_o_cvd as wpfloat;
    let z_temp_wp = z_temp as wpfloat;
    let z_theta = theta_v;
    let theta_v = theta_v + (area * z_temp_wp);
    let exner = exner * (1.0 + rd_o_cvd_wp * (theta_v / z_theta - 1.0));
    (theta_v, exner)
}

#[program]
pub fn update_theta_and_exner(
    z_temp: &Field<(Cell, K), vpfloat>,
    area: &Field<Cell, wpfloat>,
    theta_v: &mut Field<(Cell, K), wpfloat>,
    exner: &mut Field<(Cell, K), wpfloat>,
    rd_o_cvd: vpfloat,
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
    kh_smag_e: Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    theta_v: Field<(Cell, K), wpfloat>,
    geofac_div: Field<(Cell, C2E), wpfloat>,
    zd_vertoffset: Field<(Cell, C2E2C, K), i32>,
    zd_diffcoef: Field<(Cell, K), wpfloat>,
    geofac_n2s_c: Field<Cell, wpfloat>,
    geofac_n2s_nbh: Field<(Cell, C2E2C), wpfloat>,
    vcoef: Field<(Cell, C2E2C, K), wpfloat>,
    area: Field<Cell, wpfloat>,
    exner: Field<(Cell, K), wpfloat>,
    rd_o_cvd: vpfloat,
    apply_zdiffusion_t: bool,
) -> (Field<(Cell, K), wpfloat>, Field<(Cell, K), wpfloat>) {
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
    kh_smag_e: &Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: &Field<Edge, wpfloat>,
    theta_v_in: &Field<(Cell, K), wpfloat>,
    geofac_div: &Field<(Cell, C2E), wpfloat>,
    zd_vertoffset: &Field<(Cell, C2E2C, K), i32>,
    zd_diffcoef: &Field<(Cell, K), wpfloat>,
    geofac_n2s_c: &Field<Cell, wpfloat>,
    geofac_n2s_nbh: &Field<(Cell, C2E2C), wpfloat>,
    vcoef: &Field<(Cell, C2E2C, K), wpfloat>,
    area: &Field<Cell, wpfloat>,
    theta_v: &mut Field<(Cell, K), wpfloat>,
    exner: &mut Field<(Cell, K), wpfloat>,
    rd_o_cvd: vpfloat,
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
