//! The dynamical core's main job: `cargo run --release --example dycore`.
//! ICON's velocity advection and nonhydrostatic solver (5 substeps a model step, 12 steps of
//! 300 s) on a generated R2B4 grid × 65 levels over four Gaussian mountains, from an
//! atmosphere in solid-body rotation; CPU backend. Pictures go to `out/dycore`.

use gt4rs_stencils::dycore::job::{self, JobSpec};

fn main() {
    match job::run(&JobSpec::default()) {
        Ok(report) => print!("{}", report.summary()),
        Err(e) => {
            eprintln!("dycore: {e}");
            std::process::exit(1);
        }
    }
}
