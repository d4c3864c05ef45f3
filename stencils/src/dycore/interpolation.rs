//! The interpolation coefficients of the nonhydrostatic solver and velocity advection (ICON4Py's
//! `InterpolationState`), computed on a grid as ICON4Py's interpolation factory does.

use gt4rs::grid::Grid;
use gt4rs::{Error, Field};

use super::coefficients;
use crate::diffusion::state::{field_of, InterpolationState as DiffusionInterpolationState};
use crate::icon::dims::{Cell, Edge, Vertex, C2E, C2E2CO, E2C, E2C2E, E2C2EO, V2C, V2E};

/// ICON4Py's `InterpolationState` of the dynamical core, double precision, under ICON4Py's
/// names; per-neighbour fields follow the grid's own neighbour tables.
#[derive(Clone, Debug, PartialEq)]
pub struct InterpolationState {
    pub e_bln_c_s: Field<(Cell, C2E), f64>,
    /// `rbf_vec_coeff_v1`.
    pub rbf_coeff_1: Field<(Vertex, V2E), f64>,
    /// `rbf_vec_coeff_v2`.
    pub rbf_coeff_2: Field<(Vertex, V2E), f64>,
    pub geofac_div: Field<(Cell, C2E), f64>,
    pub geofac_n2s: Field<(Cell, C2E2CO), f64>,
    pub geofac_grg_x: Field<(Cell, C2E2CO), f64>,
    pub geofac_grg_y: Field<(Cell, C2E2CO), f64>,
    pub nudgecoeff_e: Field<Edge, f64>,
    pub c_lin_e: Field<(Edge, E2C), f64>,
    pub geofac_grdiv: Field<(Edge, E2C2EO), f64>,
    pub rbf_vec_coeff_e: Field<(Edge, E2C2E), f64>,
    /// Cell-to-vertex weights (ICON's `cells_aw_verts`).
    pub c_intp: Field<(Vertex, V2C), f64>,
    pub geofac_rot: Field<(Vertex, V2E), f64>,
    /// The E2C cell centres' positions along the edge normal in the plane tangent at the
    /// edge (ICON's `pos_on_tplane_e_x`), metres.
    pub pos_on_tplane_e_1: Field<(Edge, E2C), f64>,
    /// ... and along the edge tangent (`pos_on_tplane_e_y`).
    pub pos_on_tplane_e_2: Field<(Edge, E2C), f64>,
    pub e_flx_avg: Field<(Edge, E2C2EO), f64>,
}

/// ICON's interpolation parameters the state depends on (ICON4Py's `InterpolationConfig`), with
/// ICON's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InterpolationConfig {
    /// The central cell's weight in the divergence averaging (`divavg_cntrwgt`,
    /// `dynamics_nml`; ICON's and ICON4Py's default 0.5).
    pub divergence_averaging_central_cell_weight: f64,
    /// The nudging coefficient at the first nudging row of edges (ICON4Py's
    /// `max_nudging_coefficient`: ICON's default `nudge_max_coeff` 0.075 times the dynamics to
    /// physics time step ratio 5 = 0.375).
    pub max_nudging_coefficient: f64,
    /// The e-folding width of the nudging coefficients, in rows (`nudge_efold_width`,
    /// `interpol_nml`; default 2).
    pub nudge_efold_width: f64,
    /// The width of the nudging zone in cell rows (`nudge_zone_width`, `interpol_nml`;
    /// default 10): edges up to level `2 · width + 7` are nudged.
    pub nudge_zone_width: i32,
}

impl Default for InterpolationConfig {
    fn default() -> Self {
        InterpolationConfig {
            divergence_averaging_central_cell_weight: 0.5,
            max_nudging_coefficient: 0.375,
            nudge_efold_width: 2.0,
            nudge_zone_width: coefficients::NUDGE_ZONE_WIDTH,
        }
    }
}

impl InterpolationState {
    /// The coefficients on `grid`: those the diffusion's
    /// [`DiffusionInterpolationState::from_grid`] takes from the grid's geometry or computes
    /// (`e_bln_c_s`), and `c_intp`, `geofac_grdiv`, `e_flx_avg`, `pos_on_tplane_e_1/2` and
    /// `nudgecoeff_e` (with this configuration's nudging) computed as ICON4Py's interpolation
    /// factory does ([`super::coefficients`]).
    ///
    /// `grid` is a whole grid (one domain: every point owned, as ICON4Py's single-rank
    /// factory). A rank's part takes its rows from the whole grid's state, as the diffusion's
    /// distributed job does; computed on a part, a stencil that leaves the part where ICON
    /// computes the coefficient is an error.
    pub fn compute(grid: &Grid, config: &InterpolationConfig) -> Result<Self, Error> {
        let weight = config.divergence_averaging_central_cell_weight;
        if !(0.0..=1.0).contains(&weight) {
            return Err(Error::Config(format!(
                "divergence_averaging_central_cell_weight {weight} is not a weight in [0, 1]"
            )));
        }
        let positive_width = config.nudge_efold_width > 0.0 && config.nudge_efold_width.is_finite();
        if !positive_width || config.nudge_zone_width < 0 {
            return Err(Error::Config(format!(
                "nudge_efold_width {} must be positive and nudge_zone_width {} not negative",
                config.nudge_efold_width, config.nudge_zone_width
            )));
        }
        // Without the diffusion's nudging coefficients (replaced below).
        let shared = DiffusionInterpolationState::from_grid(grid, false, 0.0, 1.0)?;
        let nudgecoeff_e = coefficients::nudging_coefficients(
            grid,
            config.max_nudging_coefficient,
            config.nudge_efold_width,
            config.nudge_zone_width,
        )?;
        let g = &grid.geometry;
        let c_bln_avg = coefficients::bilinear_cell_average(grid, weight)?;
        let e_flx_avg = coefficients::edge_flux_average(grid, &c_bln_avg)?;
        let (pos_on_tplane_e_1, pos_on_tplane_e_2) =
            coefficients::positions_on_tangent_plane(grid)?;
        Ok(InterpolationState {
            e_bln_c_s: shared.e_bln_c_s,
            rbf_coeff_1: shared.rbf_coeff_1,
            rbf_coeff_2: shared.rbf_coeff_2,
            geofac_div: shared.geofac_div,
            geofac_n2s: shared.geofac_n2s,
            geofac_grg_x: shared.geofac_grg_x,
            geofac_grg_y: shared.geofac_grg_y,
            nudgecoeff_e: field_of(nudgecoeff_e.into_dyn())?,
            c_lin_e: field_of(g.c_lin_e.clone().into_dyn())?,
            geofac_grdiv: field_of(coefficients::gradient_of_divergence(grid)?.into_dyn())?,
            rbf_vec_coeff_e: field_of(g.rbf_vec_coeff_e.clone().into_dyn())?,
            c_intp: field_of(coefficients::cell_to_vertex_weights(grid)?.into_dyn())?,
            geofac_rot: field_of(g.geofac_rot.clone().into_dyn())?,
            pos_on_tplane_e_1: field_of(pos_on_tplane_e_1.into_dyn())?,
            pos_on_tplane_e_2: field_of(pos_on_tplane_e_2.into_dyn())?,
            e_flx_avg: field_of(e_flx_avg.into_dyn())?,
        })
    }
}
