//! ICON4Py's three static variants of a stencil, as `gt4rs::bind!` expresses them:
//! - `none`: the plain program, every bound passed with each call;
//! - `compile_time_domain`: the four domain bounds bound once at `compile()`;
//! - `compile_time_vertical`: only the vertical bounds bound.
//!
//! Each variant runs every ICON program with domain bounds on generated grids (a global R2B2
//! grid, and a limited-area cut of R2B3 with its -1 entries replaced as ICON4Py loads it) on
//! the embedded and CPU backends, through the dynamic interface, with ICON's domains
//! (`support::icon_calls`, shared with `icon_on_grids.rs` and `mixed_precision.rs`), once per
//! value of each static argument. Inputs are seeded random numbers (`support::random_call`:
//! [-1, 1) unless ICON's ranges are needed; f32 parameters get them rounded); pure outputs are
//! poisoned with NaN; every output must equal the plain call's bit for bit.
//!
//! The programs: the 51 of the registry (`programs::ALL`) that take domain bounds, the `mixed`
//! (`vpfloat = f32`) versions of the programs written against ICON's precision names
//! (`interpolation`, `diffusion`, `velocity_advection`, `solver`, `implicit_solver`,
//! `diffusion_utils`, `compute_cell_diagnostics_for_dycore`,
//! `compute_edge_diagnostics_for_dycore_and_update_vn`, `compute_horizontal_velocity_quantities`,
//! `compute_advection_in_horizontal_momentum_equation`,
//! `compute_advection_in_vertical_momentum_equation`, `boundary_and_halo_updates`: every one
//! with bounds), and the two `diffusion_utils` programs outside the registry that take vertical
//! bounds only (double and mixed)
//! (`init_diffusion_local_fields_for_regular_timestep`,
//! `init_nabla2_factor_in_upper_damping_zone`): with no horizontal bound, their compile-time
//! domain is their compile-time vertical bounds, so both bound variants bind those two.
//!
//! Programs without any domain bound cannot have the bound variants (there is nothing to bind;
//! they write their whole output): `diffusion_utils::{setup_fields_for_initial_step, scale_k,
//! copy_field}`, `dycore_utils::{calculate_divdamp_fields, compute_rayleigh_damping_factor}`
//! ([`WITHOUT_BOUNDS`]; the registry's are checked to be the only ones left out).
//!
//! The Cartesian programs bound their domains by the field sizes `ni`, `nj` (and `nk` for the
//! 3-D ones): `cartesian_static_variants_match_the_plain_call` binds `ni, nj[, nk]` as the
//! compile-time domain and `nk` as the compile-time vertical bound (`lap` and `laplap` have no
//! vertical dimension, so only the first).

mod support;

use std::collections::BTreeMap;

use gt4rs::__private::dynamic::{ArgSource, DynProgram};
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::testing;
use gt4rs::{Backend, Error, Options, ParamKind, ScalarType, Signature};
use gt4rs_stencils::cartesian::dsl as cartesian;
use gt4rs_stencils::icon::dsl::compute_edge_diagnostics_for_dycore_and_update_vn as edge_diagnostics;
use gt4rs_stencils::icon::dsl::{
    boundary_and_halo_updates, compute_advection_in_horizontal_momentum_equation,
    compute_advection_in_vertical_momentum_equation, compute_cell_diagnostics_for_dycore,
    compute_horizontal_velocity_quantities, diffusion, diffusion_utils, implicit_solver,
    interpolation, solver, velocity_advection,
};
use gt4rs_stencils::icon::reference::Call;
use gt4rs_stencils::programs;
use ndarray::ArrayD;
use rand::RngExt;
use support::{
    assert_static_values_covered, bit_equal, connectivities_of, float_param, global_grid,
    icon_calls, limited_area_grid_with_skips_replaced, outputs, random_call, written_by, CallArgs,
    TestGrid, DOMAIN_BOUNDS,
};

type CompilePlain = fn(&Options) -> Result<Box<dyn DynProgram>, Error>;
type CompileBound = fn(&Options, &mut dyn ArgSource) -> Result<Box<dyn DynProgram>, Error>;

/// One program and its two bound variants.
struct Variants {
    /// The path the program is compiled from, for messages.
    path: &'static str,
    plain: CompilePlain,
    compile_time_domain: CompileBound,
    compile_time_vertical: CompileBound,
}

