//! The diffusion granule's main job: `cargo run --release --example diffusion`.
//! Same as `gt4rs run diffusion` with its defaults (R2B4 × 65 levels, CPU backend). Built with
//! `--features mpi`, `mpirun -np N` runs it on N ranks; rank 0 prints.

use gt4rs_stencils::diffusion::job::{self, JobSpec};

fn main() {
    match job::run_anywhere(&JobSpec::default()) {
        Ok(Some(report)) => print!("{}", report.summary()),
        Ok(None) => {}
        Err(e) => {
            eprintln!("diffusion: {e}");
            std::process::exit(1);
        }
    }
}
