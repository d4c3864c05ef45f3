//! Every program of this crate by name, for tools that pick programs at run time
//! (`gt4rs verify`) and for tests that run each of them (the CUDA source checks and host
//! emulation). Each entry compiles the program into a [`DynProgram`] and hands out its CUDA
//! translation.

use gt4rs::__private::cuda_source::Translation;
use gt4rs::__private::dynamic::DynProgram;
use gt4rs::{Error, Options};

use crate::cartesian::dsl as cartesian;
use crate::icon::dsl::{
    boundary_and_halo_updates, compute_advection_in_horizontal_momentum_equation,
    compute_advection_in_vertical_momentum_equation, compute_cell_diagnostics_for_dycore,
    compute_edge_diagnostics_for_dycore_and_update_vn, compute_horizontal_velocity_quantities,
    diffusion, diffusion_utils, dycore_utils, implicit_solver, interpolation, solver,
    velocity_advection, vertically_implicit_dycore_solver,
};

/// A program of this crate, compiled on demand.
pub struct ProgramEntry {
    pub name: &'static str,
    pub compile: fn(&Options) -> Result<Box<dyn DynProgram>, Error>,
    /// The program's CUDA translation (source, kernels, IR), or why it has none.
    pub translation: fn() -> Translation,
}

macro_rules! registry {
    ($(#[$doc:meta])* $all:ident: $($module:ident :: $program:ident),* $(,)?) => {
        registry!(@entries $(#[$doc])* $all: $(($module; $program)),*);
    };
    ($(#[$doc:meta])* $all:ident: $($module:ident :: $precision:ident :: $program:ident),* $(,)?) => {
        registry!(@entries $(#[$doc])* $all: $(($module::$precision; $program)),*);
    };
    (@entries $(#[$doc:meta])* $all:ident: $(($($module:ident)::+; $program:ident)),*) => {
        $(#[$doc])*
        pub const $all: &[ProgramEntry] = &[$(
            ProgramEntry {
                name: stringify!($program),
                compile: |options| Ok(Box::new($($module::)+$program::compile(options)?)),
                translation: $($module::)+$program::cuda::translation,
            },
        )*];
    };
}

registry! {
    /// All programs, in a fixed order (the ICON ones in ICON4Py's `double` precision).
    ALL:
    interpolation::mo_intp_rbf_rbf_vec_interpol_vertex,
    diffusion_utils::setup_fields_for_initial_step,
    diffusion_utils::scale_k,
    diffusion::calculate_nabla4,
    diffusion::calculate_nabla2_and_smag_coefficients_for_vn,
    diffusion::apply_nabla2_and_nabla4_to_vn,
    diffusion::apply_nabla2_and_nabla4_global_to_vn,
    diffusion::apply_nabla2_to_vn_in_lateral_boundary,
    diffusion::apply_diffusion_to_vn,
    diffusion::temporary_fields_for_turbulence_diagnostics,
    diffusion::calculate_diagnostic_quantities_for_turbulence,
    diffusion::calculate_nabla2_for_w,
    diffusion::apply_nabla2_to_w,
    diffusion::apply_nabla2_to_w_in_upper_damping_layer,
    diffusion::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
    diffusion::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,
    diffusion::calculate_nabla2_for_z,
    diffusion::calculate_nabla2_of_theta,
    diffusion::calculate_nabla2_for_theta,
    diffusion::truly_horizontal_diffusion_nabla_of_theta_over_steep_points,
    diffusion::update_theta_and_exner,
    diffusion::apply_diffusion_to_theta_and_exner,
    velocity_advection::compute_tangential_wind,
    velocity_advection::compute_horizontal_kinetic_energy,
    velocity_advection::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
    velocity_advection::compute_diagnostics_from_normal_wind,
    solver::solve_tridiagonal_matrix_for_w_forward_sweep,
    solver::solve_tridiagonal_matrix_for_w_back_substitution,
    implicit_solver::compute_contravariant_correction_of_w,
    implicit_solver::compute_contravariant_correction_of_w_for_lower_boundary,
    implicit_solver::compute_divergence_of_fluxes_of_rho_and_theta,
    implicit_solver::compute_dwdz_for_divergence_damping,
    implicit_solver::compute_solver_coefficients_matrix,
    implicit_solver::compute_explicit_part_for_rho_and_exner,
    implicit_solver::add_analysis_increments_from_data_assimilation,
    implicit_solver::apply_rayleigh_damping_mechanism,
    implicit_solver::compute_results_for_thermodynamic_variables,
    implicit_solver::update_mass_volume_flux,
    implicit_solver::update_dynamical_exner_time_increment,
    vertically_implicit_dycore_solver::vertically_implicit_solver_at_predictor_step,
    vertically_implicit_dycore_solver::vertically_implicit_solver_at_corrector_step,
    compute_cell_diagnostics_for_dycore::compute_perturbed_quantities_and_interpolation,
    compute_cell_diagnostics_for_dycore::compute_interpolation_and_nonhydro_buoy,
    compute_horizontal_velocity_quantities::compute_horizontal_velocity_quantities_and_fluxes,
    compute_horizontal_velocity_quantities::compute_averaged_vn_and_fluxes,
    boundary_and_halo_updates::update_theta_and_exner_in_halo,
    boundary_and_halo_updates::compute_exner_from_rhotheta,
    boundary_and_halo_updates::update_mass_flux_weighted,
    boundary_and_halo_updates::init_cell_kdim_field_with_zero_wp,
    boundary_and_halo_updates::stencils_61_62,
    dycore_utils::calculate_divdamp_fields,
    dycore_utils::compute_rayleigh_damping_factor,
    compute_advection_in_horizontal_momentum_equation::compute_advection_in_horizontal_momentum,
    compute_advection_in_vertical_momentum_equation::compute_advection_in_predictor_vertical_momentum,
    compute_advection_in_vertical_momentum_equation::compute_advection_in_corrector_vertical_momentum,
    compute_edge_diagnostics_for_dycore_and_update_vn::compute_hydrostatic_correction_term,
    compute_edge_diagnostics_for_dycore_and_update_vn::compute_rho_theta_pgrad_and_update_vn,
    compute_edge_diagnostics_for_dycore_and_update_vn::apply_divergence_damping_and_update_vn,
    cartesian::lap,
    cartesian::laplap,
    cartesian::hdiff,
    cartesian::vadv,
}

registry! {
    /// The ICON programs of [`ALL`] in ICON4Py's `mixed` precision (`vpfloat = f32`), in the
    /// same order and under the same names.
    MIXED:
    interpolation::mixed::mo_intp_rbf_rbf_vec_interpol_vertex,
    diffusion_utils::mixed::setup_fields_for_initial_step,
    diffusion_utils::mixed::scale_k,
    diffusion::mixed::calculate_nabla4,
    diffusion::mixed::calculate_nabla2_and_smag_coefficients_for_vn,
    diffusion::mixed::apply_nabla2_and_nabla4_to_vn,
    diffusion::mixed::apply_nabla2_and_nabla4_global_to_vn,
    diffusion::mixed::apply_nabla2_to_vn_in_lateral_boundary,
    diffusion::mixed::apply_diffusion_to_vn,
    diffusion::mixed::temporary_fields_for_turbulence_diagnostics,
    diffusion::mixed::calculate_diagnostic_quantities_for_turbulence,
    diffusion::mixed::calculate_nabla2_for_w,
    diffusion::mixed::apply_nabla2_to_w,
    diffusion::mixed::apply_nabla2_to_w_in_upper_damping_layer,
    diffusion::mixed::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
    diffusion::mixed::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,
    diffusion::mixed::calculate_nabla2_for_z,
    diffusion::mixed::calculate_nabla2_of_theta,
    diffusion::mixed::calculate_nabla2_for_theta,
    diffusion::mixed::truly_horizontal_diffusion_nabla_of_theta_over_steep_points,
    diffusion::mixed::update_theta_and_exner,
    diffusion::mixed::apply_diffusion_to_theta_and_exner,
    velocity_advection::mixed::compute_tangential_wind,
    velocity_advection::mixed::compute_horizontal_kinetic_energy,
    velocity_advection::mixed::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
    velocity_advection::mixed::compute_diagnostics_from_normal_wind,
    solver::mixed::solve_tridiagonal_matrix_for_w_forward_sweep,
    solver::mixed::solve_tridiagonal_matrix_for_w_back_substitution,
    implicit_solver::mixed::compute_contravariant_correction_of_w,
    implicit_solver::mixed::compute_contravariant_correction_of_w_for_lower_boundary,
    implicit_solver::mixed::compute_divergence_of_fluxes_of_rho_and_theta,
    implicit_solver::mixed::compute_dwdz_for_divergence_damping,
    implicit_solver::mixed::compute_solver_coefficients_matrix,
    implicit_solver::mixed::compute_explicit_part_for_rho_and_exner,
    implicit_solver::mixed::add_analysis_increments_from_data_assimilation,
    implicit_solver::mixed::apply_rayleigh_damping_mechanism,
    implicit_solver::mixed::compute_results_for_thermodynamic_variables,
    implicit_solver::mixed::update_mass_volume_flux,
    implicit_solver::mixed::update_dynamical_exner_time_increment,
    vertically_implicit_dycore_solver::mixed::vertically_implicit_solver_at_predictor_step,
    vertically_implicit_dycore_solver::mixed::vertically_implicit_solver_at_corrector_step,
    compute_cell_diagnostics_for_dycore::mixed::compute_perturbed_quantities_and_interpolation,
    compute_cell_diagnostics_for_dycore::mixed::compute_interpolation_and_nonhydro_buoy,
    compute_horizontal_velocity_quantities::mixed::compute_horizontal_velocity_quantities_and_fluxes,
    compute_horizontal_velocity_quantities::mixed::compute_averaged_vn_and_fluxes,
    boundary_and_halo_updates::mixed::update_theta_and_exner_in_halo,
    boundary_and_halo_updates::mixed::compute_exner_from_rhotheta,
    boundary_and_halo_updates::mixed::update_mass_flux_weighted,
    boundary_and_halo_updates::mixed::init_cell_kdim_field_with_zero_wp,
    boundary_and_halo_updates::mixed::stencils_61_62,
    dycore_utils::mixed::calculate_divdamp_fields,
    dycore_utils::mixed::compute_rayleigh_damping_factor,
    compute_advection_in_horizontal_momentum_equation::mixed::compute_advection_in_horizontal_momentum,
    compute_advection_in_vertical_momentum_equation::mixed::compute_advection_in_predictor_vertical_momentum,
    compute_advection_in_vertical_momentum_equation::mixed::compute_advection_in_corrector_vertical_momentum,
    compute_edge_diagnostics_for_dycore_and_update_vn::mixed::compute_hydrostatic_correction_term,
    compute_edge_diagnostics_for_dycore_and_update_vn::mixed::compute_rho_theta_pgrad_and_update_vn,
    compute_edge_diagnostics_for_dycore_and_update_vn::mixed::apply_divergence_damping_and_update_vn,
}

/// Every program's name, for checking options keyed by program name
/// ([`Options::check_programs`]).
pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|p| p.name).collect()
}

/// The program called `name`.
pub fn find(name: &str) -> Option<&'static ProgramEntry> {
    ALL.iter().find(|p| p.name == name)
}
