//! The dycore programs against ICON4Py's own outputs: every file of `refs/icon4py/dycore`
//! (recorded by `tools/icon4py/record_dycore`: ICON4Py's programs on GT4Py's gtfn_cpu backend,
//! on a global R2B0 grid, a limited-area cut of R2B3 and ICON4Py's simple grid, in double and
//! mixed precision) runs through `gt4rs verify` on the embedded and the CPU backend and on the
//! CUDA kernels emulated on the host (skipped without g++), and every output must agree with
//! ICON4Py's at every point. Every program of `implicit_solver::PROGRAMS` has its files on every
//! grid in both precisions; every one of `vertically_implicit_dycore_solver::PROGRAMS`,
//! `compute_cell_diagnostics_for_dycore::PROGRAMS`,
//! `compute_edge_diagnostics_for_dycore_and_update_vn::PROGRAMS`,
//! `compute_horizontal_velocity_quantities::PROGRAMS`,
//! `compute_advection_in_horizontal_momentum_equation::PROGRAMS` and
//! `compute_advection_in_vertical_momentum_equation::PROGRAMS` in double precision with every
//! variant recorded; every one of `boundary_and_halo_updates::PROGRAMS` and
//! `dycore_utils::PROGRAMS` in both precisions.

use std::path::{Path, PathBuf};

use gt4rs::{Backend, Options};
use gt4rs_stencils::cli::verify::{verify_file_with, FileOutcome};
use gt4rs_stencils::icon::dsl::compute_edge_diagnostics_for_dycore_and_update_vn as edge_diagnostics;
use gt4rs_stencils::icon::dsl::{
    boundary_and_halo_updates, compute_advection_in_horizontal_momentum_equation,
    compute_advection_in_vertical_momentum_equation, compute_cell_diagnostics_for_dycore,
    compute_horizontal_velocity_quantities, dycore_utils, implicit_solver,
    vertically_implicit_dycore_solver,
};
use gt4rs_tests::cuda_host::{emulated, gxx_available, TUNINGS};
use gt4rs_tests::refs::{icon4py_refs, npz_files_in};

/// The grids the data is recorded on (folders of `refs/icon4py/dycore`).
const GRIDS: [&str; 3] = ["r2b0", "r2b3-regional", "simple"];

/// Largest relative error of one element in double precision. ICON4Py's gtfn_cpu code and
/// gt4rs compute the same operations in the same order: they agree bit for bit today.
const DOUBLE_RTOL: f64 = 1e-12;

/// Largest relative error of one element in mixed precision: the same f32 operations in the
/// same order, so today also bit for bit; ICON4Py's stencil tests accept 3e-6 (about 50 f32
/// roundings), the bound kept here for a reordering a compiler may make.
const MIXED_RTOL: f64 = 3e-6;

fn dycore_refs() -> PathBuf {
    icon4py_refs().join("dycore")
}

fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = GRIDS
        .iter()
        .flat_map(|grid| npz_files_in(&dycore_refs().join(grid)))
        .collect();
    files.sort();
    files
}

fn is_mixed(file: &Path) -> bool {
    file.file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s.contains("__mixed"))
}

/// Runs every file with `options`; returns the largest error seen.
fn check_every_file(options: &Options) -> f64 {
    let files = files();
    assert!(!files.is_empty(), "no .npz in {}", dycore_refs().display());
    let mut worst = 0.0f64;
    for file in &files {
        let rtol = if is_mixed(file) {
            MIXED_RTOL
        } else {
            DOUBLE_RTOL
        };
        match verify_file_with(file, options, rtol) {
            FileOutcome::Checked { outputs, .. } => {
                for o in &outputs {
                    assert!(o.pass, "{}: {o:?}", file.display());
                    worst = worst.max(o.max_rel);
                }
            }
            FileOutcome::Unrunnable(why) => panic!("{}: {why}", file.display()),
        }
    }
    worst
}

