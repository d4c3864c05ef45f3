//! The main job on the ranks of an MPI job: every rank builds the global inputs, keeps its
//! part of the decomposed grid and steps it; rank 0 gathers the fields by global index,
//! prints the progress, the tables and a per-rank split of exchange and program time, and
//! draws the same pictures as one rank plus the partition.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use gt4rs::grid::decomposition::{LocalGrid, Partition};
use gt4rs::grid::Grid;
use gt4rs::profiling::Phase;
use gt4rs::Error;
use ndarray::{Array2, ArrayD, Axis, IxDyn};

use super::distributed::mpi::MpiWorld;
use super::distributed::rank::{compared_fields, owned_by_rank};
use super::distributed::{gather_owned, PatternExchange, RankInputs};
use super::granule::RunOptions;
use super::initial::{jet_state_over, jet_vn_over, GranuleInputs};
use super::job::{self, draw_pictures, progress_bar, JobReport, JobSpec, Pictured, STEP_TIMER};
use super::plot::{self, MapPanel, MapTiles};
use super::state::{MetricState, PrognosticState};
use super::terrain::Terrain;
use super::vertical::VerticalGrid;

/// Fault injection for the tests of the error paths: the rank named by `GT4RS_FAIL_RANK`
/// fails its set-up, the one named by `GT4RS_STALL_RANK` stops answering (sleeps) before it.
fn injected_fault(rank: usize) -> Result<(), Error> {
    let named = |var: &str| {
        std::env::var(var)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
    };
    if named("GT4RS_STALL_RANK") == Some(rank) {
        std::thread::sleep(Duration::from_secs(3600));
    }
    if named("GT4RS_FAIL_RANK") == Some(rank) {
        return Err(Error::Config(format!(
            "rank {rank} fails its set-up on purpose (GT4RS_FAIL_RANK)"
        )));
    }
    Ok(())
}

/// Everything every rank computes on the global grid.
struct Global {
    grid: Grid,
    vertical: VerticalGrid,
    terrain: Terrain,
    inputs: GranuleInputs,
    state: PrognosticState,
    jet: Array2<f64>,
}

fn global(spec: &JobSpec) -> Result<Global, Error> {
    let grid = crate::cli::grid::build(&spec.grid)?;
    let vertical = VerticalGrid::default_for(spec.levels)?;
    let terrain = Terrain::of_kind(spec.terrain, &grid, &vertical)?;
    let metric = MetricState::over_terrain(&grid, &terrain, &spec.config)?;
    let inputs = GranuleInputs::of(&grid, metric, spec.config.clone())?;
    let state = jet_state_over(&grid, &vertical, &terrain, &spec.jet)?;
    let jet = jet_vn_over(&grid, &vertical, &terrain, spec.jet.u_max)?;
    Ok(Global {
        grid,
        vertical,
        terrain,
        inputs,
        state,
        jet,
    })
}

