//! The main job: diffusion of a perturbed zonal jet on a generated grid over mountains (or flat
//! ground), with a progress bar, per-program timings, an optional Chrome trace and pictures.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gt4rs::grid::Grid;
use gt4rs::profiling::Phase;
use gt4rs::{Backend, Error};
use indicatif::{ProgressBar, ProgressStyle};
use ndarray::{Array2, ArrayD};

use super::config::DiffusionConfig;
use super::granule::RunOptions;
use super::initial::{diffusion_over, jet_state_over, jet_vn_over, JetSpec};
use super::plot::{self, MapPanel, MapTiles};
use super::state::MetricState;
use super::terrain::{Terrain, TerrainKind};
use super::vertical::VerticalGrid;

/// Steps of the default run: R2B4 × 65 levels on the CPU backend takes about 0.1 s a step on
/// two shared cores (measured), so 300 steps finish well within a minute.
pub const DEFAULT_STEPS: usize = 300;

/// Name under which whole steps are timed.
pub const STEP_TIMER: &str = "diffusion step (all programs)";

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// `rNbK`, `torus:NXxNY` or a grid file (see `gt4rs grid info`); the jet needs a sphere.
    pub grid: String,
    pub levels: usize,
    pub steps: usize,
    pub backend: Backend,
    /// Time step (s).
    pub dtime: f64,
    /// Write a Chrome trace here.
    pub trace: Option<PathBuf>,
    /// Folder for the pictures.
    pub out: PathBuf,
    pub config: DiffusionConfig,
    pub jet: JetSpec,
    /// The ground: mountains (the default, so the truly horizontal θ diffusion over steep
    /// points runs) or flat.
    pub terrain: TerrainKind,
    /// Draw a progress bar on stderr.
    pub progress_bar: bool,
    /// After a run on several ranks, run again on one rank (on rank 0) and compare every
    /// field bit for bit; a difference is an error.
    pub compare_single_rank: bool,
}

