//! One step of the diffusion granule at R2B4 × 65 levels on the `cpu` and `embedded` backends,
//! over flat terrain and over the main job's mountains (where the truly horizontal θ diffusion
//! over steep points runs too).
//!
//! `cargo bench -p gt4rs-benches --bench granule`

use std::time::Duration;

use gt4rs::debug::DebugChecks;
use gt4rs::grid::IcosahedralGrid;
use gt4rs::Backend;
use gt4rs_benches::harness::median_time;
use gt4rs_stencils::diffusion::initial::{diffusion_over, jet_state_over, JetSpec};
use gt4rs_stencils::diffusion::{DiffusionConfig, RunOptions, Terrain, TerrainKind, VerticalGrid};

const LEVELS: usize = 65;
const DTIME: f64 = 300.0;

fn step_time(
    grid: &gt4rs::grid::Grid,
    vertical: &VerticalGrid,
    terrain: &Terrain,
    backend: Backend,
) -> Duration {
    let options = RunOptions {
        backend,
        debug: DebugChecks::off(),
        trace: false,
    };
    let (mut granule, mut diagnostic) =
        diffusion_over(grid, vertical, terrain, DiffusionConfig::default(), options)
            .expect("granule initialises");
    assert_eq!(
        granule.zdiffusion_active(),
        terrain.kind == TerrainKind::Mountains
    );
    let mut state = jet_state_over(grid, vertical, terrain, &JetSpec::default()).expect("state");
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
    println!(
        "{:<10} {:<10} {:>12} {:>16}",
        "terrain", "backend", "step ms", "embedded / cpu"
    );
    for kind in [TerrainKind::Flat, TerrainKind::Mountains] {
        let terrain = Terrain::of_kind(kind, &grid, &vertical).expect("terrain");
        let cpu = step_time(&grid, &vertical, &terrain, Backend::Cpu);
        let embedded = step_time(&grid, &vertical, &terrain, Backend::Embedded);
        println!(
            "{:<10} {:<10} {:>12.2}",
            kind,
            "cpu",
            cpu.as_secs_f64() * 1e3
        );
        println!(
            "{:<10} {:<10} {:>12.2} {:>16.1}",
            kind,
            "embedded",
            embedded.as_secs_f64() * 1e3,
            embedded.as_secs_f64() / cpu.as_secs_f64()
        );
    }
}
