// Velocity advection stencils 01 and 05, written against ICON's `vpfloat`/`wpfloat` with
// ICON4Py's `astype` casts. Included by `velocity_advection::double` and `::mixed`, each of which
// declares the two aliases first.

use gt4rs::prelude::*;

use crate::icon::dims::{Edge, E2C2E, K};

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

