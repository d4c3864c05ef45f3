//! A physically meaningful initial state on a sphere: a balanced zonal jet with a
//! midlatitude maximum growing with height, a stably stratified atmosphere at rest otherwise,
//! and a small seeded grid-scale perturbation for diffusion to remove.

use gt4rs::grid::{lat_lon, Grid};
use gt4rs::Error;
use ndarray::Array2;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::config::DiffusionConfig;
use super::granule::{Diffusion, RunOptions};
use super::state::{
    field_of, CellParams, DiagnosticState, EdgeParams, InterpolationState, MetricState,
    PrognosticState,
};
use super::terrain::Terrain;
use super::vertical::VerticalGrid;

/// Parameters of the initial state.
#[derive(Clone, Debug, PartialEq)]
pub struct JetSpec {
    /// Peak zonal wind (m/s), reached at ±45° latitude at the model top.
    pub u_max: f64,
    /// Amplitude (m/s) of the uniform random perturbation of vn.
    pub vn_noise: f64,
    /// Amplitude (m/s) of the random w.
    pub w_noise: f64,
    /// Amplitude (K) of the random perturbation of θ_v.
    pub theta_noise: f64,
    pub seed: u64,
}

impl Default for JetSpec {
    fn default() -> Self {
        JetSpec {
            u_max: 35.0,
            vn_noise: 2.0,
            w_noise: 0.05,
            theta_noise: 0.2,
            seed: 20_260_422,
        }
    }
}

/// Zonal wind (m/s) of the jet at latitude `lat` (radians) and height `z` in a model of height
/// `top`: `u_max sin²(2φ) (0.2 + 0.8 z/top)`, zero at the poles and the equator.
pub fn jet_u(u_max: f64, lat: f64, z: f64, top: f64) -> f64 {
    let s = (2.0 * lat).sin();
    u_max * s * s * (0.2 + 0.8 * z / top)
}

/// vn of the jet alone (no perturbation) over flat terrain, `[edge, level]`.
pub fn jet_vn(grid: &Grid, vertical: &VerticalGrid, u_max: f64) -> Result<Array2<f64>, Error> {
    jet_vn_over(
        grid,
        vertical,
        &Terrain::flat(grid.num_cells, vertical),
        u_max,
    )
}

/// vn of the jet alone over `terrain`, `[edge, level]`: the eastward wind at the edge's
/// height (the mean of its cells' full-level heights) times the east component of the edge
/// normal (`primal_normal_x`).
pub fn jet_vn_over(
    grid: &Grid,
    vertical: &VerticalGrid,
    terrain: &Terrain,
    u_max: f64,
) -> Result<Array2<f64>, Error> {
    let (nc, nlev) = (grid.num_cells, vertical.nlev);
    if terrain.z_mc.dim() != (nc, nlev) || vertical.vct_a.is_empty() {
        return Err(Error::Shape(format!(
            "the terrain's levels {:?} do not match the grid and the vertical grid ({nc}, {nlev})",
            terrain.z_mc.dim()
        )));
    }
    let g = &grid.geometry;
    let top = vertical.vct_a[0];
    let e2c = grid.table("E2C")?;
    Ok(Array2::from_shape_fn((grid.num_edges, nlev), |(e, k)| {
        let c = g.edge_center.row(e);
        let (lat, _) = lat_lon([c[0], c[1], c[2]]);
        let z = match (usize::try_from(e2c[[e, 0]]), usize::try_from(e2c[[e, 1]])) {
            (Ok(c0), Ok(c1)) => terrain.edge_height([c0, c1], k),
            (Ok(c0), Err(_)) | (Err(_), Ok(c0)) => terrain.z_mc[[c0, k]],
            (Err(_), Err(_)) => vertical.z_mc.get(k).copied().unwrap_or(0.0),
        };
        jet_u(u_max, lat, z, top) * g.primal_normal_x[e]
    }))
}

/// The prognostic state over flat terrain (see [`jet_state_over`]).
pub fn jet_state(
    grid: &Grid,
    vertical: &VerticalGrid,
    spec: &JetSpec,
) -> Result<PrognosticState, Error> {
    jet_state_over(
        grid,
        vertical,
        &Terrain::flat(grid.num_cells, vertical),
        spec,
    )
}

