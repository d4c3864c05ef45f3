//! The second main job: ICON's dynamical core on a generated grid over the diffusion job's
//! mountains, from an atmosphere in solid-body rotation. A model step is ICON's: `substeps`
//! dynamical substeps (velocity advection and the nonhydrostatic solver's predictor and
//! corrector), then the diffusion granule over the whole step. With a progress bar, per-program
//! timings, an optional Chrome trace and pictures of the mountain waves.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gt4rs::grid::Grid;
use gt4rs::profiling::Phase;
use gt4rs::{Backend, Error};
use ndarray::ArrayD;

use super::config::NonHydrostaticConfig;
use super::fields::SolverFields;
use super::granule::{RunOptions, SolveNonhydro, Substep};
use super::initial::RotatingAtmosphere;
use super::state::{PrepAdvection, PrognosticState};
use crate::diffusion::config::DiffusionConfig;
use crate::diffusion::initial::diffusion_over;
use crate::diffusion::job::{progress_bar, write_checked_trace, zonal_wind_at_cells};
use crate::diffusion::plot::{self, MapPanel, MapTiles};
use crate::diffusion::state::PrognosticViews as DiffusionViews;
use crate::diffusion::terrain::{Terrain, TerrainKind};
use crate::diffusion::vertical::VerticalGrid;
use crate::diffusion::RunOptions as DiffusionRunOptions;

/// Name under which whole substeps are timed.
pub const SUBSTEP_TIMER: &str = "dycore substep (all programs)";

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// `rNbK` or a grid file with a sphere (see `gt4rs grid info`).
    pub grid: String,
    pub levels: usize,
    /// Model steps; each is `substeps` dynamical substeps.
    pub steps: usize,
    pub substeps: usize,
    /// Length of a model step (s); a substep is `dtime / substeps`.
    pub dtime: f64,
    pub backend: Backend,
    /// Write a Chrome trace here.
    pub trace: Option<PathBuf>,
    /// Folder for the pictures; `None` draws none.
    pub out: Option<PathBuf>,
    pub config: NonHydrostaticConfig,
    pub atmosphere: RotatingAtmosphere,
    pub terrain: TerrainKind,
    /// Run the diffusion granule after each model step's substeps (ICON's order).
    pub diffusion: bool,
    /// Draw a progress bar on stderr.
    pub progress_bar: bool,
}

impl Default for JobSpec {
    fn default() -> Self {
        JobSpec {
            grid: "r2b4".into(),
            levels: 65,
            steps: 12,
            substeps: 5,
            dtime: 300.0,
            backend: Backend::Cpu,
            trace: None,
            out: Some(PathBuf::from("out/dycore")),
            config: NonHydrostaticConfig::default(),
            atmosphere: RotatingAtmosphere::default(),
            terrain: TerrainKind::default(),
            diffusion: true,
            progress_bar: true,
        }
    }
}

/// What the job did.
#[derive(Clone, Debug)]
pub struct JobReport {
    pub grid: String,
    pub cells: usize,
    pub edges: usize,
    pub levels: usize,
    pub steps: usize,
    pub substeps: usize,
    pub backend: Backend,
    /// Time to build the grid, the metric and interpolation fields and the granule
    /// (compiling included).
    pub setup: Duration,
    /// Mean wall time of one substep.
    pub mean_substep: Duration,
    /// Mean wall time of one diffusion step (zero without diffusion).
    pub mean_diffusion: Duration,
    pub pictures: Duration,
    /// Per-program init and run times ([`gt4rs::profiling::Profiler::table`]) of the solver.
    pub table: String,
    /// The same of the diffusion granule (empty without diffusion).
    pub diffusion_table: String,
    /// Largest |w| (m/s) after each model step (index 0: the initial state).
    pub max_w: Vec<f64>,
    /// Largest change of vn from the initial state (m/s) after each model step.
    pub max_vn_change: Vec<f64>,
    /// The largest vertical CFL number velocity advection clipped (ICON4Py's
    /// `max_vertical_cfl`: 0 where it stayed below `cfl_w_limit` everywhere).
    pub max_vertical_cfl: f64,
    pub terrain: TerrainKind,
    /// Highest point of the ground (m).
    pub max_height: f64,
    pub files: Vec<PathBuf>,
}

/// Largest absolute value.
fn largest(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0_f64, |m, v| m.max(v.abs()))
}

