//! The edge and cell geometry the dynamical core reads (ICON4Py's `EdgeParams` and
//! `CellParams`), taken from the grid's geometry.

use gt4rs::grid::{Grid, GridKind, Surface};
use gt4rs::{Error, Field};
use ndarray::Array1;

use super::coefficients::latitudes_longitudes;
use crate::diffusion::state::{
    field_of, CellParams as DiffusionCellParams, EdgeParams as DiffusionEdgeParams,
};
use crate::icon::dims::{Cell, Edge, E2C};

/// ICON's angular velocity of the Earth, rad/s (ICON4Py's `EARTH_ANGULAR_VELOCITY`,
/// `mo_physical_constants`' `earth_angular_velocity`).
pub const EARTH_ANGULAR_VELOCITY: f64 = 7.29212e-5;

/// Edge geometry of the dynamical core.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeParams {
    pub tangent_orientation: Field<Edge, f64>,
    pub inverse_primal_edge_lengths: Field<Edge, f64>,
    pub inverse_dual_edge_lengths: Field<Edge, f64>,
    /// Primal times dual edge length (ICON's `area_edge`).
    pub edge_areas: Field<Edge, f64>,
    /// The Coriolis parameter at the edge midpoint ([`coriolis_frequency`]).
    pub coriolis_frequency: Field<Edge, f64>,
    pub primal_normal_cell_x: Field<(Edge, E2C), f64>,
    pub primal_normal_cell_y: Field<(Edge, E2C), f64>,
    pub dual_normal_cell_x: Field<(Edge, E2C), f64>,
    pub dual_normal_cell_y: Field<(Edge, E2C), f64>,
}

impl EdgeParams {
    /// The diffusion's edge geometry (the lengths, the orientation and the edge areas, derived
    /// in one place) with the Coriolis parameter and the normals at the cell centres.
    pub fn from_grid(grid: &Grid) -> Result<Self, Error> {
        let g = &grid.geometry;
        let shared = DiffusionEdgeParams::from_grid(grid)?;
        Ok(EdgeParams {
            tangent_orientation: shared.tangent_orientation,
            inverse_primal_edge_lengths: shared.inverse_primal_edge_lengths,
            inverse_dual_edge_lengths: shared.inverse_dual_edge_lengths,
            edge_areas: shared.edge_areas,
            coriolis_frequency: field_of(coriolis_frequency(grid)?.into_dyn())?,
            primal_normal_cell_x: field_of(g.primal_normal_cell_x.clone().into_dyn())?,
            primal_normal_cell_y: field_of(g.primal_normal_cell_y.clone().into_dyn())?,
            dual_normal_cell_x: field_of(g.dual_normal_cell_x.clone().into_dyn())?,
            dual_normal_cell_y: field_of(g.dual_normal_cell_y.clone().into_dyn())?,
        })
    }
}

/// Cell geometry of the dynamical core.
#[derive(Clone, Debug, PartialEq)]
pub struct CellParams {
    pub area: Field<Cell, f64>,
    /// The mean cell area (m², [`mean_cell_area`]), the length scale² of second-order
    /// divergence damping.
    pub mean_cell_area: f64,
}

impl CellParams {
    pub fn from_grid(grid: &Grid) -> Result<Self, Error> {
        Ok(CellParams {
            area: DiffusionCellParams::from_grid(grid)?.area,
            mean_cell_area: mean_cell_area(grid)?,
        })
    }
}

/// `2 Ω sin φ` at each edge midpoint, as ICON4Py's `coriolis_parameter_on_edges`
/// (`2.0 * angular_velocity * sin(lat)`); 0 everywhere on the torus.
pub fn coriolis_frequency(grid: &Grid) -> Result<Array1<f64>, Error> {
    match grid.geometry.surface {
        Surface::Sphere { .. } => {
            let (lat, _) = latitudes_longitudes(grid.geometry.edge_center.view())?;
            Ok(lat.mapv(|lat| 2.0 * EARTH_ANGULAR_VELOCITY * lat.sin()))
        }
        Surface::Torus { .. } => Ok(Array1::zeros(grid.num_edges)),
    }
}

/// The mean cell area as ICON4Py's geometry computes it by default (`use_analytical_means`):
/// `4πR² / (20 n² 4ᵏ)` for a grid of (or cut from, or a part of) the icosahedral grid RnBk,
/// `√3/4 l²` for a torus of triangles of side `l`. A grid read from a file does not say which
/// global grid it belongs to: there the mean of its cells' areas (ICON4Py without analytical
/// means).
pub fn mean_cell_area(grid: &Grid) -> Result<f64, Error> {
    fn of_kind(kind: &GridKind, grid: &Grid) -> Result<f64, Error> {
        match kind {
            GridKind::Icosahedral { root, bisections } => {
                let Surface::Sphere { radius } = grid.geometry.surface else {
                    return Err(Error::Config(
                        "an icosahedral grid whose surface is not a sphere".into(),
                    ));
                };
                let cells = 20.0 * f64::from(*root).powi(2) * 4f64.powi(*bisections as i32);
                Ok(4.0 * std::f64::consts::PI * radius.powi(2) / cells)
            }
            GridKind::Regional { parent, .. } | GridKind::Part { parent, .. } => {
                of_kind(parent, grid)
            }
            GridKind::Torus { edge_length, .. } => Ok(edge_length.powi(2) * 3f64.sqrt() / 4.0),
            GridKind::File { .. } => {
                let areas = &grid.geometry.cell_area;
                if areas.is_empty() {
                    return Err(Error::Config(
                        "a grid without cells has no mean cell area".into(),
                    ));
                }
                Ok(areas.sum() / areas.len() as f64)
            }
        }
    }
    of_kind(&grid.kind, grid)
}
