//! The granule's programs with the arguments that stay fixed for a whole run bound once, at
//! [`super::Diffusion::init`]: the four domain bounds (from the grid's zones and the level
//! count) and the granule-constant scalars. A step's calls then pass only fields and the
//! values that change between steps.

gt4rs::bind! {
    pub mod rbf_vertex = crate::icon::dsl::interpolation::mo_intp_rbf_rbf_vec_interpol_vertex(
        horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod nabla2_and_smag =
        crate::icon::dsl::diffusion::calculate_nabla2_and_smag_coefficients_for_vn(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod turbulence_diagnostics =
        crate::icon::dsl::diffusion::calculate_diagnostic_quantities_for_turbulence(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod apply_to_vn = crate::icon::dsl::diffusion::apply_diffusion_to_vn(
        nudgezone_diff, fac_bdydiff_v, start_2nd_nudge_line_idx_e,
        horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod apply_to_w = crate::icon::dsl::diffusion::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(
        diff_multfac_w, nrdmax, interior_idx, halo_idx,
        horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod cold_pools = crate::icon::dsl::diffusion::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(
        thresh_tdiff, smallest_vpfloat,
        horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod nabla2_for_theta = crate::icon::dsl::diffusion::calculate_nabla2_for_theta(
        horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod nabla2_for_z = crate::icon::dsl::diffusion::calculate_nabla2_for_z(
        horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod nabla2_of_theta = crate::icon::dsl::diffusion::calculate_nabla2_of_theta(
        horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod update_theta_and_exner = crate::icon::dsl::diffusion::update_theta_and_exner(
        rd_o_cvd, horizontal_start, horizontal_end, vertical_start, vertical_end);
}
