//! The fields the granule reads and writes: prognostic and diagnostic state, and the
//! interpolation, metric and geometry fields taken from a [`Grid`] and a [`VerticalGrid`].

use gt4rs::grid::Grid;
use gt4rs::{Dims, Error, Field, FieldMut, Layout};
use ndarray::{s, Array1, Array2, ArrayD};

use super::vertical::VerticalGrid;
use crate::dycore::coefficients;
use crate::icon::dims::{Cell, Edge, Vertex, C2E, C2E2C, C2E2CO, E2C2V, K, V2E};

/// Wraps an array as a field starting at index 0.
pub(crate) fn field_of<D: Dims>(array: ArrayD<f64>) -> Result<Field<D, f64>, Error> {
    Field::from_array_zero_origin(array)
}

/// A field over `[0, n)` per dimension filled with zeros.
pub(crate) fn zeros<D: Dims>(shape: &[usize]) -> Result<Field<D, f64>, Error> {
    Field::zeros(shape)
}

/// A field over `[0, n)` per dimension filled with zeros, in `layout`.
pub(crate) fn zeros_in<D: Dims>(shape: &[usize], layout: Layout) -> Result<Field<D, f64>, Error> {
    let domain: Vec<std::ops::Range<i64>> = shape.iter().map(|&n| 0..n as i64).collect();
    Field::filled(&domain, 0.0, layout)
}

/// A K field from per-level values.
pub(crate) fn k_field(values: &[f64]) -> Result<Field<K, f64>, Error> {
    field_of(Array1::from(values.to_vec()).into_dyn())
}

/// A (Cell, K) field with the same column `values` in every cell (flat terrain).
pub(crate) fn cell_columns(
    num_cells: usize,
    values: &[f64],
) -> Result<Field<(Cell, K), f64>, Error> {
    let column = Array1::from(values.to_vec());
    let array = Array2::from_shape_fn((num_cells, values.len()), |(_, k)| column[k]);
    field_of(array.into_dyn())
}

/// Prognostic variables. `w` lives on the `nlev + 1` half levels.
#[derive(Clone, Debug, PartialEq)]
pub struct PrognosticState {
    pub vn: Field<(Edge, K), f64>,
    pub w: Field<(Cell, K), f64>,
    pub theta_v: Field<(Cell, K), f64>,
    pub exner: Field<(Cell, K), f64>,
}

impl PrognosticState {
    /// Views of the four fields, for [`super::Diffusion::run_views`].
    pub fn views(&mut self) -> PrognosticViews<'_> {
        PrognosticViews {
            vn: self.vn.view_mut(),
            w: self.w.view_mut(),
            theta_v: self.theta_v.view_mut(),
            exner: self.exner.view_mut(),
        }
    }
}

/// The prognostic variables in memory the caller owns (a model's arrays, or the fields of a
/// [`PrognosticState`]): the granule updates them in place.
pub struct PrognosticViews<'a> {
    pub vn: FieldMut<'a, (Edge, K), f64>,
    pub w: FieldMut<'a, (Cell, K), f64>,
    pub theta_v: FieldMut<'a, (Cell, K), f64>,
    pub exner: FieldMut<'a, (Cell, K), f64>,
}

/// Diagnostics the granule hands to turbulence, on half levels.
#[derive(Clone, Debug, PartialEq)]
pub struct DiagnosticState {
    pub hdef_ic: Field<(Cell, K), f64>,
    pub div_ic: Field<(Cell, K), f64>,
    pub dwdx: Field<(Cell, K), f64>,
    pub dwdy: Field<(Cell, K), f64>,
}

impl DiagnosticState {
    pub fn zeros(num_cells: usize, nlev: usize) -> Result<Self, Error> {
        Ok(DiagnosticState {
            hdef_ic: zeros(&[num_cells, nlev + 1])?,
            div_ic: zeros(&[num_cells, nlev + 1])?,
            dwdx: zeros(&[num_cells, nlev + 1])?,
            dwdy: zeros(&[num_cells, nlev + 1])?,
        })
    }

    /// Views of the four fields, for [`super::Diffusion::run_views`].
    pub fn views(&mut self) -> DiagnosticViews<'_> {
        DiagnosticViews {
            hdef_ic: self.hdef_ic.view_mut(),
            div_ic: self.div_ic.view_mut(),
            dwdx: self.dwdx.view_mut(),
            dwdy: self.dwdy.view_mut(),
        }
    }
}

/// The diagnostics in memory the caller owns.
pub struct DiagnosticViews<'a> {
    pub hdef_ic: FieldMut<'a, (Cell, K), f64>,
    pub div_ic: FieldMut<'a, (Cell, K), f64>,
    pub dwdx: FieldMut<'a, (Cell, K), f64>,
    pub dwdy: FieldMut<'a, (Cell, K), f64>,
}

/// Interpolation coefficients (ICON4Py `DiffusionInterpolationState`).
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
    /// `geofac_n2s[:, 0]`: the cell's own weight.
    pub geofac_n2s_c: Field<Cell, f64>,
    /// `geofac_n2s[:, 1..4]`: the neighbours' weights.
    pub geofac_n2s_nbh: Field<(Cell, C2E2C), f64>,
}