impl Default for JobSpec {
    fn default() -> Self {
        JobSpec {
            grid: "r2b4".into(),
            levels: 65,
            steps: DEFAULT_STEPS,
            backend: Backend::Cpu,
            dtime: 300.0,
            trace: None,
            out: PathBuf::from("out/diffusion"),
            config: DiffusionConfig::default(),
            jet: JetSpec::default(),
            terrain: TerrainKind::default(),
            progress_bar: true,
            compare_single_rank: false,
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
    pub backend: Backend,
    /// Time to build the grid and the granule (compiling included).
    pub setup: Duration,
    /// Mean wall time of one step.
    pub mean_step: Duration,
    /// Time to draw the maps and plots.
    pub pictures: Duration,
    /// Per-program init and run times ([`gt4rs::profiling::Profiler::table`]).
    pub table: String,
    /// Mean square of the small-scale part of vn (m²/s²), after each step (index 0: before).
    pub small_scale_variance: Vec<f64>,
    pub zdiffusion_active: bool,
    pub terrain: TerrainKind,
    /// Highest point of the ground (m).
    pub max_height: f64,
    /// Cells with steep levels (ICON's z-diffusion list) and steep `(cell, level)` points.
    pub steep_columns: usize,
    pub steep_points: usize,
    pub files: Vec<PathBuf>,
    /// Ranks the job ran on.
    pub ranks: usize,
    /// On several ranks: the partition and, per rank, time in programs and in exchanges and
    /// bytes sent per step.
    pub decomposition: String,
    /// The comparison with a run on one rank, when asked for.
    pub comparison: Option<String>,
}

/// Mean square of `vn - jet` over every edge and level.
pub(crate) fn mean_square_difference(vn: ndarray::ArrayViewD<'_, f64>, jet: &Array2<f64>) -> f64 {
    let n = jet.len().max(1) as f64;
    vn.iter()
        .zip(jet.iter())
        .map(|(v, j)| (v - j) * (v - j))
        .sum::<f64>()
        / n
}

/// The zonal wind at each cell centre at `level`: the least-squares horizontal vector whose
/// normal components best match vn on the cell's edges. vn alone mixes the wind with each
/// edge's orientation, and the edges of a triangle grid face three ways, so a map of vn shows
/// the grid; ICON's users see the wind reconstructed at cells.
pub(crate) fn zonal_wind_at_cells(
    grid: &Grid,
    vn: &ArrayD<f64>,
    level: usize,
) -> Result<Vec<f64>, Error> {
    let (c2e, e2c) = (grid.table("C2E")?, grid.table("E2C")?);
    let geometry = &grid.geometry;
    Ok(c2e
        .outer_iter()
        .enumerate()
        .map(|(cell, edges)| {
            // Normal equations: `a` is the symmetric [xx, xy, yy] of the normals, `b` their
            // products with vn.
            let (mut a, mut b) = ([0.0; 3], [0.0; 2]);
            for e in edges.iter().filter_map(|&e| usize::try_from(e).ok()) {
                // The normal's components in the east/north frame of this cell's centre.
                let slot = usize::from(usize::try_from(e2c[[e, 0]]) != Ok(cell));
                let nx = geometry.primal_normal_cell_x[[e, slot]];
                let ny = geometry.primal_normal_cell_y[[e, slot]];
                let v = vn[[e, level]];
                a = [a[0] + nx * nx, a[1] + nx * ny, a[2] + ny * ny];
                b = [b[0] + nx * v, b[1] + ny * v];
            }
            let det = a[0] * a[2] - a[1] * a[1];
            // A cell with fewer than two edges has no fit: it shows no wind.
            if det > 1e-12 {
                (a[2] * b[0] - a[1] * b[1]) / det
            } else {
                0.0
            }
        })
        .collect())
}

/// A job's progress bar on stderr, named `job`, or a hidden one.
pub(crate) fn progress_bar(job: &str, shown: bool, steps: usize) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(steps as u64);
    if let Ok(style) = ProgressStyle::with_template(&format!(
        "{{spinner}} {job} [{{bar:40}}] {{pos}}/{{len}} steps, {{per_sec}}, eta {{eta}} {{msg}}"
    )) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Runs the job where it was started: with the `mpi` feature on every rank of the MPI job
/// (a plain start is one rank), else in this process. Returns the report on rank 0 and
/// `None` on the other ranks.
pub fn run_anywhere(spec: &JobSpec) -> Result<Option<JobReport>, Error> {
    #[cfg(feature = "mpi")]
    {
        let world = super::distributed::mpi::MpiWorld::init()?;
        super::job_ranks::run_on_ranks(spec, &world)
    }
    #[cfg(not(feature = "mpi"))]
    {
        if spec.compare_single_rank {
            return Err(Error::Config(
                "comparing with one rank needs a run on several: build with `--features mpi` and start with mpirun".into(),
            ));
        }
        run(spec).map(Some)
    }
}

/// Runs the job and writes its pictures (and trace) into `spec.out`.
pub fn run(spec: &JobSpec) -> Result<JobReport, Error> {
    let setup_start = Instant::now();
    let grid = crate::cli::grid::build(&spec.grid)?;
    let vertical = VerticalGrid::default_for(spec.levels)?;
    let terrain = Terrain::of_kind(spec.terrain, &grid, &vertical)?;
    let mut options = RunOptions::new(spec.backend)?;
    options.trace = spec.trace.is_some();
    let (mut granule, mut diagnostic) =
        diffusion_over(&grid, &vertical, &terrain, spec.config.clone(), options)?;
    let mut state = jet_state_over(&grid, &vertical, &terrain, &spec.jet)?;
    let jet = jet_vn_over(&grid, &vertical, &terrain, spec.jet.u_max)?;
    let setup = setup_start.elapsed();
    let (steep_columns, steep_points) = granule
        .metric()
        .zdiffusion
        .as_ref()
        .map_or((0, 0), |zd| (zd.steep_columns(), zd.steep_points()));
    let initial_theta = state.theta_v.as_array().to_owned();

    let initial_vn = state.vn.as_array().to_owned();
    let mut small_scale_variance = vec![mean_square_difference(state.vn.as_array(), &jet)];
    let bar = progress_bar("diffusion", spec.progress_bar, spec.steps);
    let mut stepping = Duration::ZERO;
    for step in 0..spec.steps {
        let start = Instant::now();
        if step == 0 {
            granule.initial_run(spec.dtime, &mut state, &mut diagnostic)?;
        } else {
            granule.run(spec.dtime, &mut state, &mut diagnostic)?;
        }
        let took = start.elapsed();
        granule
            .profiler()
            .record(STEP_TIMER, Phase::Run, start, took);
        stepping += took;
        let variance = mean_square_difference(state.vn.as_array(), &jet);
        small_scale_variance.push(variance);
        bar.set_message(format!("small-scale vn variance {variance:.4} m²/s²"));
        bar.inc(1);
    }
    bar.finish();

    let drawing = Instant::now();
    let mut files = draw_pictures(
        spec,
        &Pictured {
            grid: &grid,
            vertical: &vertical,
            terrain: &terrain,
            metric: granule.metric(),
            jet: &jet,
            initial_vn: &initial_vn,
            final_vn: &state.vn.as_array().to_owned(),
            initial_theta: &initial_theta,
            final_theta: &state.theta_v.as_array().to_owned(),
            small_scale_variance: &small_scale_variance,
            steep_columns,
        },
    )?;
    let pictures = drawing.elapsed();
    let max_height = terrain.topography.iter().copied().fold(0.0, f64::max);

    if let Some(trace) = &spec.trace {
        write_checked_trace(granule.profiler(), trace)?;
        files.push(trace.clone());
    }
    Ok(JobReport {
        grid: grid.kind.label(),
        cells: grid.num_cells,
        edges: grid.num_edges,
        levels: spec.levels,
        steps: spec.steps,
        backend: spec.backend,
        setup,
        mean_step: if spec.steps > 0 {
            stepping / spec.steps as u32
        } else {
            Duration::ZERO
        },
        pictures,
        table: granule.profiler().table(),
        small_scale_variance,
        zdiffusion_active: granule.zdiffusion_active(),
        terrain: spec.terrain,
        max_height,
        steep_columns,
        steep_points,
        files,
        ranks: 1,
        decomposition: String::new(),
        comparison: None,
    })
}

/// What the pictures show: the global grid and fields of a run (gathered on rank 0 when it
/// ran on several ranks).
pub(crate) struct Pictured<'a> {
    pub grid: &'a Grid,
    pub vertical: &'a VerticalGrid,
    pub terrain: &'a Terrain,
    pub metric: &'a MetricState,
    pub jet: &'a Array2<f64>,
    pub initial_vn: &'a ArrayD<f64>,
    pub final_vn: &'a ArrayD<f64>,
    pub initial_theta: &'a ArrayD<f64>,
    pub final_theta: &'a ArrayD<f64>,
    pub small_scale_variance: &'a [f64],
    pub steep_columns: usize,
}

/// Draws the maps and plots of a run into `spec.out`.
pub(crate) fn draw_pictures(spec: &JobSpec, p: &Pictured<'_>) -> Result<Vec<PathBuf>, Error> {
    let Pictured {
        grid,
        vertical,
        terrain,
        metric,
        jet,
        initial_vn,
        final_vn,
        initial_theta,
        final_theta,
        small_scale_variance,
        steep_columns,
    } = *p;
    std::fs::create_dir_all(&spec.out)
        .map_err(|e| Error::Io(format!("{}: {e}", spec.out.display())))?;
    let mut files = Vec::new();
    let level = spec.levels / 2;
    let cell_tiles = MapTiles::cells(grid)?;
    let edge_tiles = MapTiles::edges(grid)?;
    let column = |a: &ndarray::ArrayD<f64>, minus_jet: bool| -> Vec<f64> {
        (0..grid.num_edges)
            .map(|e| a[[e, level]] - if minus_jet { jet[[e, level]] } else { 0.0 })
            .collect()
    };
    let height_km = vertical.z_mc[level] / 1e3;
    let after = format!("after {} steps of {} s", spec.steps, spec.dtime);
    // Each edge's own value on its diamond: this map is for the grid-scale noise the diffusion
    // damps, which a fit at cells would smooth away.
    let path = spec.out.join("vn_small_scale.png");
    plot::maps(
        &path,
        &format!(
            "small-scale vn (vn minus jet) at level {level} ({height_km:.1} km), {}",
            grid.kind.label()
        ),
        &edge_tiles,
        &[
            MapPanel {
                title: "initial".into(),
                values: &column(initial_vn, true),
            },
            MapPanel {
                title: after.clone(),
                values: &column(final_vn, true),
            },
        ],
        spec.jet.vn_noise,
        "m/s",
    )?;
    files.push(path);
    let path = spec.out.join("vn.png");
    plot::maps(
        &path,
        &format!(
            "zonal wind (fitted to vn at cells) at level {level} ({height_km:.1} km): jet plus noise"
        ),
        &cell_tiles,
        &[
            MapPanel {
                title: "initial".into(),
                values: &zonal_wind_at_cells(grid, initial_vn, level)?,
            },
            MapPanel {
                title: after.clone(),
                values: &zonal_wind_at_cells(grid, final_vn, level)?,
            },
        ],
        spec.jet.u_max,
        "m/s",
    )?;
    files.push(path);
    let path = spec.out.join("vn_variance.png");
    let points: Vec<(f64, f64)> = small_scale_variance
        .iter()
        .enumerate()
        .map(|(i, &v)| (i as f64, v))
        .collect();
    plot::series(
        &path,
        "mean square of small-scale vn over time",
        "step",
        "<(vn - jet)²> (m²/s²)",
        &points,
    )?;
    files.push(path);

    let max_height = terrain.topography.iter().copied().fold(0.0, f64::max);
    let steep_ground: Vec<f64> = match &metric.zdiffusion {
        Some(zd) => zd
            .mask_hdiff
            .as_array()
            .outer_iter()
            .zip(terrain.topography.iter())
            .map(|(column, &h)| if column.iter().any(|&m| m) { h } else { 0.0 })
            .collect(),
        None => vec![0.0; grid.num_cells],
    };
    let path = spec.out.join("terrain.png");
    plot::maps(
        &path,
        &format!(
            "{} terrain: surface height (m), and where θ is diffused truly horizontally",
            spec.terrain
        ),
        &cell_tiles,
        &[
            MapPanel {
                title: format!("surface height, max {max_height:.0} m"),
                values: terrain.topography.as_slice().unwrap_or(&[]),
            },
            MapPanel {
                title: format!("surface height of the {steep_columns} steep columns"),
                values: &steep_ground,
            },
        ],
        max_height.max(1.0),
        "m",
    )?;
    files.push(path);
    // The largest change of θ_v in each column over the run (signed): the ∇² on model levels
    // barely moves θ where the wind is weak; the truly horizontal diffusion over steep points
    // removes most of their noise.
    let theta_change: Vec<f64> = (0..grid.num_cells)
        .map(|c| {
            (0..spec.levels)
                .map(|k| final_theta[[c, k]] - initial_theta[[c, k]])
                .fold(0.0_f64, |m, d| if d.abs() > m.abs() { d } else { m })
        })
        .collect();
    let largest_change = theta_change.iter().fold(0.0_f64, |m, d| m.max(d.abs()));
    let path = spec.out.join("theta_change.png");
    plot::maps(
        &path,
        &format!(
            "largest change of θ_v in each column (K), {} terrain",
            spec.terrain
        ),
        &cell_tiles,
        &[MapPanel {
            title: format!("{after}, largest |change| {largest_change:.2e} K"),
            values: &theta_change,
        }],
        largest_change.max(f64::MIN_POSITIVE),
        "K",
    )?;
    files.push(path);
    Ok(files)
}

/// Writes the Chrome trace and reads it back as JSON, so a broken file is an error here.
pub(crate) fn write_checked_trace(
    profiler: &gt4rs::profiling::Profiler,
    path: &Path,
) -> Result<(), Error> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::Io(format!("{}: {e}", parent.display())))?;
    }
    profiler.write_chrome_trace(path)?;
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    let events: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::Io(format!(
            "{}: the trace is not valid JSON: {e}",
            path.display()
        ))
    })?;
    match events.as_array() {
        Some(list) if !list.is_empty() => Ok(()),
        _ => Err(Error::Io(format!(
            "{}: the trace holds no events",
            path.display()
        ))),
    }
}

