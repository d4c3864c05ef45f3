// ∇² of w and its application (diffusion step 11), ∇² of θ (step 14), written against ICON's `vpfloat`/`wpfloat`
// with ICON4Py's `astype` casts. Included after `nabla4.rs` (which brings the prelude and the
// dimensions into scope) by `diffusion::double` and `diffusion::mixed`.

use crate::icon::dims::{Cell, C2E, C2E2CO, E2C};

#[field_operator]
pub fn _calculate_nabla2_for_w(
    w: Field<(Cell, K), wpfloat>,
    geofac_n2s: Field<(Cell, C2E2CO), wpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let z_nabla2_c = neighbor_sum(w.at(C2E2CO) * geofac_n2s, C2E2CO);
    z_nabla2_c as vpfloat
}

#[program]
pub fn calculate_nabla2_for_w(
    w: &Field<(Cell, K), wpfloat>,
    geofac_n2s: &Field<(Cell, C2E2CO), wpfloat>,
    z_nabla2_c: &mut Field<(Cell, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _calculate_nabla2_for_w(w, geofac_n2s).write_to(
        z_nabla2_c,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _apply_nabla2_to_w(
    area: Field<Cell, wpfloat>,
    z_nabla2_c: Field<(Cell, K), vpfloat>,
    geofac_n2s: Field<(Cell, C2E2CO), wpfloat>,
    w: Field<(Cell, K), wpfloat>,
    diff_multfac_w: wpfloat,
) -> Field<(Cell, K), wpfloat> {
    let z_nabla2_c = z_nabla2_c as wpfloat;
    w - diff_multfac_w * (area * area) * neighbor_sum(z_nabla2_c.at(C2E2CO) * geofac_n2s, C2E2CO)
}

#[program]
pub fn apply_nabla2_to_w(
    area: &Field<Cell, wpfloat>,
    z_nabla2_c: &Field<(Cell, K), vpfloat>,
    geofac_n2s: &Field<(Cell, C2E2CO), wpfloat>,
    w: &mut Field<(Cell, K), wpfloat>,
    diff_multfac_w: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_nabla2_to_w(area, z_nabla2_c, geofac_n2s, w, diff_multfac_w).write_to(
        w,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _apply_nabla2_to_w_in_upper_damping_layer(
    w: Field<(Cell, K), wpfloat>,
    diff_multfac_n2w: Field<K, wpfloat>,
    cell_area: Field<Cell, wpfloat>,
    z_nabla2_c: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), wpfloat> {
    let z_nabla2_c = z_nabla2_c as wpfloat;
    let cell_area_tmp = broadcast(cell_area, (Cell, K));
    w + diff_multfac_n2w * cell_area_tmp * z_nabla2_c
}

#[program]
pub fn apply_nabla2_to_w_in_upper_damping_layer(
    w: &mut Field<(Cell, K), wpfloat>,
    diff_multfac_n2w: &Field<K, wpfloat>,
    cell_area: &Field<Cell, wpfloat>,
    z_nabla2_c: &Field<(Cell, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _apply_nabla2_to_w_in_upper_damping_layer(w, diff_multfac_n2w, cell_area, z_nabla2_c).write_to(
        w,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _calculate_nabla2_for_z(
    kh_smag_e: Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    theta_v: Field<(Cell, K), wpfloat>,
) -> Field<(Edge, K), wpfloat> {
    (kh_smag_e as wpfloat) * inv_dual_edge_length * (theta_v.at(E2C[1]) - theta_v.at(E2C[0]))
}

#[program]
pub fn calculate_nabla2_for_z(
    kh_smag_e: &Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: &Field<Edge, wpfloat>,
    theta_v: &Field<(Cell, K), wpfloat>,
    z_nabla2_e: &mut Field<(Edge, K), wpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _calculate_nabla2_for_z(kh_smag_e, inv_dual_edge_length, theta_v).write_to(
        z_nabla2_e,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _calculate_nabla2_of_theta(
    z_nabla2_e: Field<(Edge, K), wpfloat>,
    geofac_div: Field<(Cell, C2E), wpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let z_temp = neighbor_sum(z_nabla2_e.at(C2E) * geofac_div, C2E);
    z_temp as vpfloat
}

#[program]
pub fn calculate_nabla2_of_theta(
    z_nabla2_e: &Field<(Edge, K), wpfloat>,
    geofac_div: &Field<(Cell, C2E), wpfloat>,
    z_temp: &mut Field<(Cell, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _calculate_nabla2_of_theta(z_nabla2_e, geofac_div).write_to(
        z_temp,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

#[field_operator]
pub fn _calculate_nabla2_for_theta(
    kh_smag_e: Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    theta_v: Field<(Cell, K), wpfloat>,
    geofac_div: Field<(Cell, C2E), wpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let z_nabla2_e = _calculate_nabla2_for_z(kh_smag_e, inv_dual_edge_length, theta_v);
    _calculate_nabla2_of_theta(z_nabla2_e, geofac_div)
}

#[program]
pub fn calculate_nabla2_for_theta(
    kh_smag_e: &Field<(Edge, K), vpfloat>,
    inv_dual_edge_length: &Field<Edge, wpfloat>,
    theta_v: &Field<(Cell, K), wpfloat>,
    geofac_div: &Field<(Cell, C2E), wpfloat>,
    z_temp: &mut Field<(Cell, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _calculate_nabla2_for_theta(kh_smag_e, inv_dual_edge_length, theta_v, geofac_div).write_to(
        z_temp,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