/// Runs the job on every rank of `world`; the report comes back on rank 0.
pub fn run_on_ranks(spec: &JobSpec, world: &MpiWorld) -> Result<Option<JobReport>, Error> {
    let setup_start = Instant::now();
    let (rank, ranks) = (world.rank(), world.size());
    let root = rank == 0;
    let g = world.agree(
        "building the grid and fields",
        injected_fault(rank).and_then(|()| global(spec)),
    )?;
    let partition = world.agree("partitioning", Partition::hilbert(&g.grid, ranks))?;
    let local = world.agree(
        "cutting this rank's grid",
        LocalGrid::of_rank(&g.grid, &partition, rank),
    )?;
    let patterns = world.agree("building the exchange patterns", world.patterns(&local))?;
    let exchange = world.agree(
        "preparing the halo exchange",
        PatternExchange::new(&local, patterns, world.transport()),
    )?;
    let rank_inputs = RankInputs {
        grid: &g.grid,
        vertical: &g.vertical,
        inputs: &g.inputs,
    };
    let built = RunOptions::new(spec.backend).and_then(|mut options| {
        options.trace = spec.trace.is_some() && root;
        let (granule, diagnostic) = rank_inputs.granule(&local, options, Box::new(exchange))?;
        let state = rank_inputs.prognostic(&g.state, &local)?;
        Ok((granule, diagnostic, state))
    });
    let (mut granule, mut diagnostic, mut state) =
        world.agree("initialising the granule", built)?;
    let setup = setup_start.elapsed();

    // The small-scale variance: each rank adds its owned edges, rank 0 prints the total.
    let owned_edges: Vec<usize> = local.edges.global[..local.edges.owned].to_vec();
    let owned_jet = g.jet.select(Axis(0), &owned_edges);
    let values = (g.grid.num_edges * spec.levels).max(1) as f64;
    let variance = |vn: &ArrayD<f64>| -> f64 {
        let owned = vn.slice_axis(Axis(0), (0..owned_edges.len()).into());
        let partial: f64 = owned
            .iter()
            .zip(owned_jet.iter())
            .map(|(v, j)| (v - j) * (v - j))
            .sum();
        world.sum(partial) / values
    };
    let mut small_scale_variance = vec![variance(&state.vn.as_array().to_owned())];
    let bar = progress_bar("diffusion", spec.progress_bar && root, spec.steps);
    let mut stepping = Duration::ZERO;
    for step in 0..spec.steps {
        let start = Instant::now();
        let result = if step == 0 {
            granule.initial_run(spec.dtime, &mut state, &mut diagnostic)
        } else {
            granule.run(spec.dtime, &mut state, &mut diagnostic)
        };
        world.agree(&format!("step {step}"), result)?;
        let took = start.elapsed();
        granule
            .profiler()
            .record(STEP_TIMER, Phase::Run, start, took);
        stepping += took;
        let v = variance(&state.vn.as_array().to_owned());
        small_scale_variance.push(v);
        bar.set_message(format!("small-scale vn variance {v:.4} m²/s²"));
        bar.inc(1);
    }
    bar.finish();

    // Per-rank split of a step's time, and what it sent.
    let steps = spec.steps.max(1) as f64;
    let (in_programs, in_exchanges) = granule.time_split();
    let stats = granule.exchange_stats();
    let mine = [
        in_programs.as_secs_f64() * 1e3 / steps,
        in_exchanges.as_secs_f64() * 1e3 / steps,
        stats.bytes_sent as f64 / steps,
        stats.messages_sent as f64 / steps,
        local.cells.owned as f64,
        (local.cells.len() - local.cells.owned) as f64,
        local.edges.owned as f64,
        (local.edges.len() - local.edges.owned) as f64,
    ];
    let per_rank = world.gather(&mine)?;

    let mut gathered = Vec::new();
    for (name, dim, array) in compared_fields(&state, &diagnostic) {
        let owned = local.map(dim).owned;
        let rows: Vec<f64> = array
            .slice_axis(Axis(0), (0..owned).into())
            .iter()
            .copied()
            .collect();
        if let Some(parts) = world.gather(&rows)? {
            let row_shape = array.shape()[1..].to_vec();
            let owners = owned_by_rank(&g.grid, &partition, dim)?;
            let arrays = parts
                .into_iter()
                .zip(&owners)
                .map(|(values, globals)| {
                    let mut shape = vec![globals.len()];
                    shape.extend(&row_shape);
                    ArrayD::from_shape_vec(IxDyn(&shape), values)
                        .map_err(|e| Error::Shape(format!("gathering {name}: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            gathered.push((name, gather_owned(g.grid.size(dim), &owners, &arrays)?));
        }
    }
    let Some(per_rank) = per_rank else {
        return Ok(None);
    };

    let comparison = if spec.compare_single_rank {
        Some(compare_with_one_rank(spec, &g, &gathered)?)
    } else {
        None
    };
    let quality = partition.quality(&g.grid)?;
    let mut decomposition = format!(
        "{ranks} ranks, Hilbert-curve partition: edge cut {} of {} edges, {}..{} cells per rank (max/mean {:.3})\n\
         rank  owned cells  halo cells  owned edges  halo edges  programs ms/step  exchanges ms/step  exchange share  kB sent/step  messages/step\n",
        quality.edge_cut,
        g.grid.num_edges,
        quality.min_cells,
        quality.max_cells,
        quality.imbalance
    );
    for (r, row) in per_rank.iter().enumerate() {
        let &[programs, exchanges, bytes, messages, oc, hc, oe, he] = row.as_slice() else {
            return Err(Error::Shape(format!("rank {r} sent {} timings", row.len())));
        };
        let _ = writeln!(
            decomposition,
            "{r:>4}  {oc:>11}  {hc:>10}  {oe:>11}  {he:>10}  {programs:>16.2}  {exchanges:>17.2}  {:>13.1}%  {:>12.1}  {messages:>13}",
            100.0 * exchanges / (programs + exchanges).max(f64::MIN_POSITIVE),
            bytes / 1e3
        );
    }

    let field = |name: &str| {
        gathered
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, a)| a.clone())
            .ok_or_else(|| Error::Config(format!("{name} was not gathered")))
    };
    let drawing = Instant::now();
    let mut files = draw_pictures(
        spec,
        &Pictured {
            grid: &g.grid,
            vertical: &g.vertical,
            terrain: &g.terrain,
            metric: &g.inputs.metric,
            jet: &g.jet,
            initial_vn: &g.state.vn.as_array().to_owned(),
            final_vn: &field("vn")?,
            initial_theta: &g.state.theta_v.as_array().to_owned(),
            final_theta: &field("theta_v")?,
            small_scale_variance: &small_scale_variance,
            steep_columns: steep(&g.inputs.metric).0,
        },
    )?;
    let path = spec.out.join("partition.png");
    let spread = (ranks.max(2) - 1) as f64;
    let colour: Vec<f64> = partition
        .cell_rank
        .iter()
        .map(|&r| 2.0 * f64::from(r) / spread - 1.0)
        .collect();
    plot::maps(
        &path,
        &format!(
            "{} on {ranks} ranks (Hilbert curve): edge cut {}, max/mean cells {:.3}",
            g.grid.kind.label(),
            quality.edge_cut,
            quality.imbalance
        ),
        &MapTiles::cells(&g.grid)?,
        &[MapPanel {
            title: format!("owning rank of each cell, 0 (blue) to {} (red)", ranks - 1),
            values: &colour,
        }],
        1.0,
        "rank (scaled)",
    )?;
    files.push(path);
    let pictures = drawing.elapsed();
    if let Some(trace) = &spec.trace {
        job::write_checked_trace(granule.profiler(), trace)?;
        files.push(trace.clone());
    }
    let (steep_columns, steep_points) = steep(&g.inputs.metric);
    Ok(Some(JobReport {
        grid: g.grid.kind.label(),
        cells: g.grid.num_cells,
        edges: g.grid.num_edges,
        levels: spec.levels,
        steps: spec.steps,
        backend: spec.backend,
        setup,
        mean_step: stepping / spec.steps.max(1) as u32,
        pictures,
        table: granule.profiler().table(),
        small_scale_variance,
        zdiffusion_active: granule.zdiffusion_active(),
        terrain: spec.terrain,
        max_height: g.terrain.topography.iter().copied().fold(0.0, f64::max),
        steep_columns,
        steep_points,
        files,
        ranks,
        decomposition,
        comparison,
    }))
}

fn steep(metric: &MetricState) -> (usize, usize) {
    metric
        .zdiffusion
        .as_ref()
        .map_or((0, 0), |zd| (zd.steep_columns(), zd.steep_points()))
}

/// Runs the same steps on one rank in this process and compares every gathered field bit
/// for bit.
fn compare_with_one_rank(
    spec: &JobSpec,
    g: &Global,
    gathered: &[(&'static str, ArrayD<f64>)],
) -> Result<String, Error> {
    let mut options = RunOptions::new(spec.backend)?;
    options.trace = false;
    let (mut granule, mut diagnostic) = g.inputs.clone().init(&g.grid, &g.vertical, options)?;
    let mut state = g.state.clone();
    for step in 0..spec.steps {
        if step == 0 {
            granule.initial_run(spec.dtime, &mut state, &mut diagnostic)?;
        } else {
            granule.run(spec.dtime, &mut state, &mut diagnostic)?;
        }
    }
    let mut values = 0;
    let mut differences = Vec::new();
    for ((name, _, want), (_, got)) in compared_fields(&state, &diagnostic).iter().zip(gathered) {
        values += want.len();
        let differing = want
            .iter()
            .zip(got.iter())
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        if want.shape() != got.shape() || differing > 0 {
            differences.push(format!(
                "{name}: {differing} of {} values differ",
                want.len()
            ));
        }
    }
    if differences.is_empty() {
        Ok(format!(
            "bit-identical to one rank: {} fields ({}), {values} values after {} steps",
            gathered.len(),
            gathered
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", "),
            spec.steps
        ))
    } else {
        Err(Error::Config(format!(
            "the run on several ranks differs from one rank: {}",
            differences.join("; ")
        )))
    }
}