/// Runs the job and writes its pictures (and trace).
pub fn run(spec: &JobSpec) -> Result<JobReport, Error> {
    if spec.substeps == 0 || !(spec.dtime > 0.0 && spec.dtime.is_finite()) {
        return Err(Error::Config(format!(
            "the dycore job needs a positive step and substep count, not {} s and {}",
            spec.dtime, spec.substeps
        )));
    }
    let setup_start = Instant::now();
    let grid = crate::cli::grid::build(&spec.grid)?;
    let vertical = VerticalGrid::default_for(spec.levels)?;
    let terrain = Terrain::of_kind(spec.terrain, &grid, &vertical)?;
    let fields = SolverFields::over(&grid, &vertical, &terrain, &spec.config)?;
    let (mut current, mut diagnostic) = spec.atmosphere.state(&grid, &terrain, &fields.metric)?;
    let options = RunOptions {
        backend: spec.backend,
        trace: spec.trace.is_some(),
    };
    let connectivities = crate::icon::calls::connectivities(&grid)?;
    let SolverFields {
        metric,
        interpolation,
        edge,
        cell,
        vertical: vertical_params,
    } = fields;
    let mut solver = SolveNonhydro::init(
        &grid.zones,
        connectivities,
        vertical_params,
        spec.config.clone(),
        metric,
        interpolation,
        edge,
        cell,
        options,
    )?;
    let mut diffusion = if spec.diffusion {
        let config = DiffusionConfig {
            ndyn_substeps: u32::try_from(spec.substeps)
                .map_err(|_| Error::Config(format!("{} substeps", spec.substeps)))?,
            ..DiffusionConfig::default()
        };
        let options = DiffusionRunOptions {
            trace: false,
            ..DiffusionRunOptions::new(spec.backend)?
        };
        Some(diffusion_over(&grid, &vertical, &terrain, config, options)?)
    } else {
        None
    };
    let mut next = current.clone();
    let mut prep_adv = PrepAdvection::zeros(grid.num_cells, grid.num_edges, spec.levels)?;
    let setup = setup_start.elapsed();

    let initial = current.clone();
    let initial_vn = initial.vn.as_array().to_owned();
    let vn_change = |state: &PrognosticState| {
        largest(
            state
                .vn
                .as_array()
                .iter()
                .zip(&initial_vn)
                .map(|(a, b)| a - b),
        )
    };
    let mut max_w = vec![largest(current.w.as_array().iter().copied())];
    let mut max_vn_change = vec![0.0];
    let bar = progress_bar("dycore", spec.progress_bar, spec.steps);
    let (mut stepping, mut diffusing) = (Duration::ZERO, Duration::ZERO);
    let dtime = spec.dtime / spec.substeps as f64;
    for step in 0..spec.steps {
        for sub in 0..spec.substeps {
            let substep = Substep {
                dtime,
                substeps: spec.substeps,
                at_initial_timestep: step == 0,
                at_first_substep: sub == 0,
                at_last_substep: sub + 1 == spec.substeps,
                prepare_advection: false,
                second_order_divdamp_factor: 0.0,
            };
            let start = Instant::now();
            solver.time_step(
                &mut diagnostic,
                &current,
                &mut next,
                &mut prep_adv,
                &substep,
            )?;
            let took = start.elapsed();
            solver
                .profiler()
                .record(SUBSTEP_TIMER, Phase::Run, start, took);
            stepping += took;
            std::mem::swap(&mut current, &mut next);
        }
        if let Some((granule, turbulence)) = &mut diffusion {
            let mut views = DiffusionViews {
                vn: current.vn.view_mut(),
                w: current.w.view_mut(),
                theta_v: current.theta_v.view_mut(),
                exner: current.exner.view_mut(),
            };
            let start = Instant::now();
            if step == 0 {
                granule.initial_run_views(spec.dtime, &mut views, &mut turbulence.views())?;
            } else {
                granule.run_views(spec.dtime, &mut views, &mut turbulence.views())?;
            }
            diffusing += start.elapsed();
        }
        let w = largest(current.w.as_array().iter().copied());
        if !w.is_finite() {
            return Err(Error::Execution {
                program: "dycore job".into(),
                message: format!("the state blew up in model step {}: |w| is {w}", step + 1),
            });
        }
        max_w.push(w);
        max_vn_change.push(vn_change(&current));
        bar.set_message(format!("max |w| {w:.3} m/s"));
        bar.inc(1);
    }
    bar.finish();

    let drawing = Instant::now();
    let mut files = match &spec.out {
        Some(out) => draw_pictures(
            spec, out, &grid, &vertical, &terrain, &initial, &current, &max_w,
        )?,
        None => Vec::new(),
    };
    let pictures = drawing.elapsed();
    if let Some(trace) = &spec.trace {
        write_checked_trace(solver.profiler(), trace)?;
        files.push(trace.clone());
    }
    let substeps_run = spec.steps * spec.substeps;
    Ok(JobReport {
        grid: grid.kind.label(),
        cells: grid.num_cells,
        edges: grid.num_edges,
        levels: spec.levels,
        steps: spec.steps,
        substeps: spec.substeps,
        backend: spec.backend,
        setup,
        mean_substep: if substeps_run > 0 {
            stepping / substeps_run as u32
        } else {
            Duration::ZERO
        },
        pictures,
        table: solver.profiler().table(),
        diffusion_table: diffusion
            .as_ref()
            .map_or_else(String::new, |(granule, _)| granule.profiler().table()),
        mean_diffusion: if spec.steps > 0 {
            diffusing / spec.steps as u32
        } else {
            Duration::ZERO
        },
        max_w,
        max_vn_change,
        max_vertical_cfl: diagnostic.max_vertical_cfl,
        terrain: spec.terrain,
        max_height: terrain.topography.iter().copied().fold(0.0, f64::max),
        files,
    })
}

