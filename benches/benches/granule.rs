//! One step of the diffusion granule at R2B4 × 65 levels on the `cpu` and `embedded` backends.
//!
//! `cargo bench -p gt4rs-benches --bench granule`

use std::time::Duration;

use gt4rs::debug::DebugChecks;
use gt4rs::grid::IcosahedralGrid;
use gt4rs::Backend;
use gt4rs_benches::harness::median_time;
use gt4rs_stencils::diffusion::initial::{diffusion_on, jet_state, JetSpec};
use gt4rs_stencils::diffusion::{DiffusionConfig, RunOptions, VerticalGrid};

const LEVELS: usize = 65;
const DTIME: f64 = 300.0;

fn step_time(grid: &gt4rs::grid::Grid, vertical: &VerticalGrid, backend: Backend) -> Duration {
    let options = RunOptions {
        backend,
        debug: DebugChecks::off(),
        trace: false,
    };
    let (mut granule, mut diagnostic) =
        diffusion_on(grid, vertical, DiffusionConfig::default(), options)
            .expect("granule initialises");
    let mut state = jet_state(grid, vertical, &JetSpec::default()).expect("state");
    granule
        .initial_run(DTIME, &mut state, &mut diagnostic)
        .expect("initial step runs");
    let (min_reps, min_time) = match backend {
        Backend::Embedded => (3, Duration::from_secs(5)),
        _ => (10, Duration::from_secs(3)),
    };
    let time = median_time(min_reps, min_time, || {
        granule
            .run(DTIME, &mut state, &mut diagnostic)
            .expect("step runs")
    });
    let finite = state.vn.as_array().iter().all(|v| v.is_finite());
    assert!(finite, "{} produced non-finite vn", backend.name());
    time
}

fn main() {
    let grid = IcosahedralGrid::generate(2, 4).expect("R2B4 generates");
    let vertical = VerticalGrid::default_for(LEVELS).expect("valid vertical grid");
    println!(
        "diffusion granule step, R2B4 ({} cells, {} edges, {} vertices) x {LEVELS} levels, {} rayon threads",
        grid.num_cells,
        grid.num_edges,
        grid.num_vertices,
        rayon::current_num_threads()
    );
    let cpu = step_time(&grid, &vertical, Backend::Cpu);
    let embedded = step_time(&grid, &vertical, Backend::Embedded);
    println!("{:<10} {:>12}", "backend", "step ms");
    println!("{:<10} {:>12.2}", "cpu", cpu.as_secs_f64() * 1e3);
    println!("{:<10} {:>12.2}", "embedded", embedded.as_secs_f64() * 1e3);
    println!(
        "embedded / cpu = {:.1}",
        embedded.as_secs_f64() / cpu.as_secs_f64()
    );
}