/// ICON4Py 0.4.1 cannot run its fused solver programs in mixed precision: GT4Py rejects the
/// forward sweep's scan, whose return annotation says `(wpfloat, wpfloat)` while it returns
/// `(vpfloat, wpfloat)` ("Annotated return type does not match deduced return type"). Their
/// mixed versions have no ICON4Py data; the pieces they call have. Nor can it run its cell
/// diagnostics in mixed precision: GT4Py rejects their module ("Invalid argument types in call
/// to '_compute_perturbation_of_rho_and_theta'": the predictor's field operator passes wpfloat
/// references of ρ and θ_v where vpfloat ones are taken; the corrector's program passes the
/// wpfloat contravariant correction and reference θ_v to its field operator, which takes
/// vpfloat ones). Only the predictor's cell diagnostics take a static argument. Nor can it run
/// the edge quantities of `compute_horizontal_velocity_quantities.py` in mixed precision: GT4Py
/// rejects the module ("Invalid argument types in call to '_interpolate_to_half_levels'": the
/// vpfloat tangential wind passed where a wpfloat interpolant is taken, in
/// `compute_diagnostics_from_normal_wind.py`, which the module imports). The lateral-boundary
/// and halo updates and the K-field helpers run in both precisions. Nor can it run velocity
/// advection's advection of vn in mixed precision: GT4Py rejects the module ("Could not promote
/// 'Field[[Edge, K], float32]' and 'Field[[Edge, K], float64]'": the vpfloat horizontal
/// advection is added to the wpfloat vertical advection), nor its advection of w ("Invalid
/// argument types in call to '_compute_horizontal_advection_term_for_vertical_velocity'": the
/// wpfloat tangential wind is passed where a vpfloat one is taken). Of these only the
/// corrector's advection of w takes no static argument. Nor its edge diagnostics: GT4Py rejects
/// the hydrostatic correction (it multiplies the vpfloat `zdiff_gradp` with wpfloat values) and
/// the module of the two vn updates (it compares the vpfloat `pg_exdist` with a wpfloat
/// literal). The predictor's vn update has a variant with both static flags off; the
/// corrector's one with fourth-order damping alone and one with every static flag off.
///
/// The files each program has on every grid: its name with each suffix.
fn recorded_suffixes(program: &str) -> &'static [&'static str] {
    const BOTH_PRECISIONS: &[&str] = &["", "__mixed"];
    const DOUBLE_WITH_VARIANT: &[&str] = &["", "__static_values_off"];
    const DOUBLE: &[&str] = &[""];
    if implicit_solver::PROGRAMS.contains(&program)
        || boundary_and_halo_updates::PROGRAMS.contains(&program)
        || program == dycore_utils::compute_rayleigh_damping_factor::NAME
    {
        BOTH_PRECISIONS
    } else if program == dycore_utils::calculate_divdamp_fields::NAME {
        &[
            "",
            "__static_values_off",
            "__mixed",
            "__mixed_static_values_off",
        ]
    } else if program == compute_horizontal_velocity_quantities::compute_averaged_vn_and_fluxes::NAME
    {
        &["", "__later_substep", "__static_values_off"]
    } else if program == edge_diagnostics::apply_divergence_damping_and_update_vn::NAME {
        &["", "__fourth_order", "__static_values_off"]
    } else if vertically_implicit_dycore_solver::PROGRAMS.contains(&program)
        || compute_advection_in_horizontal_momentum_equation::PROGRAMS.contains(&program)
        || [
            compute_cell_diagnostics_for_dycore::compute_perturbed_quantities_and_interpolation::NAME,
            edge_diagnostics::compute_rho_theta_pgrad_and_update_vn::NAME,
            compute_advection_in_vertical_momentum_equation::compute_advection_in_predictor_vertical_momentum::NAME,
        ]
        .contains(&program)
    {
        DOUBLE_WITH_VARIANT
    } else {
        DOUBLE
    }
}

#[test]
fn every_dycore_program_has_reference_data_on_every_grid() {
    let programs = [
        implicit_solver::PROGRAMS,
        vertically_implicit_dycore_solver::PROGRAMS,
        compute_cell_diagnostics_for_dycore::PROGRAMS,
        edge_diagnostics::PROGRAMS,
        compute_horizontal_velocity_quantities::PROGRAMS,
        compute_advection_in_horizontal_momentum_equation::PROGRAMS,
        compute_advection_in_vertical_momentum_equation::PROGRAMS,
        boundary_and_halo_updates::PROGRAMS,
        dycore_utils::PROGRAMS,
    ];
    for grid in GRIDS {
        for program in programs.iter().copied().flatten() {
            for suffix in recorded_suffixes(program) {
                let file = dycore_refs()
                    .join(grid)
                    .join(format!("{program}{suffix}.npz"));
                assert!(file.is_file(), "{} is missing", file.display());
            }
        }
    }
}

#[test]
fn every_dycore_reference_passes_on_the_embedded_backend() {
    let worst = check_every_file(&Options::new(Backend::Embedded));
    eprintln!("embedded: largest relative error {worst:e}");
}

#[test]
fn every_dycore_reference_passes_on_the_cpu_backend() {
    let worst = check_every_file(&Options::new(Backend::Cpu));
    eprintln!("cpu: largest relative error {worst:e}");
}

/// On a device: the device's math functions are not glibc's, within the same tolerances.
/// Skipped without one.
#[test]
fn every_dycore_reference_passes_on_a_cuda_device() {
    if !gt4rs::cuda::cuda_available() {
        eprintln!(
            "skipped: no usable CUDA device ({})",
            gt4rs::cuda::unavailable_reason()
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
        return;
    }
    let worst = check_every_file(&Options::new(Backend::Cuda));
    eprintln!("CUDA device: largest relative error {worst:e}");
}

#[test]
fn every_dycore_reference_passes_on_the_emulated_cuda_kernels() {
    if !gxx_available() {
        eprintln!("skipped: no g++");
        return;
    }
    for cuda in TUNINGS {
        let worst = check_every_file(&emulated(&Options::new(Backend::Cuda), cuda));
        eprintln!("emulated CUDA {cuda:?}: largest relative error {worst:e}");
    }
}