/// The [`Variants`] of program `$($path)::+`, whose bound versions are the modules `$module`
/// of `compile_time_domain` and `compile_time_vertical`.
macro_rules! entry {
    ($module:ident = $first:ident $(:: $rest:ident)*) => {
        Variants {
            path: concat!(stringify!($first) $(, "::", stringify!($rest))*),
            plain: |options| Ok(Box::new($first $(:: $rest)*::compile(options)?)),
            compile_time_domain: |options, source| {
                let bound = compile_time_domain::$module::Bound::from_source(source)?;
                Ok(Box::new(compile_time_domain::$module::compile(options, bound)?))
            },
            compile_time_vertical: |options, source| {
                let bound = compile_time_vertical::$module::Bound::from_source(source)?;
                Ok(Box::new(compile_time_vertical::$module::compile(options, bound)?))
            },
        }
    };
}

macro_rules! variants {
    (
        horizontal_and_vertical: [$($module:ident = $($path:ident)::+),* $(,)?],
        vertical_only: [$($vmodule:ident = $($vpath:ident)::+),* $(,)?] $(,)?
    ) => {
        mod compile_time_domain {
            use super::*;
            gt4rs::bind! {
                $(
                    pub mod $module = $($path)::+(
                        horizontal_start, horizontal_end, vertical_start, vertical_end
                    );
                )*
                $( pub mod $vmodule = $($vpath)::+(vertical_start, vertical_end); )*
            }
        }
        mod compile_time_vertical {
            use super::*;
            gt4rs::bind! {
                $( pub mod $module = $($path)::+(vertical_start, vertical_end); )*
                $( pub mod $vmodule = $($vpath)::+(vertical_start, vertical_end); )*
            }
        }
        const VARIANTS: &[Variants] = &[
            $( entry!($module = $($path)::+), )*
            $( entry!($vmodule = $($vpath)::+), )*
        ];
    };
}

