//! `gt4rs run diffusion` and `gt4rs run dycore`: the main jobs.

use crate::cli::stdout::out;
use std::path::PathBuf;

use gt4rs::{Backend, Error};

use crate::diffusion::job::{self, JobSpec};
use crate::diffusion::TerrainKind;

/// Runs the job (on every rank of an MPI job with the `mpi` feature), prints its summary on
/// rank 0, and returns whether it succeeded.
#[allow(clippy::too_many_arguments)]
pub fn diffusion(
    grid: &str,
    levels: usize,
    steps: usize,
    backend: Backend,
    trace: Option<PathBuf>,
    out: PathBuf,
    terrain: TerrainKind,
    compare_single_rank: bool,
) -> Result<bool, Error> {
    let spec = JobSpec {
        grid: grid.to_string(),
        levels,
        steps,
        backend,
        trace,
        out,
        terrain,
        compare_single_rank,
        ..JobSpec::default()
    };
    if let Some(report) = job::run_anywhere(&spec)? {
        out!("{}", report.summary());
    }
    Ok(true)
}

/// Runs the dynamical core's job and prints its summary.
pub fn dycore(spec: &crate::dycore::job::JobSpec) -> Result<bool, Error> {
    let report = crate::dycore::job::run(spec)?;
    out!("{}", report.summary());
    Ok(true)
}
