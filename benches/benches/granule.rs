//! One step of the diffusion granule at R2B4 × 65 levels on the `cpu` and `embedded` backends,
//! over flat terrain and over the main job's mountains (where the truly horizontal θ diffusion
//! over steep points runs too).
//!
//! Timed with criterion (group `granule`: `<terrain>/<backend>`, ten samples of one step each);
//! the table after its report takes the step times and the embedded / cpu ratio from the
//! estimates of this run.
//!
//! `cargo bench -p gt4rs-benches --bench granule`

use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, SamplingMode};
use gt4rs::debug::DebugChecks;
use gt4rs::grid::IcosahedralGrid;
use gt4rs::Backend;
use gt4rs_benches::figures::Run;
use gt4rs_stencils::diffusion::initial::{diffusion_over, jet_state_over, JetSpec};
use gt4rs_stencils::diffusion::{DiffusionConfig, RunOptions, Terrain, TerrainKind, VerticalGrid};

const LEVELS: usize = 65;
const DTIME: f64 = 300.0;
/// The criterion group of this benchmark.
const GROUP: &str = "granule";

/// Times one step of the granule on `backend` as `<terrain>/<backend>`, after its initial step.
fn time_step(
    group: &mut BenchmarkGroup<'_, WallTime>,
    grid: &gt4rs::grid::Grid,
    vertical: &VerticalGrid,
    terrain: &Terrain,
    backend: Backend,
) {
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
    group.bench_function(format!("{}/{}", terrain.kind, backend.name()), |b| {
        b.iter(|| {
            granule
                .run(DTIME, &mut state, &mut diagnostic)
                .expect("step runs")
        })
    });
    let finite = state.vn.as_array().iter().all(|v| v.is_finite());
    assert!(finite, "{} produced non-finite vn", backend.name());
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
    let kinds = [TerrainKind::Flat, TerrainKind::Mountains];
    let mut run = Run::start();
    {
        let mut group = run.criterion.benchmark_group(GROUP);
        // A step takes 0.1 s on the CPU backend and seconds on the embedded one: ten samples of
        // one step each.
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        for kind in kinds {
            let terrain = Terrain::of_kind(kind, &grid, &vertical).expect("terrain");
            for backend in [Backend::Cpu, Backend::Embedded] {
                time_step(&mut group, &grid, &vertical, &terrain, backend);
            }
        }
        group.finish();
    }
    let estimates = run.finish();
    println!(
        "\n{:<10} {:<10} {:>12} {:>16}",
        "terrain", "backend", "step ms", "embedded / cpu"
    );
    for kind in kinds {
        let ids = [format!("{kind}/cpu"), format!("{kind}/embedded")];
        match estimates.medians(GROUP, [ids[0].as_str(), ids[1].as_str()]) {
            Ok([cpu, embedded]) => {
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
            Err(why) => println!("{kind:<10} {why}"),
        }
    }
}