impl JobReport {
    /// A human-readable summary: sizes, timings, the table and the files written.
    pub fn summary(&self) -> String {
        let first = self.small_scale_variance.first().copied().unwrap_or(0.0);
        let last = self.small_scale_variance.last().copied().unwrap_or(0.0);
        let mut s = format!(
            "grid {} ({} cells, {} edges) × {} levels, backend {}, {} steps\n\
             setup (grid, fields, compiling) {:.2} s, mean step {:.2} ms, pictures {:.2} s\n\
             small-scale vn variance {first:.4} -> {last:.4} m²/s²\n\
             terrain {} (highest point {:.0} m): {} steep columns, {} steep points\n\
             z-diffusion of θ: {}\n\n{}\n",
            self.grid,
            self.cells,
            self.edges,
            self.levels,
            self.backend.name(),
            self.steps,
            self.setup.as_secs_f64(),
            self.mean_step.as_secs_f64() * 1e3,
            self.pictures.as_secs_f64(),
            self.terrain,
            self.max_height,
            self.steep_columns,
            self.steep_points,
            if self.zdiffusion_active {
                "on"
            } else if self.steep_points == 0 {
                "off (no steep points)"
            } else {
                "off (apply_zdiffusion_t is false)"
            },
            self.table
        );
        if !self.decomposition.is_empty() {
            s.push_str(&format!("\n{}\n", self.decomposition));
        }
        if let Some(comparison) = &self.comparison {
            s.push_str(&format!("{comparison}\n"));
        }
        for f in &self.files {
            s.push_str(&format!("wrote {}\n", f.display()));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solid_body_rotation_fits_back_at_cells() -> Result<(), Error> {
        // The wind of a rigid rotation about the axis, u = 10 m/s cos(latitude) eastward
        // (uniform on the torus), is smooth even at the poles: the fit at each cell centre
        // matches it, exactly where all frames are alike.
        for (spec, tolerance) in [("torus:6x4", 1e-12), ("r2b2", 0.02)] {
            let grid = crate::cli::grid::build(spec)?;
            let geometry = &grid.geometry;
            let zonal = |p: ndarray::ArrayView1<'_, f64>| match geometry.surface {
                gt4rs::grid::Surface::Sphere { .. } => 10.0 * p[0].hypot(p[1]) / p.dot(&p).sqrt(),
                gt4rs::grid::Surface::Torus { .. } => 10.0,
            };
            let vn = Array2::from_shape_fn((grid.num_edges, 1), |(e, _)| {
                zonal(geometry.edge_center.row(e)) * geometry.primal_normal_x[e]
            })
            .into_dyn();
            let fitted = zonal_wind_at_cells(&grid, &vn, 0)?;
            for (c, u) in fitted.into_iter().enumerate() {
                let expected = zonal(geometry.cell_center.row(c));
                assert!(
                    (u - expected).abs() < tolerance,
                    "{spec} cell {c}: {u} vs {expected}"
                );
            }
        }
        Ok(())
    }
}
