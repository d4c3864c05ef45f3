//! `gt4rs run diffusion`: the diffusion granule's main job.

use std::path::PathBuf;

use gt4rs::{Backend, Error};

use crate::diffusion::job::{self, JobSpec};
use crate::diffusion::TerrainKind;

/// Runs the job, prints its summary, and returns whether it succeeded.
pub fn diffusion(
    grid: &str,
    levels: usize,
    steps: usize,
    backend: Backend,
    trace: Option<PathBuf>,
    out: PathBuf,
    terrain: TerrainKind,
) -> Result<bool, Error> {
    let spec = JobSpec {
        grid: grid.to_string(),
        levels,
        steps,
        backend,
        trace,
        out,
        terrain,
        ..JobSpec::default()
    };
    let report = job::run(&spec)?;
    print!("{}", report.summary());
    Ok(true)
}
