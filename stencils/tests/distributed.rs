//! The diffusion granule on N ranks (threads of this process, exchanging over channels)
//! gives, gathered by global index, bit for bit the fields of one rank: on a global and on a
//! limited-area grid, over mountains (so the z-diffusion runs), with every exchange of the
//! step exercised. The same code runs over MPI with the `mpi` feature (`.ci/run`).

use std::time::Duration;

use gt4rs::debug::DebugChecks;
use gt4rs::grid::decomposition::{pattern, LocalGrid, Partition, HALO_LEVELS};
use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec};
use gt4rs::Backend;
use gt4rs_stencils::diffusion::distributed::rank::{compared_fields, owned_by_rank};
use gt4rs_stencils::diffusion::distributed::threads::ThreadTransport;
use gt4rs_stencils::diffusion::distributed::{gather_owned, PatternExchange, RankInputs};
use gt4rs_stencils::diffusion::initial::{jet_state_over, GranuleInputs, JetSpec};
use gt4rs_stencils::diffusion::{
    DiagnosticState, Diffusion, DiffusionConfig, MetricState, PrognosticState, RunOptions, Terrain,
    TerrainKind, TurbulenceShearForcing, VerticalGrid,
};
use ndarray::ArrayD;

const NLEV: usize = 12;
const STEPS: usize = 3;
const DTIME: f64 = 300.0;

fn options() -> RunOptions {
    RunOptions {
        backend: Backend::Cpu,
        debug: DebugChecks::off(),
        trace: false,
    }
}

fn fields(p: &PrognosticState, d: &DiagnosticState) -> Vec<(&'static str, GridDim, ArrayD<f64>)> {
    compared_fields(p, d).into()
}

fn steps(granule: &mut Diffusion, p: &mut PrognosticState, d: &mut DiagnosticState) {
    granule.initial_run(DTIME, p, d).expect("initial step");
    for _ in 1..STEPS {
        granule.run(DTIME, p, d).expect("step");
    }
}

fn check_bit_identical(grid: &Grid, config: DiffusionConfig, ranks: &[usize]) {
    let vertical = VerticalGrid::default_for(NLEV).expect("levels");
    let terrain = Terrain::of_kind(TerrainKind::Mountains, grid, &vertical).expect("terrain");
    let metric = MetricState::over_terrain(grid, &terrain, &config).expect("metric");
    let inputs = GranuleInputs::of(grid, metric, config).expect("inputs");
    let state = jet_state_over(grid, &vertical, &terrain, &JetSpec::default()).expect("state");

    let (mut one, mut one_diag) = inputs
        .clone()
        .init(grid, &vertical, options())
        .expect("init");
    assert!(
        one.zdiffusion_active(),
        "no steep points: the z-diffusion would not run"
    );
    let mut one_state = state.clone();
    steps(&mut one, &mut one_state, &mut one_diag);
    let reference = fields(&one_state, &one_diag);

    for &n in ranks {
        let partition = Partition::hilbert(grid, n).expect("partition");
        let locals: Vec<LocalGrid> = (0..n)
            .map(|r| LocalGrid::of_rank(grid, &partition, r).expect("local grid"))
            .collect();
        let mut patterns: Vec<Vec<_>> = vec![Vec::new(); n];
        for dim in GridDim::ALL {
            for depth in 1..=HALO_LEVELS {
                for (r, p) in pattern::patterns_of_all(&locals, dim, depth)
                    .expect("patterns")
                    .into_iter()
                    .enumerate()
                {
                    patterns[r].push(p);
                }
            }
        }
        let transports = ThreadTransport::connected(n, Duration::from_secs(120));
        let rank_inputs = RankInputs {
            grid,
            vertical: &vertical,
            inputs: &inputs,
        };
        let parts: Vec<Vec<(&str, GridDim, ArrayD<f64>)>> = std::thread::scope(|s| {
            let handles: Vec<_> = locals
                .iter()
                .zip(patterns)
                .zip(transports)
                .map(|((local, patterns), transport)| {
                    let rank_inputs = &rank_inputs;
                    let state = &state;
                    s.spawn(move || {
                        let exchange =
                            PatternExchange::new(local, patterns, transport).expect("exchange");
                        let (mut granule, mut diag) = rank_inputs
                            .granule(local, options(), Box::new(exchange))
                            .expect("rank granule");
                        let mut p = rank_inputs.prognostic(state, local).expect("rank state");
                        steps(&mut granule, &mut p, &mut diag);
                        fields(&p, &diag)
                            .into_iter()
                            .map(|(name, dim, a)| {
                                let owned = local.map(dim).owned;
                                (
                                    name,
                                    dim,
                                    a.slice_axis(ndarray::Axis(0), (0..owned).into()).to_owned(),
                                )
                            })
                            .collect()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("rank thread"))
                .collect()
        });
        for (k, (name, dim, want)) in reference.iter().enumerate() {
            let owned = owned_by_rank(grid, &partition, *dim).expect("owners");
            let got_parts: Vec<ArrayD<f64>> = parts.iter().map(|p| p[k].2.clone()).collect();
            let got = gather_owned(grid.size(*dim), &owned, &got_parts).expect("gather");
            let differing = want
                .iter()
                .zip(got.iter())
                .filter(|(a, b)| a.to_bits() != b.to_bits())
                .count();
            assert_eq!(
                differing,
                0,
                "{} on {n} ranks: {name} differs from one rank at {differing} of {} values",
                grid.kind.label(),
                want.len()
            );
        }
    }
}

#[test]
fn global_grid_on_2_3_4_ranks_is_bit_identical_to_one() {
    let grid = IcosahedralGrid::generate(2, 3).expect("R2B3");
    let config = DiffusionConfig {
        // Horizontal shear too, so the turbulence diagnostics and the gradients of w run.
        shear_type: TurbulenceShearForcing::VerticalHorizontalOfHorizontalVerticalWind,
        ..DiffusionConfig::default()
    };
    check_bit_identical(&grid, config, &[2, 3, 4]);
}

#[test]
fn limited_area_grid_on_2_3_4_ranks_is_bit_identical_to_one() {
    let grid = IcosahedralGrid::generate(2, 4)
        .expect("R2B4")
        .regional(RegionSpec {
            center_lat_deg: 46.8,
            center_lon_deg: 8.2,
            radius: 2.0e6,
        })
        .expect("region");
    check_bit_identical(&grid, DiffusionConfig::default(), &[2, 3, 4]);
}