/// The prognostic state over `terrain`: jet plus noise in vn, the reference θ and exner at
/// each cell's full-level heights with noise in θ_v (exner stays balanced with the
/// reference), and a small random w that vanishes at the top and at the ground.
pub fn jet_state_over(
    grid: &Grid,
    vertical: &VerticalGrid,
    terrain: &Terrain,
    spec: &JetSpec,
) -> Result<PrognosticState, Error> {
    let (nc, nlev) = (grid.num_cells, vertical.nlev);
    let mut vn = jet_vn_over(grid, vertical, terrain, spec.u_max)?;
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    vn.mapv_inplace(|v| v + spec.vn_noise * rng.random_range(-1.0..1.0));
    let theta_v = Array2::from_shape_fn((nc, nlev), |(c, k)| {
        VerticalGrid::reference_theta(terrain.z_mc[[c, k]])
            + spec.theta_noise * rng.random_range(-1.0..1.0)
    });
    let exner = Array2::from_shape_fn((nc, nlev), |(c, k)| {
        VerticalGrid::reference_exner(terrain.z_mc[[c, k]])
    });
    let w = Array2::from_shape_fn((nc, nlev + 1), |(_, k)| {
        if k == 0 || k == nlev {
            0.0
        } else {
            spec.w_noise * rng.random_range(-1.0..1.0)
        }
    });
    Ok(PrognosticState {
        vn: field_of(vn.into_dyn())?,
        w: field_of(w.into_dyn())?,
        theta_v: field_of(theta_v.into_dyn())?,
        exner: field_of(exner.into_dyn())?,
    })
}

/// Builds the granule on `grid` with flat-terrain metrics and the grid's interpolation
/// coefficients. A regional grid runs as a limited-area model.
pub fn diffusion_on(
    grid: &Grid,
    vertical: &VerticalGrid,
    config: DiffusionConfig,
    options: RunOptions,
) -> Result<(Diffusion, DiagnosticState), Error> {
    let metric = MetricState::flat(grid.num_cells, vertical)?;
    build(grid, vertical, metric, config, options)
}

/// Builds the granule on `grid` over `terrain`: its metric fields
/// ([`MetricState::over_terrain`]) and the grid's interpolation coefficients.
pub fn diffusion_over(
    grid: &Grid,
    vertical: &VerticalGrid,
    terrain: &Terrain,
    config: DiffusionConfig,
    options: RunOptions,
) -> Result<(Diffusion, DiagnosticState), Error> {
    let metric = MetricState::over_terrain(grid, terrain, &config)?;
    build(grid, vertical, metric, config, options)
}

/// The fields [`Diffusion::init`] takes besides the grids, for one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct GranuleInputs {
    pub config: DiffusionConfig,
    pub metric: MetricState,
    pub interpolation: InterpolationState,
    pub edge: EdgeParams,
    pub cell: CellParams,
}

impl GranuleInputs {
    /// From `grid` and `metric`; a regional grid runs as a limited-area model.
    pub fn of(
        grid: &Grid,
        metric: MetricState,
        mut config: DiffusionConfig,
    ) -> Result<Self, Error> {
        config.limited_area = matches!(grid.kind, gt4rs::grid::GridKind::Regional { .. });
        let params = super::config::DiffusionParams::new(&config);
        let interpolation = InterpolationState::from_grid(
            grid,
            config.limited_area,
            params.scaled_nudge_max_coeff,
            config.nudge_efold_width,
        )?;
        Ok(GranuleInputs {
            config,
            metric,
            interpolation,
            edge: EdgeParams::from_grid(grid)?,
            cell: CellParams::from_grid(grid)?,
        })
    }

    /// The granule on `grid` (whose points these inputs describe).
    pub fn init(
        self,
        grid: &Grid,
        vertical: &VerticalGrid,
        options: RunOptions,
    ) -> Result<(Diffusion, DiagnosticState), Error> {
        let granule = Diffusion::init(
            grid,
            vertical,
            self.config,
            self.metric,
            self.interpolation,
            self.edge,
            self.cell,
            options,
        )?;
        Ok((
            granule,
            DiagnosticState::zeros(grid.num_cells, vertical.nlev)?,
        ))
    }
}

fn build(
    grid: &Grid,
    vertical: &VerticalGrid,
    metric: MetricState,
    config: DiffusionConfig,
    options: RunOptions,
) -> Result<(Diffusion, DiagnosticState), Error> {
    GranuleInputs::of(grid, metric, config)?.init(grid, vertical, options)
}
