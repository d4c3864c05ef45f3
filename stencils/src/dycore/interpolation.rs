//! The interpolation coefficients of the nonhydrostatic solver and velocity advection (ICON4Py's
//! `InterpolationState`), computed on a grid as ICON4Py's interpolation factory does.

use gt4rs::Field;

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
    pub pos_on_tplane_e_1: Field<(Edge, E2C), f64>,
    pub pos_on_tplane_e_2: Field<(Edge, E2C), f64>,
    pub e_flx_avg: Field<(Edge, E2C2EO), f64>,
}