variants! {
    horizontal_and_vertical: [
        mo_intp_rbf_rbf_vec_interpol_vertex =
            interpolation::mo_intp_rbf_rbf_vec_interpol_vertex,
        calculate_nabla4 = diffusion::calculate_nabla4,
        calculate_nabla2_and_smag_coefficients_for_vn =
            diffusion::calculate_nabla2_and_smag_coefficients_for_vn,
        apply_nabla2_and_nabla4_to_vn = diffusion::apply_nabla2_and_nabla4_to_vn,
        apply_nabla2_and_nabla4_global_to_vn = diffusion::apply_nabla2_and_nabla4_global_to_vn,
        apply_nabla2_to_vn_in_lateral_boundary =
            diffusion::apply_nabla2_to_vn_in_lateral_boundary,
        apply_diffusion_to_vn = diffusion::apply_diffusion_to_vn,
        temporary_fields_for_turbulence_diagnostics =
            diffusion::temporary_fields_for_turbulence_diagnostics,
        calculate_diagnostic_quantities_for_turbulence =
            diffusion::calculate_diagnostic_quantities_for_turbulence,
        calculate_nabla2_for_w = diffusion::calculate_nabla2_for_w,
        apply_nabla2_to_w = diffusion::apply_nabla2_to_w,
        apply_nabla2_to_w_in_upper_damping_layer =
            diffusion::apply_nabla2_to_w_in_upper_damping_layer,
        apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence =
            diffusion::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
        calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools =
            diffusion::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,
        calculate_nabla2_for_z = diffusion::calculate_nabla2_for_z,
        calculate_nabla2_of_theta = diffusion::calculate_nabla2_of_theta,
        calculate_nabla2_for_theta = diffusion::calculate_nabla2_for_theta,
        truly_horizontal_diffusion_nabla_of_theta_over_steep_points =
            diffusion::truly_horizontal_diffusion_nabla_of_theta_over_steep_points,
        update_theta_and_exner = diffusion::update_theta_and_exner,
        apply_diffusion_to_theta_and_exner = diffusion::apply_diffusion_to_theta_and_exner,
        compute_tangential_wind = velocity_advection::compute_tangential_wind,
        compute_horizontal_kinetic_energy = velocity_advection::compute_horizontal_kinetic_energy,
        interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges =
            velocity_advection::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
        compute_diagnostics_from_normal_wind =
            velocity_advection::compute_diagnostics_from_normal_wind,
        solve_tridiagonal_matrix_for_w_forward_sweep =
            solver::solve_tridiagonal_matrix_for_w_forward_sweep,
        solve_tridiagonal_matrix_for_w_back_substitution =
            solver::solve_tridiagonal_matrix_for_w_back_substitution,
        mixed_mo_intp_rbf_rbf_vec_interpol_vertex =
            interpolation::mixed::mo_intp_rbf_rbf_vec_interpol_vertex,
        mixed_calculate_nabla4 = diffusion::mixed::calculate_nabla4,
        mixed_calculate_nabla2_for_w = diffusion::mixed::calculate_nabla2_for_w,
        mixed_apply_nabla2_to_w = diffusion::mixed::apply_nabla2_to_w,
        mixed_apply_nabla2_to_w_in_upper_damping_layer =
            diffusion::mixed::apply_nabla2_to_w_in_upper_damping_layer,
        mixed_calculate_nabla2_for_z = diffusion::mixed::calculate_nabla2_for_z,
        mixed_calculate_nabla2_of_theta = diffusion::mixed::calculate_nabla2_of_theta,
        mixed_calculate_nabla2_for_theta = diffusion::mixed::calculate_nabla2_for_theta,
        mixed_compute_tangential_wind = velocity_advection::mixed::compute_tangential_wind,
        mixed_compute_horizontal_kinetic_energy =
            velocity_advection::mixed::compute_horizontal_kinetic_energy,
        mixed_calculate_nabla2_and_smag_coefficients_for_vn = diffusion::mixed::calculate_nabla2_and_smag_coefficients_for_vn,
        mixed_apply_nabla2_and_nabla4_to_vn = diffusion::mixed::apply_nabla2_and_nabla4_to_vn,
        mixed_apply_nabla2_and_nabla4_global_to_vn = diffusion::mixed::apply_nabla2_and_nabla4_global_to_vn,
        mixed_apply_nabla2_to_vn_in_lateral_boundary = diffusion::mixed::apply_nabla2_to_vn_in_lateral_boundary,
        mixed_apply_diffusion_to_vn = diffusion::mixed::apply_diffusion_to_vn,
        mixed_temporary_fields_for_turbulence_diagnostics = diffusion::mixed::temporary_fields_for_turbulence_diagnostics,
        mixed_calculate_diagnostic_quantities_for_turbulence = diffusion::mixed::calculate_diagnostic_quantities_for_turbulence,
        mixed_apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence = diffusion::mixed::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,
        mixed_calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools = diffusion::mixed::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,
        mixed_truly_horizontal_diffusion_nabla_of_theta_over_steep_points = diffusion::mixed::truly_horizontal_diffusion_nabla_of_theta_over_steep_points,
        mixed_update_theta_and_exner = diffusion::mixed::update_theta_and_exner,
        mixed_apply_diffusion_to_theta_and_exner = diffusion::mixed::apply_diffusion_to_theta_and_exner,
        mixed_interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges = velocity_advection::mixed::interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges,
        mixed_compute_diagnostics_from_normal_wind = velocity_advection::mixed::compute_diagnostics_from_normal_wind,
        mixed_solve_tridiagonal_matrix_for_w_forward_sweep = solver::mixed::solve_tridiagonal_matrix_for_w_forward_sweep,
        mixed_solve_tridiagonal_matrix_for_w_back_substitution = solver::mixed::solve_tridiagonal_matrix_for_w_back_substitution,
        compute_contravariant_correction_of_w = implicit_solver::compute_contravariant_correction_of_w,
        compute_contravariant_correction_of_w_for_lower_boundary = implicit_solver::compute_contravariant_correction_of_w_for_lower_boundary,
        compute_divergence_of_fluxes_of_rho_and_theta = implicit_solver::compute_divergence_of_fluxes_of_rho_and_theta,
        compute_dwdz_for_divergence_damping = implicit_solver::compute_dwdz_for_divergence_damping,
        compute_solver_coefficients_matrix = implicit_solver::compute_solver_coefficients_matrix,
        compute_explicit_part_for_rho_and_exner = implicit_solver::compute_explicit_part_for_rho_and_exner,
        add_analysis_increments_from_data_assimilation = implicit_solver::add_analysis_increments_from_data_assimilation,
        apply_rayleigh_damping_mechanism = implicit_solver::apply_rayleigh_damping_mechanism,
        compute_results_for_thermodynamic_variables = implicit_solver::compute_results_for_thermodynamic_variables,
        update_mass_volume_flux = implicit_solver::update_mass_volume_flux,
        update_dynamical_exner_time_increment = implicit_solver::update_dynamical_exner_time_increment,
        mixed_compute_contravariant_correction_of_w = implicit_solver::mixed::compute_contravariant_correction_of_w,
        mixed_compute_contravariant_correction_of_w_for_lower_boundary = implicit_solver::mixed::compute_contravariant_correction_of_w_for_lower_boundary,
        mixed_compute_divergence_of_fluxes_of_rho_and_theta = implicit_solver::mixed::compute_divergence_of_fluxes_of_rho_and_theta,
        mixed_compute_dwdz_for_divergence_damping = implicit_solver::mixed::compute_dwdz_for_divergence_damping,
        mixed_compute_solver_coefficients_matrix = implicit_solver::mixed::compute_solver_coefficients_matrix,
        mixed_compute_explicit_part_for_rho_and_exner = implicit_solver::mixed::compute_explicit_part_for_rho_and_exner,
        mixed_add_analysis_increments_from_data_assimilation = implicit_solver::mixed::add_analysis_increments_from_data_assimilation,
        mixed_apply_rayleigh_damping_mechanism = implicit_solver::mixed::apply_rayleigh_damping_mechanism,
        mixed_compute_results_for_thermodynamic_variables = implicit_solver::mixed::compute_results_for_thermodynamic_variables,
        mixed_update_mass_volume_flux = implicit_solver::mixed::update_mass_volume_flux,
        mixed_update_dynamical_exner_time_increment = implicit_solver::mixed::update_dynamical_exner_time_increment,
        compute_interpolation_and_nonhydro_buoy = compute_cell_diagnostics_for_dycore::compute_interpolation_and_nonhydro_buoy,
        mixed_compute_interpolation_and_nonhydro_buoy = compute_cell_diagnostics_for_dycore::mixed::compute_interpolation_and_nonhydro_buoy,
        compute_horizontal_velocity_quantities_and_fluxes = compute_horizontal_velocity_quantities::compute_horizontal_velocity_quantities_and_fluxes,
        mixed_compute_horizontal_velocity_quantities_and_fluxes = compute_horizontal_velocity_quantities::mixed::compute_horizontal_velocity_quantities_and_fluxes,
        compute_averaged_vn_and_fluxes = compute_horizontal_velocity_quantities::compute_averaged_vn_and_fluxes,
        mixed_compute_averaged_vn_and_fluxes = compute_horizontal_velocity_quantities::mixed::compute_averaged_vn_and_fluxes,
        update_theta_and_exner_in_halo = boundary_and_halo_updates::update_theta_and_exner_in_halo,
        mixed_update_theta_and_exner_in_halo = boundary_and_halo_updates::mixed::update_theta_and_exner_in_halo,
        compute_exner_from_rhotheta = boundary_and_halo_updates::compute_exner_from_rhotheta,
        mixed_compute_exner_from_rhotheta = boundary_and_halo_updates::mixed::compute_exner_from_rhotheta,
        update_mass_flux_weighted = boundary_and_halo_updates::update_mass_flux_weighted,
        mixed_update_mass_flux_weighted = boundary_and_halo_updates::mixed::update_mass_flux_weighted,
        init_cell_kdim_field_with_zero_wp = boundary_and_halo_updates::init_cell_kdim_field_with_zero_wp,
        mixed_init_cell_kdim_field_with_zero_wp = boundary_and_halo_updates::mixed::init_cell_kdim_field_with_zero_wp,
        stencils_61_62 = boundary_and_halo_updates::stencils_61_62,
        mixed_stencils_61_62 = boundary_and_halo_updates::mixed::stencils_61_62,
        compute_advection_in_horizontal_momentum = compute_advection_in_horizontal_momentum_equation::compute_advection_in_horizontal_momentum,
        mixed_compute_advection_in_horizontal_momentum = compute_advection_in_horizontal_momentum_equation::mixed::compute_advection_in_horizontal_momentum,
        compute_advection_in_predictor_vertical_momentum = compute_advection_in_vertical_momentum_equation::compute_advection_in_predictor_vertical_momentum,
        mixed_compute_advection_in_predictor_vertical_momentum = compute_advection_in_vertical_momentum_equation::mixed::compute_advection_in_predictor_vertical_momentum,
        compute_advection_in_corrector_vertical_momentum = compute_advection_in_vertical_momentum_equation::compute_advection_in_corrector_vertical_momentum,
        mixed_compute_advection_in_corrector_vertical_momentum = compute_advection_in_vertical_momentum_equation::mixed::compute_advection_in_corrector_vertical_momentum,
        compute_hydrostatic_correction_term = edge_diagnostics::compute_hydrostatic_correction_term,
        compute_rho_theta_pgrad_and_update_vn = edge_diagnostics::compute_rho_theta_pgrad_and_update_vn,
        apply_divergence_damping_and_update_vn = edge_diagnostics::apply_divergence_damping_and_update_vn,
        mixed_compute_hydrostatic_correction_term = edge_diagnostics::mixed::compute_hydrostatic_correction_term,
        mixed_compute_rho_theta_pgrad_and_update_vn = edge_diagnostics::mixed::compute_rho_theta_pgrad_and_update_vn,
        mixed_apply_divergence_damping_and_update_vn = edge_diagnostics::mixed::apply_divergence_damping_and_update_vn,
    ],
    vertical_only: [
        init_diffusion_local_fields_for_regular_timestep =
            diffusion_utils::init_diffusion_local_fields_for_regular_timestep,
        init_nabla2_factor_in_upper_damping_zone =
            diffusion_utils::init_nabla2_factor_in_upper_damping_zone,
        mixed_init_diffusion_local_fields_for_regular_timestep =
            diffusion_utils::mixed::init_diffusion_local_fields_for_regular_timestep,
        mixed_init_nabla2_factor_in_upper_damping_zone =
            diffusion_utils::mixed::init_nabla2_factor_in_upper_damping_zone,
    ],
}

