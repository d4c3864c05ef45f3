//! Everything the solver reads besides the state, on one grid over one terrain: the metric and
//! interpolation fields, the edge and cell geometry and the vertical indices.

use gt4rs::grid::Grid;
use gt4rs::Error;

use super::config::NonHydrostaticConfig;
use super::geometry::{CellParams, EdgeParams};
use super::granule::VerticalParams;
use super::interpolation::{InterpolationConfig, InterpolationState};
use super::metrics::{MetricState, MetricsConfig, VerticalIndices};
use crate::diffusion::terrain::Terrain;
use crate::diffusion::vertical::VerticalGrid;

/// The solver's constant inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverFields {
    pub metric: MetricState,
    pub interpolation: InterpolationState,
    pub edge: EdgeParams,
    pub cell: CellParams,
    pub vertical: VerticalParams,
}

impl SolverFields {
    /// The fields over `terrain` on `grid` with `vertical`'s levels, with ICON's defaults for
    /// what `config` does not set.
    pub fn over(
        grid: &Grid,
        vertical: &VerticalGrid,
        terrain: &Terrain,
        config: &NonHydrostaticConfig,
    ) -> Result<Self, Error> {
        let metrics_config = MetricsConfig {
            divdamp_type: config.divdamp_type,
            igradp_method: config.igradp_method,
            ..MetricsConfig::default()
        };
        let metric = MetricState::compute(grid, terrain, vertical, &metrics_config)?;
        let indices = VerticalIndices::of(vertical, terrain, &metrics_config)?;
        let index = |name: &str, v: usize| {
            i32::try_from(v).map_err(|_| Error::Config(format!("`{name}` = {v} exceeds i32")))
        };
        let interpolation = InterpolationState::compute(grid, &InterpolationConfig::default())?;
        let edge = EdgeParams::from_grid(grid)?;
        Ok(SolverFields {
            metric,
            interpolation,
            edge,
            cell: CellParams::from_grid(grid)?,
            vertical: VerticalParams {
                nlev: vertical.nlev,
                nflatlev: index("nflatlev", indices.nflatlev)?,
                end_index_of_damping_layer: index(
                    "end_index_of_damping_layer",
                    indices.end_index_of_damping_layer,
                )?,
                kstart_moist: index("kstart_moist", indices.kstart_moist)?,
                vct_a: vertical.vct_a.clone(),
            },
        })
    }
}
