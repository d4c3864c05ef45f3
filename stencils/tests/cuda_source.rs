//! Every stencil of this crate has a CUDA translation, and it compiles as C++ against the CUDA
//! shim (`tests/cuda_shim.h`) with C struct layouts equal to the kernel program's offsets. Needs
//! no GPU; the g++ check skips where g++ is missing.

use std::process::Command;

use gt4rs::__private::cuda_source::Translation;
use gt4rs_stencils::programs;
use gt4rs_tests::cuda_host::{gxx_available, host_source};

/// The CUDA translation of every program of the registry.
fn all() -> impl Iterator<Item = Translation> {
    programs::ALL.iter().map(|p| (p.translation)())
}

#[test]
fn every_registry_entry_hands_out_the_translation_of_its_program() {
    for p in programs::ALL {
        let t = (p.translation)();
        assert_eq!((t.name, t.program.name.as_str()), (p.name, p.name));
    }
}

#[test]
fn every_stencil_has_a_cuda_translation() {
    let missing: Vec<String> = all()
        .filter_map(|t| t.kernels.err().map(|w| format!("{}: {w}", t.name)))
        .collect();
    assert!(missing.is_empty(), "no CUDA translation: {missing:#?}");
}

#[test]
fn every_stencil_compiles_as_cpp_with_the_cuda_shim() {
    if !gxx_available() {
        eprintln!("skipped: no g++ on this machine");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    for t in all() {
        if t.kernels.is_err() {
            continue;
        }
        let name = t.name;
        // The shim, the source, a size and offset check of every parameter struct, the runners.
        let text = host_source(t.source, t.kernels());
        let file = dir.path().join(format!("{name}.cpp"));
        std::fs::write(&file, &text).expect("writable");
        // `-Wall` warns on unused variables too: the kernels declare only what they use, as
        // NVRTC warns on the rest (#177, #550).
        let out = Command::new("g++")
            .args([
                "-std=c++17",
                "-fsyntax-only",
                "-Wall",
                "-Wno-unknown-pragmas",
            ])
            .arg(&file)
            .output()
            .expect("g++ runs");
        if !out.status.success() || !out.stderr.is_empty() {
            failures.push(format!("{name}:\n{}", String::from_utf8_lossy(&out.stderr)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The kernels whose level bodies are large redo their column work at every level from an
/// opaque copy of their point, without unrolling the level loop (else NVRTC keeps that work live
/// across the level block: 168 registers and spills on sm_90, docs/cuda.md); every other kernel
/// unrolls its level block as before. Since gathers read in branches became temporaries with a
/// mask, two of these kernels read a temporary their stage 0 writes, and the threshold came
/// down (200 statements) to keep `apply_diffusion_to_theta_and_exner` within budget (one stage
/// since its edge gradient, two neighbour reads, is recomputed per cell).
#[test]
fn only_large_level_bodies_recompute_their_column_work_per_level() {
    let large = [
        "compute_diagnostics_from_normal_wind_stage1",
        "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence_stage1",
        "apply_diffusion_to_theta_and_exner_stage0",
        "apply_diffusion_to_vn_stage0",
        "vertically_implicit_solver_at_predictor_step_stage0",
        "vertically_implicit_solver_at_predictor_step_stage5",
        "vertically_implicit_solver_at_corrector_step_stage4",
        // Its stage 6 reads each point once since a shift and its inverse join (eighteenth
        // session): under the threshold.
        "compute_perturbed_quantities_and_interpolation_stage5",
        "compute_horizontal_velocity_quantities_and_fluxes_stage0",
        "compute_averaged_vn_and_fluxes_stage0",
        "compute_advection_in_horizontal_momentum_stage2",
        "compute_advection_in_predictor_vertical_momentum_stage0",
        "compute_advection_in_corrector_vertical_momentum_stage1",
        "compute_rho_theta_pgrad_and_update_vn_stage1",
        "compute_rho_theta_pgrad_and_update_vn_stage2",
        // The vn update computing θ_v or the pressure gradient again (one of its read-back
        // stages loads both and is small).
        "compute_rho_theta_pgrad_and_update_vn_stage4",
        "compute_rho_theta_pgrad_and_update_vn_stage5",
        "compute_rho_theta_pgrad_and_update_vn_stage6",
        "apply_divergence_damping_and_update_vn_stage0",
        // Its flux limiter's `select` reads guarded (twelfth session): over the threshold.
        "hdiff_stage0",
    ];
    let mut wrong = Vec::new();
    for t in all() {
        for k in t.kernels() {
            let start = t
                .source
                .find(&format!(" {}(", k.name))
                .unwrap_or_else(|| panic!("{}: no definition", k.name));
            let body = &t.source[start..];
            let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
            let per_level = body.contains("GT4RS_OPAQUE(i0);") && body.contains("#pragma unroll 1");
            if per_level != large.contains(&k.name.as_str()) {
                wrong.push(format!("{} (per level: {per_level})", k.name));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