/// ICON programs without the four domain bounds, which therefore have no bound variants: the
/// diffusion setup programs and the dycore's K-field helpers (no bound at all), the fused solver steps and the predictor's cell
/// diagnostics, whose bounds are ICON4Py's zone indices under their own names
/// (`start_cell_index_nudging`, `end_cell_halo_level_2`, ...).
const WITHOUT_BOUNDS: &[&str] = &[
    "setup_fields_for_initial_step",
    "scale_k",
    "copy_field",
    "vertically_implicit_solver_at_predictor_step",
    "vertically_implicit_solver_at_corrector_step",
    "compute_perturbed_quantities_and_interpolation",
    "calculate_divdamp_fields",
    "compute_rayleigh_damping_factor",
];

/// Runs both bound variants of `variants` with `args` and compares every output with the
/// plain call's (`expected`).
fn check_bound(
    variants: &Variants,
    options: &Options,
    call: &Call,
    written: &[String],
    expected: &BTreeMap<String, ArrayD<f64>>,
    context: &str,
) {
    let compile: [(&str, CompileBound); 2] = [
        ("compile_time_domain", variants.compile_time_domain),
        ("compile_time_vertical", variants.compile_time_vertical),
    ];
    for (label, compile) in compile {
        let mut source = CallArgs::new(variants.path, call);
        let bound = compile(options, &mut source)
            .unwrap_or_else(|e| panic!("{} ({label}): {e}", variants.path));
        let got = outputs(&*bound, call, written);
        for name in written {
            assert!(
                bit_equal(&got[name], &expected[name]),
                "{} {context} ({label}): `{name}` differs from the plain call",
                variants.path
            );
        }
    }
}

