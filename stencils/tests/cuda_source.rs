//! Every stencil of this crate has a CUDA translation, and it compiles as C++ against the CUDA
//! shim (`tests/cuda_shim.h`) with C struct layouts equal to the Rust parameter structs. Needs
//! no GPU; the g++ check skips where g++ is missing.

use std::process::Command;

use gt4rs::__private::cuda_source::KernelInfo;
use gt4rs_stencils::cartesian::dsl as cartesian;
use gt4rs_stencils::icon::dsl::{
    diffusion, diffusion_utils, interpolation, solver, velocity_advection,
};

const SHIM: &str = include_str!("../../tests/cuda_shim.h");

type Translation = (
    &'static str,
    &'static str,
    &'static [KernelInfo],
    Option<&'static str>,
);

macro_rules! translations {
    ($($module:ident :: $program:ident),* $(,)?) => {
        vec![$((
            stringify!($program),
            $module::$program::cuda::SOURCE,
            $module::$program::cuda::KERNELS,
            $module::$program::cuda::UNSUPPORTED,
        )),*]
    };
}

fn all() -> Vec<Translation> {
    translations![
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
        cartesian::lap,
        cartesian::laplap,
        cartesian::hdiff,
        cartesian::vadv,
    ]
}

#[test]
fn the_list_covers_every_program_of_the_crate() {
    let listed: Vec<&str> = all().iter().map(|t| t.0).collect();
    let registered: Vec<&str> = gt4rs_stencils::programs::ALL
        .iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(listed, registered);
}

#[test]
fn every_stencil_has_a_cuda_translation() {
    let missing: Vec<String> = all()
        .into_iter()
        .filter_map(|(name, _, _, why)| why.map(|w| format!("{name}: {w}")))
        .collect();
    assert!(missing.is_empty(), "no CUDA translation: {missing:#?}");
}

#[test]
fn every_stencil_compiles_as_cpp_with_the_cuda_shim() {
    if Command::new("g++").arg("--version").output().is_err() {
        eprintln!("skipped: no g++ on this machine");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    for (name, source, kernels, why) in all() {
        if why.is_some() {
            continue;
        }
        let mut text = String::from(SHIM);
        text.push_str(source);
        for k in kernels {
            text.push_str(&format!(
                "static_assert(sizeof({0}_params) == {1}, \"size\");\n",
                k.name, k.size
            ));
            for f in k.fields {
                text.push_str(&format!(
                    "static_assert(offsetof({0}_params, {1}) == {2}, \"offset of {1}\");\n",
                    k.name, f.name, f.offset
                ));
            }
        }
        let file = dir.path().join(format!("{name}.cpp"));
        std::fs::write(&file, &text).expect("writable");
        let out = Command::new("g++")
            .args([
                "-std=c++17",
                "-fsyntax-only",
                "-Wall",
                "-Wno-unknown-pragmas",
            ])
            .args(["-Wno-unused-variable", "-Wno-unused-but-set-variable"])
            .arg(&file)
            .output()
            .expect("g++ runs");
        if !out.status.success() || !out.stderr.is_empty() {
            failures.push(format!("{name}:\n{}", String::from_utf8_lossy(&out.stderr)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