/// The half level nearest `height` (m) over flat ground.
fn half_level_near(vertical: &VerticalGrid, height: f64) -> usize {
    (0..vertical.vct_a.len())
        .min_by(|&a, &b| {
            (vertical.vct_a[a] - height)
                .abs()
                .total_cmp(&(vertical.vct_a[b] - height).abs())
        })
        .unwrap_or(0)
}

/// Draws the maps and plots of a run into `out`.
#[allow(clippy::too_many_arguments)]
fn draw_pictures(
    spec: &JobSpec,
    out: &std::path::Path,
    grid: &Grid,
    vertical: &VerticalGrid,
    terrain: &Terrain,
    initial: &PrognosticState,
    last: &PrognosticState,
    max_w: &[f64],
) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(out).map_err(|e| Error::Io(format!("{}: {e}", out.display())))?;
    let mut files = Vec::new();
    let cell_tiles = MapTiles::cells(grid)?;
    let minutes = spec.steps as f64 * spec.dtime / 60.0;
    let after = format!(
        "after {} steps of {} s ({minutes:.0} min)",
        spec.steps, spec.dtime
    );

    let half = half_level_near(vertical, 5_000.0);
    let w = last.w.as_array();
    let w_at: Vec<f64> = (0..grid.num_cells).map(|c| w[[c, half]]).collect();
    let w_scale = largest(w_at.iter().copied()).max(f64::MIN_POSITIVE);
    let path = out.join("w.png");
    plot::maps(
        &path,
        &format!(
            "w at {:.1} km (half level {half}), {}, {}",
            vertical.vct_a[half] / 1e3,
            spec.terrain,
            grid.kind.label()
        ),
        &cell_tiles,
        &[MapPanel {
            title: format!("{after}, largest |w| {w_scale:.3} m/s"),
            values: &w_at,
        }],
        w_scale,
        "m/s",
    )?;
    files.push(path);

    let lowest = spec.levels - 1;
    let initial_vn: ArrayD<f64> = initial.vn.as_array().to_owned();
    let last_vn: ArrayD<f64> = last.vn.as_array().to_owned();
    let path = out.join("wind.png");
    plot::maps(
        &path,
        &format!("zonal wind (fitted to vn at cells) on the lowest level ({lowest})"),
        &cell_tiles,
        &[
            MapPanel {
                title: "initial".into(),
                values: &zonal_wind_at_cells(grid, &initial_vn, lowest)?,
            },
            MapPanel {
                title: after.clone(),
                values: &zonal_wind_at_cells(grid, &last_vn, lowest)?,
            },
        ],
        spec.atmosphere.u0.abs().max(1.0) * 1.25,
        "m/s",
    )?;
    files.push(path);

    let path = out.join("w_max.png");
    let points: Vec<(f64, f64)> = max_w
        .iter()
        .enumerate()
        .map(|(i, &v)| (i as f64, v))
        .collect();
    plot::series(
        &path,
        "largest |w| over time",
        "model step",
        "max |w| (m/s)",
        &points,
    )?;
    files.push(path);

    let max_height = terrain.topography.iter().copied().fold(0.0, f64::max);
    let path = out.join("terrain.png");
    plot::maps(
        &path,
        &format!("{} terrain: surface height (m)", spec.terrain),
        &cell_tiles,
        &[MapPanel {
            title: format!("surface height, max {max_height:.0} m"),
            values: terrain.topography.as_slice().unwrap_or(&[]),
        }],
        max_height.max(1.0),
        "m",
    )?;
    files.push(path);
    Ok(files)
}

impl JobReport {
    /// A human-readable summary: sizes, timings, the table and the files written.
    pub fn summary(&self) -> String {
        let last_w = self.max_w.last().copied().unwrap_or(0.0);
        let last_vn = self.max_vn_change.last().copied().unwrap_or(0.0);
        let mut s = format!(
            "grid {} ({} cells, {} edges) × {} levels, backend {}, {} steps × {} substeps\n\
             setup (grid, fields, compiling) {:.2} s, mean substep {:.2} ms, \
             mean diffusion step {:.2} ms, pictures {:.2} s\n\
             terrain {} (highest point {:.0} m)\n\
             after the run: max |w| {last_w:.4} m/s, max |vn - vn₀| {last_vn:.4} m/s, \
             largest vertical CFL clipped {:.3}\n\n{}\n",
            self.grid,
            self.cells,
            self.edges,
            self.levels,
            self.backend.name(),
            self.steps,
            self.substeps,
            self.setup.as_secs_f64(),
            self.mean_substep.as_secs_f64() * 1e3,
            self.mean_diffusion.as_secs_f64() * 1e3,
            self.pictures.as_secs_f64(),
            self.terrain,
            self.max_height,
            self.max_vertical_cfl,
            self.table
        );
        if !self.diffusion_table.is_empty() {
            s.push_str(&format!("diffusion granule:\n{}\n", self.diffusion_table));
        }
        for f in &self.files {
            s.push_str(&format!("wrote {}\n", f.display()));
        }
        s
    }
}