fn check_variants(g: &TestGrid) {
    let conns = connectivities_of(&g.grid);
    for (index, variants) in VARIANTS.iter().enumerate() {
        for backend in [Backend::Embedded, Backend::Cpu] {
            let options = Options::new(backend).with_connectivities(conns.clone());
            let plain =
                (variants.plain)(&options).unwrap_or_else(|e| panic!("{}: {e}", variants.path));
            let program = plain.name();
            let signature = plain.signature();
            let written = written_by(&signature);
            let calls = icon_calls(program, g);
            assert_static_values_covered(variants.path, &signature, &calls);
            for (variant, setup) in calls.iter().enumerate() {
                let seed = 1000 * index as u64 + variant as u64;
                let call = random_call(&signature, &g.grid, setup, seed);
                let expected = outputs(&*plain, &call, &written);
                assert!(
                    written
                        .iter()
                        .any(|n| !bit_equal(&expected[n], float_param(&call, n))),
                    "{} on {}: the plain call writes nothing",
                    variants.path,
                    g.label
                );
                let context = format!("on {} ({backend:?}, variant {variant})", g.label);
                check_bound(variants, &options, &call, &written, &expected, &context);
            }
        }
        eprintln!(
            "{:<84} {}: bit-equal on embedded and cpu",
            variants.path, g.label
        );
    }
}

