// The cold-pool enhancement of the Smagorinsky coefficient (diffusion step 13), written against
// ICON's `vpfloat`/`wpfloat` with ICON4Py's `astype` casts. Included after `nabla4.rs` and
// `nabla2.rs` (the prelude, `Cell`, `Edge`, `E2C`, `K`) by `diffusion::double` and
// `diffusion::mixed`; `C2E2C` is imported here for `theta_and_exner.rs` too.

use crate::icon::dims::C2E2C;

/// θ_v's and θ_ref's deviations from their neighbours' mean in wpfloat, θ_ref's neighbour sum in
/// vpfloat (as ICON4Py has it); the enhancement is rounded to vpfloat.
#[field_operator]
pub fn _temporary_field_for_grid_point_cold_pools_enhancement(
    theta_v: Field<(Cell, K), wpfloat>,
    theta_ref_mc: Field<(Cell, K), vpfloat>,
    thresh_tdiff: wpfloat,
    smallest_vpfloat: vpfloat,
) -> Field<(Cell, K), vpfloat> {
    let theta_ref_mc_wp = theta_ref_mc as wpfloat;
    let tdiff = theta_v - neighbor_sum(theta_v.at(C2E2C), C2E2C) / 3.0;
    let trefdiff = theta_ref_mc_wp - (neighbor_sum(theta_ref_mc.at(C2E2C), C2E2C) as wpfloat) / 3.0;
    select(
        ((tdiff - trefdiff) < thresh_tdiff) & (trefdiff < 0.0)
            | (tdiff - trefdiff < 1.5 * thresh_tdiff),
        ((thresh_tdiff - tdiff + trefdiff) * 5.0e-4) as vpfloat,
        smallest_vpfloat,
    )
}

#[field_operator]
pub fn _enhance_diffusion_coefficient_for_grid_point_cold_pools(
    kh_smag_e: Field<(Edge, K), vpfloat>,
    enh_diffu_3d: Field<(Cell, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    kh_smag_e.max(max_over(enh_diffu_3d.at(E2C), E2C))
}

#[field_operator]
pub fn _calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(
    theta_v: Field<(Cell, K), wpfloat>,
    theta_ref_mc: Field<(Cell, K), vpfloat>,
    thresh_tdiff: wpfloat,
    smallest_vpfloat: vpfloat,
    kh_smag_e: Field<(Edge, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
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
    theta_v: &Field<(Cell, K), wpfloat>,
    theta_ref_mc: &Field<(Cell, K), vpfloat>,
    thresh_tdiff: wpfloat,
    smallest_vpfloat: vpfloat,
    kh_smag_e: &mut Field<(Edge, K), vpfloat>,
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
