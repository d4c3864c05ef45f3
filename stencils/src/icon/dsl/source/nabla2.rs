// ∇² of w (diffusion step 11) and of θ (step 14), written against ICON's `vpfloat`/`wpfloat`
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