#[test]
fn static_variants_match_the_plain_call_on_a_global_grid() {
    check_variants(&global_grid());
}

#[test]
fn static_variants_match_the_plain_call_on_a_limited_area_grid() {
    check_variants(&limited_area_grid_with_skips_replaced());
}

/// Every ICON program of the registry with domain bounds has its variants here; the others
/// have no bound at all.
#[test]
fn every_registered_icon_program_with_domain_bounds_has_its_variants() {
    let conns = connectivities_of(&global_grid().grid);
    let options = Options::new(Backend::Embedded).with_connectivities(conns);
    let covered: Vec<&str> = VARIANTS
        .iter()
        .map(|v| {
            (v.plain)(&options)
                .unwrap_or_else(|e| panic!("{}: {e}", v.path))
                .name()
        })
        .collect();
    let cartesian: Vec<&str> = CARTESIAN.iter().map(|c| c.program).collect();
    for entry in programs::ALL {
        if cartesian.contains(&entry.name) {
            continue;
        }
        let signature = (entry.compile)(&options)
            .unwrap_or_else(|e| panic!("{}: {e}", entry.name))
            .signature();
        let has_bounds = signature
            .params
            .iter()
            .any(|p| DOMAIN_BOUNDS.contains(&p.name.as_str()));
        if has_bounds {
            assert!(
                covered.contains(&entry.name),
                "`{}` takes domain bounds but has no variants here",
                entry.name
            );
        } else {
            assert!(
                WITHOUT_BOUNDS.contains(&entry.name),
                "`{}` has no domain bounds: list it in WITHOUT_BOUNDS",
                entry.name
            );
        }
    }
    for name in WITHOUT_BOUNDS {
        assert!(
            !covered.contains(name),
            "`{name}` is both covered and left out"
        );
    }
    let copy = diffusion_utils::copy_field::compile(&options).expect("compiles");
    assert!(copy
        .signature()
        .params
        .iter()
        .all(|p| !DOMAIN_BOUNDS.contains(&p.name.as_str())));
}

// ---------------------------------------------------------------------------------------------
// Cartesian programs: domains bounded by the field sizes
// ---------------------------------------------------------------------------------------------

mod cartesian_domain {
    use super::*;
    gt4rs::bind! {
        pub mod lap = cartesian::lap(ni, nj);
        pub mod laplap = cartesian::laplap(ni, nj);
        pub mod hdiff = cartesian::hdiff(ni, nj, nk);
        pub mod vadv = cartesian::vadv(ni, nj, nk);
    }
}

mod cartesian_vertical {
    use super::*;
    gt4rs::bind! {
        pub mod hdiff = cartesian::hdiff(nk);
        pub mod vadv = cartesian::vadv(nk);
    }
}

/// A Cartesian program and its bound variants (compile-time vertical only with a K dimension).
struct CartesianVariants {
    program: &'static str,
    plain: CompilePlain,
    bound: &'static [(&'static str, CompileBound)],
}

macro_rules! cartesian_bound {
    ($label:literal, $module:ident :: $program:ident) => {
        ($label, |options, source| {
            let bound = $module::$program::Bound::from_source(source)?;
            Ok(Box::new($module::$program::compile(options, bound)?))
        })
    };
}

