//! The solver's programs with their domain bounds and vertical indices bound once, at
//! [`super::SolveNonhydro::init`], as ICON4Py's `SolveNonhydro` and `VelocityAdvection` set
//! them up (`horizontal_sizes`, `vertical_sizes`). A substep's calls pass the fields, the
//! scalars of the substep and the static arguments.

gt4rs::bind! {
    pub mod diagnostics_from_normal_wind =
        crate::icon::dsl::velocity_advection::compute_diagnostics_from_normal_wind(
            nflatlev, horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod advection_in_predictor_vertical_momentum =
        crate::icon::dsl::compute_advection_in_vertical_momentum_equation::compute_advection_in_predictor_vertical_momentum(
            nflatlev, end_index_of_damping_layer,
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod advection_in_corrector_vertical_momentum =
        crate::icon::dsl::compute_advection_in_vertical_momentum_equation::compute_advection_in_corrector_vertical_momentum(
            end_index_of_damping_layer,
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod advection_in_horizontal_momentum =
        crate::icon::dsl::compute_advection_in_horizontal_momentum_equation::compute_advection_in_horizontal_momentum(
            end_index_of_damping_layer,
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod perturbed_quantities_and_interpolation =
        crate::icon::dsl::compute_cell_diagnostics_for_dycore::compute_perturbed_quantities_and_interpolation(
            nflatlev, nflat_gradp, start_cell_lateral_boundary_level_3, end_cell_local,
            end_cell_halo, end_cell_halo_level_2, model_top, surface_level);
    pub mod interpolation_and_nonhydro_buoy =
        crate::icon::dsl::compute_cell_diagnostics_for_dycore::compute_interpolation_and_nonhydro_buoy(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod hydrostatic_correction_term =
        crate::icon::dsl::compute_edge_diagnostics_for_dycore_and_update_vn::compute_hydrostatic_correction_term(
            grav_o_cpd, horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod rho_theta_pgrad_and_update_vn =
        crate::icon::dsl::compute_edge_diagnostics_for_dycore_and_update_vn::compute_rho_theta_pgrad_and_update_vn(
            nflatlev, nflat_gradp, start_edge_lateral_boundary,
            start_edge_lateral_boundary_level_7, start_edge_nudging_level_2, end_edge_nudging,
            end_edge_local, end_edge_halo, horizontal_start, horizontal_end, vertical_start,
            vertical_end);
    pub mod divergence_damping_and_update_vn =
        crate::icon::dsl::compute_edge_diagnostics_for_dycore_and_update_vn::apply_divergence_damping_and_update_vn(
            mean_cell_area, max_nudging_coefficient, dbl_eps,
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod horizontal_velocity_quantities_and_fluxes =
        crate::icon::dsl::compute_horizontal_velocity_quantities::compute_horizontal_velocity_quantities_and_fluxes(
            nflatlev, horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod averaged_vn_and_fluxes =
        crate::icon::dsl::compute_horizontal_velocity_quantities::compute_averaged_vn_and_fluxes(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod solver_at_predictor_step =
        crate::icon::dsl::vertically_implicit_dycore_solver::vertically_implicit_solver_at_predictor_step(
            end_index_of_damping_layer, kstart_moist, flat_level_index_plus1,
            start_cell_index_nudging, end_cell_index_local, start_cell_index_lateral_lvl3,
            end_cell_index_halo_lvl1, vertical_start_index_model_top,
            vertical_end_index_model_surface);
    pub mod solver_at_corrector_step =
        crate::icon::dsl::vertically_implicit_dycore_solver::vertically_implicit_solver_at_corrector_step(
            end_index_of_damping_layer, kstart_moist, start_cell_index_nudging,
            end_cell_index_local, vertical_start_index_model_top,
            vertical_end_index_model_surface);
    pub mod theta_and_exner_in_halo =
        crate::icon::dsl::boundary_and_halo_updates::update_theta_and_exner_in_halo(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod exner_from_rhotheta =
        crate::icon::dsl::boundary_and_halo_updates::compute_exner_from_rhotheta(
            rd_o_cvd, rd_o_p0ref, horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod boundary_tendencies =
        crate::icon::dsl::boundary_and_halo_updates::stencils_61_62(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod dwdz_for_divergence_damping =
        crate::icon::dsl::implicit_solver::compute_dwdz_for_divergence_damping(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod zero_mass_flux =
        crate::icon::dsl::boundary_and_halo_updates::init_cell_kdim_field_with_zero_wp(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
    pub mod mass_flux_weighted =
        crate::icon::dsl::boundary_and_halo_updates::update_mass_flux_weighted(
            horizontal_start, horizontal_end, vertical_start, vertical_end);
}