impl InterpolationState {
    /// From the grid's geometry, with `e_bln_c_s` and `nudgecoeff_e` computed as ICON4Py's
    /// interpolation factory computes them (what ICON4Py's diffusion granule is given:
    /// [`coefficients::edge_to_cell_weights`], [`coefficients::nudging_coefficients`] with
    /// ICON's nudging zone width). `nudgecoeff_e` is 0 on a global grid; on a limited-area grid
    /// it is `scaled_nudge_max_coeff` on the second nudging row of edges (ICON's
    /// `grf_nudge_start_e`) and decays as `exp(-row / (2 nudge_efold_width))` beyond it, over
    /// the rows the grid has.
    pub fn from_grid(
        grid: &Grid,
        limited_area: bool,
        scaled_nudge_max_coeff: f64,
        nudge_efold_width: f64,
    ) -> Result<Self, Error> {
        let g = &grid.geometry;
        let nudgecoeff_e = if limited_area {
            coefficients::nudging_coefficients(
                grid,
                scaled_nudge_max_coeff,
                nudge_efold_width,
                coefficients::NUDGE_ZONE_WIDTH,
            )?
        } else {
            Array1::<f64>::zeros(grid.num_edges)
        };
        Ok(InterpolationState {
            e_bln_c_s: field_of(coefficients::edge_to_cell_weights(grid)?.into_dyn())?,
            rbf_coeff_1: field_of(g.rbf_vec_coeff_v1.clone().into_dyn())?,
            rbf_coeff_2: field_of(g.rbf_vec_coeff_v2.clone().into_dyn())?,
            geofac_div: field_of(g.geofac_div.clone().into_dyn())?,
            geofac_n2s: field_of(g.geofac_n2s.clone().into_dyn())?,
            geofac_grg_x: field_of(g.geofac_grg_x.clone().into_dyn())?,
            geofac_grg_y: field_of(g.geofac_grg_y.clone().into_dyn())?,
            nudgecoeff_e: field_of(nudgecoeff_e.into_dyn())?,
            geofac_n2s_c: field_of(g.geofac_n2s.column(0).to_owned().into_dyn())?,
            geofac_n2s_nbh: field_of(g.geofac_n2s.slice(s![.., 1..4]).to_owned().into_dyn())?,
        })
    }
}

/// Fields of truly horizontal temperature diffusion over steep points (ICON's `zd_*`).
#[derive(Clone, Debug, PartialEq)]
pub struct ZDiffusionFields {
    pub mask_hdiff: Field<(Cell, K), bool>,
    pub zd_vertoffset: Field<(Cell, C2E2C, K), i32>,
    pub zd_diffcoef: Field<(Cell, K), f64>,
    pub zd_intcoef: Field<(Cell, C2E2C, K), f64>,
}

/// Metric fields (ICON4Py `DiffusionMetricState`).
#[derive(Clone, Debug, PartialEq)]
pub struct MetricState {
    /// On `nlev + 1` half levels.
    pub wgtfac_c: Field<(Cell, K), f64>,
    pub theta_ref_mc: Field<(Cell, K), f64>,
    /// `None` where the terrain has no steep points (always, over the flat terrain of a
    /// [`VerticalGrid`]): ICON then has an empty list of points and z-diffusion does nothing.
    pub zdiffusion: Option<ZDiffusionFields>,
}

impl MetricState {
    /// Over flat terrain: every column is the same, and no point is steep.
    pub fn flat(num_cells: usize, vertical: &VerticalGrid) -> Result<Self, Error> {
        Ok(MetricState {
            wgtfac_c: cell_columns(num_cells, &vertical.wgtfac_c()?)?,
            theta_ref_mc: cell_columns(num_cells, &vertical.theta_ref_mc())?,
            zdiffusion: None,
        })
    }
}

/// Edge geometry (ICON4Py `EdgeParams`).
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeParams {
    pub tangent_orientation: Field<Edge, f64>,
    pub inverse_primal_edge_lengths: Field<Edge, f64>,
    pub inverse_dual_edge_lengths: Field<Edge, f64>,
    pub inverse_vertex_vertex_lengths: Field<Edge, f64>,
    pub primal_normal_vert_x: Field<(Edge, E2C2V), f64>,
    pub primal_normal_vert_y: Field<(Edge, E2C2V), f64>,
    pub dual_normal_vert_x: Field<(Edge, E2C2V), f64>,
    pub dual_normal_vert_y: Field<(Edge, E2C2V), f64>,
    /// `primal_edge_length · dual_edge_length`, as ICON's `area_edge`.
    pub edge_areas: Field<Edge, f64>,
}

impl EdgeParams {
    pub fn from_grid(grid: &Grid) -> Result<Self, Error> {
        let g = &grid.geometry;
        Ok(EdgeParams {
            tangent_orientation: field_of(g.tangent_orientation.clone().into_dyn())?,
            inverse_primal_edge_lengths: field_of(g.inv_primal_edge_length.clone().into_dyn())?,
            inverse_dual_edge_lengths: field_of(g.inv_dual_edge_length.clone().into_dyn())?,
            inverse_vertex_vertex_lengths: field_of(g.inv_vert_vert_length.clone().into_dyn())?,
            primal_normal_vert_x: field_of(g.primal_normal_vert_x.clone().into_dyn())?,
            primal_normal_vert_y: field_of(g.primal_normal_vert_y.clone().into_dyn())?,
            dual_normal_vert_x: field_of(g.dual_normal_vert_x.clone().into_dyn())?,
            dual_normal_vert_y: field_of(g.dual_normal_vert_y.clone().into_dyn())?,
            edge_areas: field_of((&g.primal_edge_length * &g.dual_edge_length).into_dyn())?,
        })
    }
}

/// Cell geometry (ICON4Py `CellParams`).
#[derive(Clone, Debug, PartialEq)]
pub struct CellParams {
    pub area: Field<Cell, f64>,
}

impl CellParams {
    pub fn from_grid(grid: &Grid) -> Result<Self, Error> {
        Ok(CellParams {
            area: field_of(grid.geometry.cell_area.clone().into_dyn())?,
        })
    }
}