const CARTESIAN: &[CartesianVariants] = &[
    CartesianVariants {
        program: "lap",
        plain: |options| Ok(Box::new(cartesian::lap::compile(options)?)),
        bound: &[cartesian_bound!(
            "compile_time_domain",
            cartesian_domain::lap
        )],
    },
    CartesianVariants {
        program: "laplap",
        plain: |options| Ok(Box::new(cartesian::laplap::compile(options)?)),
        bound: &[cartesian_bound!(
            "compile_time_domain",
            cartesian_domain::laplap
        )],
    },
    CartesianVariants {
        program: "hdiff",
        plain: |options| Ok(Box::new(cartesian::hdiff::compile(options)?)),
        bound: &[
            cartesian_bound!("compile_time_domain", cartesian_domain::hdiff),
            cartesian_bound!("compile_time_vertical", cartesian_vertical::hdiff),
        ],
    },
    CartesianVariants {
        program: "vadv",
        plain: |options| Ok(Box::new(cartesian::vadv::compile(options)?)),
        bound: &[
            cartesian_bound!("compile_time_domain", cartesian_domain::vadv),
            cartesian_bound!("compile_time_vertical", cartesian_vertical::vadv),
        ],
    },
];

/// Random inputs in [-1, 1) over `ni × nj (× nk)` (`wcon` one more in I, as vadv reads
/// `wcon` at I + 1), NaN in pure outputs, and the sizes as scalars.
fn cartesian_call(
    program: &'static str,
    signature: &Signature,
    (ni, nj, nk): (usize, usize, usize),
    seed: u64,
) -> Call {
    let mut rng = testing::rng(seed);
    let mut call = Call::new();
    for p in &signature.params {
        let name = p.name.as_str();
        match (&p.kind, p.dtype) {
            (ParamKind::Field { dims }, Some(ScalarType::F64)) => {
                let shape: Vec<usize> = dims
                    .iter()
                    .map(|d| match d.as_str() {
                        "I" => ni + usize::from(name == "wcon"),
                        "J" => nj,
                        "K" => nk,
                        other => panic!("{program}: unknown dimension `{other}`"),
                    })
                    .collect();
                let array = if p.role == Role::Out {
                    testing::poisoned_array(&shape)
                } else {
                    testing::random_array_in(&mut rng, &shape, -1.0..1.0).expect("a valid range")
                };
                call = call.with_field(name, array);
            }
            (ParamKind::Scalar, Some(ScalarType::F64)) => {
                call = call.with_scalar(name, rng.random_range(0.1..1.0));
            }
            (ParamKind::Scalar, Some(ScalarType::I32)) => {
                let size = match name {
                    "ni" => ni,
                    "nj" => nj,
                    "nk" => nk,
                    other => panic!("{program}: unexpected size `{other}`"),
                };
                call = call.with_int(name, size as i32);
            }
            other => panic!("{program}: unexpected parameter `{name}`: {other:?}"),
        }
    }
    call
}

#[test]
fn cartesian_static_variants_match_the_plain_call() {
    for (index, c) in CARTESIAN.iter().enumerate() {
        for backend in [Backend::Embedded, Backend::Cpu] {
            let options = Options::new(backend);
            let plain = (c.plain)(&options).unwrap_or_else(|e| panic!("{}: {e}", c.program));
            let signature = plain.signature();
            let written = written_by(&signature);
            for (variant, sizes) in [(9, 11, 5), (12, 8, 3)].into_iter().enumerate() {
                let seed = 1000 * index as u64 + variant as u64;
                let call = cartesian_call(c.program, &signature, sizes, seed);
                let expected = outputs(&*plain, &call, &written);
                assert!(
                    written
                        .iter()
                        .any(|n| !bit_equal(&expected[n], float_param(&call, n))),
                    "{}: the plain call writes nothing",
                    c.program
                );
                for (label, compile) in c.bound {
                    let mut source = CallArgs::new(c.program, &call);
                    let bound = compile(&options, &mut source)
                        .unwrap_or_else(|e| panic!("{} ({label}): {e}", c.program));
                    let got = outputs(&*bound, &call, &written);
                    for name in &written {
                        assert!(
                            bit_equal(&got[name], &expected[name]),
                            "{} on {sizes:?} ({backend:?}, {label}): `{name}` differs from \
                             the plain call",
                            c.program
                        );
                    }
                }
            }
        }
    }
}
