//! The diffusion granule's main job: `cargo run --release --example diffusion`.
//! Same as `gt4rs run diffusion` with its defaults (R2B4 × 65 levels, CPU backend).

use gt4rs_stencils::diffusion::job::{self, JobSpec};

fn main() {
    match job::run(&JobSpec::default()) {
        Ok(report) => print!("{}", report.summary()),
        Err(e) => {
            eprintln!("diffusion: {e}");
            std::process::exit(1);
        }
    }
}
