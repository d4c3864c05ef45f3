//! The dycore programs against ICON4Py's own outputs: every file of `refs/icon4py/dycore`
//! (recorded by `tools/icon4py/record_dycore`: ICON4Py's programs on GT4Py's gtfn_cpu backend,
//! on a global R2B0 grid, a limited-area cut of R2B3 and ICON4Py's simple grid, in double and
//! mixed precision) runs through `gt4rs verify` on the embedded and the CPU backend and on the
//! CUDA kernels emulated on the host (skipped without g++), and every output must agree with
//! ICON4Py's at every point. Every program of `implicit_solver::PROGRAMS` has its files on every
//! grid in both precisions, every one of `vertically_implicit_dycore_solver::PROGRAMS`,
//! `compute_cell_diagnostics_for_dycore::PROGRAMS` and
//! `compute_edge_diagnostics_for_dycore_and_update_vn::PROGRAMS` in double precision with both
//! values of each static argument.

use std::path::{Path, PathBuf};

use gt4rs::{Backend, Options};
use gt4rs_stencils::cli::verify::{verify_file_with, FileOutcome};
use gt4rs_stencils::icon::dsl::compute_edge_diagnostics_for_dycore_and_update_vn as edge_diagnostics;
use gt4rs_stencils::icon::dsl::{
    compute_cell_diagnostics_for_dycore, implicit_solver, vertically_implicit_dycore_solver,
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
/// vpfloat ones). Only the predictor's cell diagnostics take a static argument. Nor its edge
/// diagnostics: GT4Py rejects the hydrostatic correction (it multiplies the vpfloat
/// `zdiff_gradp` with wpfloat values) and the module of the two vn updates (it compares the
/// vpfloat `pg_exdist` with a wpfloat literal). The predictor's vn update has a variant with
/// both static flags off; the corrector's one with fourth-order damping alone and one with
/// every static flag off.
#[test]
fn every_dycore_program_has_reference_data_on_every_grid() {
    for grid in GRIDS {
        for program in implicit_solver::PROGRAMS {
            for suffix in ["", "__mixed"] {
                let file = dycore_refs()
                    .join(grid)
                    .join(format!("{program}{suffix}.npz"));
                assert!(file.is_file(), "{} is missing", file.display());
            }
        }
        for program in vertically_implicit_dycore_solver::PROGRAMS {
            for suffix in ["", "__static_values_off"] {
                let file = dycore_refs()
                    .join(grid)
                    .join(format!("{program}{suffix}.npz"));
                assert!(file.is_file(), "{} is missing", file.display());
            }
        }
        for program in compute_cell_diagnostics_for_dycore::PROGRAMS {
            let suffixes: &[&str] = if *program
                == compute_cell_diagnostics_for_dycore::compute_perturbed_quantities_and_interpolation::NAME
            {
                &["", "__static_values_off"]
            } else {
                &[""]
            };
            for suffix in suffixes {
                let file = dycore_refs()
                    .join(grid)
                    .join(format!("{program}{suffix}.npz"));
                assert!(file.is_file(), "{} is missing", file.display());
            }
        }
        for program in edge_diagnostics::PROGRAMS {
            let suffixes: &[&str] = match *program {
                edge_diagnostics::compute_rho_theta_pgrad_and_update_vn::NAME => {
                    &["", "__static_values_off"]
                }
                edge_diagnostics::apply_divergence_damping_and_update_vn::NAME => {
                    &["", "__fourth_order", "__static_values_off"]
                }
                _ => &[""],
            };
            for suffix in suffixes {
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
