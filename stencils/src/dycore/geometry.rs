//! The edge and cell geometry the dynamical core reads (ICON4Py's `EdgeParams` and
//! `CellParams`), taken from the grid's geometry.

use gt4rs::grid::{Grid, Surface};
use gt4rs::{Error, Field};
use ndarray::Array1;

use crate::diffusion::state::field_of;
use crate::icon::dims::{Cell, Edge, E2C};

/// ICON's angular velocity of the Earth (rad/s).
pub const EARTH_ANGULAR_VELOCITY: f64 = 7.29212e-5;

/// Edge geometry of the dynamical core.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeParams {
    pub tangent_orientation: Field<Edge, f64>,
    pub inverse_primal_edge_lengths: Field<Edge, f64>,
    pub inverse_dual_edge_lengths: Field<Edge, f64>,
    /// Primal times dual edge length (ICON's `area_edge`).
    pub edge_areas: Field<Edge, f64>,
    /// `2 Ω sin φ` at the edge midpoint; 0 on a torus (no rotation).
    pub coriolis_frequency: Field<Edge, f64>,
    pub primal_normal_cell_x: Field<(Edge, E2C), f64>,
    pub primal_normal_cell_y: Field<(Edge, E2C), f64>,
    pub dual_normal_cell_x: Field<(Edge, E2C), f64>,
    pub dual_normal_cell_y: Field<(Edge, E2C), f64>,
}

impl EdgeParams {
    pub fn from_grid(grid: &Grid) -> Result<Self, Error> {
        let g = &grid.geometry;
        let coriolis = match g.surface {
            Surface::Sphere { .. } => {
                Array1::from_iter(g.edge_center.rows().into_iter().map(|p| {
                    let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                    2.0 * EARTH_ANGULAR_VELOCITY * (p[2] / r)
                }))
            }
            Surface::Torus { .. } => Array1::zeros(grid.num_edges),
        };
        Ok(EdgeParams {
            tangent_orientation: field_of(g.tangent_orientation.clone().into_dyn())?,
            inverse_primal_edge_lengths: field_of(g.inv_primal_edge_length.clone().into_dyn())?,
            inverse_dual_edge_lengths: field_of(g.inv_dual_edge_length.clone().into_dyn())?,
            edge_areas: field_of((&g.primal_edge_length * &g.dual_edge_length).into_dyn())?,
            coriolis_frequency: field_of(coriolis.into_dyn())?,
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
    /// The mean area of the grid's cells (m²), the length scale² of second-order divergence
    /// damping.
    pub mean_cell_area: f64,
}

impl CellParams {
    pub fn from_grid(grid: &Grid) -> Result<Self, Error> {
        let area = &grid.geometry.cell_area;
        if area.is_empty() {
            return Err(Error::Config("the grid has no cells".into()));
        }
        Ok(CellParams {
            mean_cell_area: area.sum() / area.len() as f64,
            area: field_of(area.clone().into_dyn())?,
        })
    }
}
