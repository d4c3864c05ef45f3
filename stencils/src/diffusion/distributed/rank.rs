//! One rank's granule: the global inputs restricted to the rank's points, and the owned
//! values gathered back by global index.

use gt4rs::field::Scalar;
use gt4rs::grid::decomposition::{LocalGrid, Partition};
use gt4rs::grid::{Grid, GridDim};
use gt4rs::{Dims, Error, Field};
use ndarray::{ArrayD, Axis};

use crate::diffusion::granule::{Diffusion, RunOptions};
use crate::diffusion::halo::HaloExchange;
use crate::diffusion::initial::GranuleInputs;
use crate::diffusion::state::{
    CellParams, DiagnosticState, EdgeParams, InterpolationState, MetricState, PrognosticState,
    ZDiffusionFields,
};
use crate::diffusion::vertical::VerticalGrid;

/// The rows of the rank's points (owned, then halo) of a field on `dim`.
fn rows<D: Dims, T: Scalar>(
    field: &Field<D, T>,
    local: &LocalGrid,
    dim: GridDim,
) -> Result<Field<D, T>, Error> {
    let global = &local.map(dim).global;
    let size = field.shape().first().copied().unwrap_or(0);
    if let Some(&beyond) = global.iter().find(|&&g| g >= size) {
        return Err(Error::Shape(format!(
            "a {} field of {size} points cannot be cut at global point {beyond}",
            dim.name()
        )));
    }
    Field::from_array_zero_origin(field.as_array().select(Axis(0), global))
}

/// The global inputs of a run, cut to each rank's points.
pub struct RankInputs<'a> {
    pub grid: &'a Grid,
    pub vertical: &'a VerticalGrid,
    pub inputs: &'a GranuleInputs,
}

impl RankInputs<'_> {
    /// The granule of `local`'s rank, exchanging through `halo`, and its diagnostics.
    pub fn granule(
        &self,
        local: &LocalGrid,
        options: RunOptions,
        halo: Box<dyn HaloExchange>,
    ) -> Result<(Diffusion, DiagnosticState), Error> {
        let (c, e, v) = (GridDim::Cell, GridDim::Edge, GridDim::Vertex);
        let g = self.inputs;
        let metric = MetricState {
            wgtfac_c: rows(&g.metric.wgtfac_c, local, c)?,
            theta_ref_mc: rows(&g.metric.theta_ref_mc, local, c)?,
            zdiffusion: match &g.metric.zdiffusion {
                None => None,
                Some(zd) => Some(ZDiffusionFields {
                    mask_hdiff: rows(&zd.mask_hdiff, local, c)?,
                    zd_vertoffset: rows(&zd.zd_vertoffset, local, c)?,
                    zd_diffcoef: rows(&zd.zd_diffcoef, local, c)?,
                    zd_intcoef: rows(&zd.zd_intcoef, local, c)?,
                }),
            },
        };
        let i = &g.interpolation;
        let interpolation = InterpolationState {
            e_bln_c_s: rows(&i.e_bln_c_s, local, c)?,
            rbf_coeff_1: rows(&i.rbf_coeff_1, local, v)?,
            rbf_coeff_2: rows(&i.rbf_coeff_2, local, v)?,
            geofac_div: rows(&i.geofac_div, local, c)?,
            geofac_n2s: rows(&i.geofac_n2s, local, c)?,
            geofac_grg_x: rows(&i.geofac_grg_x, local, c)?,
            geofac_grg_y: rows(&i.geofac_grg_y, local, c)?,
            nudgecoeff_e: rows(&i.nudgecoeff_e, local, e)?,
            geofac_n2s_c: rows(&i.geofac_n2s_c, local, c)?,
            geofac_n2s_nbh: rows(&i.geofac_n2s_nbh, local, c)?,
        };
        let p = &g.edge;
        let edge = EdgeParams {
            tangent_orientation: rows(&p.tangent_orientation, local, e)?,
            inverse_primal_edge_lengths: rows(&p.inverse_primal_edge_lengths, local, e)?,
            inverse_dual_edge_lengths: rows(&p.inverse_dual_edge_lengths, local, e)?,
            inverse_vertex_vertex_lengths: rows(&p.inverse_vertex_vertex_lengths, local, e)?,
            primal_normal_vert_x: rows(&p.primal_normal_vert_x, local, e)?,
            primal_normal_vert_y: rows(&p.primal_normal_vert_y, local, e)?,
            dual_normal_vert_x: rows(&p.dual_normal_vert_x, local, e)?,
            dual_normal_vert_y: rows(&p.dual_normal_vert_y, local, e)?,
            edge_areas: rows(&p.edge_areas, local, e)?,
        };
        let cell = CellParams {
            area: rows(&g.cell.area, local, c)?,
        };
        let restricted = GranuleInputs {
            config: g.config.clone(),
            metric,
            interpolation,
            edge,
            cell,
        };
        let (granule, diagnostic) = restricted.init(&local.grid, self.vertical, options)?;
        Ok((granule.with_halo_exchange(halo), diagnostic))
    }

    /// The prognostic state at the rank's points.
    pub fn prognostic(
        &self,
        state: &PrognosticState,
        local: &LocalGrid,
    ) -> Result<PrognosticState, Error> {
        Ok(PrognosticState {
            vn: rows(&state.vn, local, GridDim::Edge)?,
            w: rows(&state.w, local, GridDim::Cell)?,
            theta_v: rows(&state.theta_v, local, GridDim::Cell)?,
            exner: rows(&state.exner, local, GridDim::Cell)?,
        })
    }
}

/// The global indices each rank owns in `dim`, ascending: the order of its owned rows.
pub fn owned_by_rank(
    grid: &Grid,
    partition: &Partition,
    dim: GridDim,
) -> Result<Vec<Vec<usize>>, Error> {
    let owner = partition.owners(grid, dim)?;
    let mut owned = vec![Vec::new(); partition.ranks];
    for (g, &r) in owner.iter().enumerate() {
        owned[r as usize].push(g);
    }
    Ok(owned)
}

/// A global field of `dim` from each rank's owned rows (`parts[r]`, `[owned, rest…]`).
pub fn gather_owned(
    global_size: usize,
    owned: &[Vec<usize>],
    parts: &[ArrayD<f64>],
) -> Result<ArrayD<f64>, Error> {
    let first = parts
        .first()
        .ok_or_else(|| Error::Shape("nothing to gather".into()))?;
    let mut shape = first.shape().to_vec();
    shape[0] = global_size;
    let mut out = ArrayD::zeros(shape);
    for (rank, (part, globals)) in parts.iter().zip(owned).enumerate() {
        if part.shape()[0] != globals.len() || part.shape()[1..] != out.shape()[1..] {
            return Err(Error::Shape(format!(
                "rank {rank} sent rows of shape {:?}, {} owned rows of {:?} expected",
                part.shape(),
                globals.len(),
                &out.shape()[1..]
            )));
        }
        for (row, &g) in part.outer_iter().zip(globals) {
            out.index_axis_mut(Axis(0), g).assign(&row);
        }
    }
    Ok(out)
}

/// The fields a decomposed run is compared by, with their dimension: the prognostic state,
/// then the diagnostics the granule writes.
pub fn compared_fields(
    p: &PrognosticState,
    d: &DiagnosticState,
) -> [(&'static str, GridDim, ArrayD<f64>); 8] {
    let c = GridDim::Cell;
    [
        ("vn", GridDim::Edge, p.vn.as_array().to_owned()),
        ("w", c, p.w.as_array().to_owned()),
        ("theta_v", c, p.theta_v.as_array().to_owned()),
        ("exner", c, p.exner.as_array().to_owned()),
        ("hdef_ic", c, d.hdef_ic.as_array().to_owned()),
        ("div_ic", c, d.div_ic.as_array().to_owned()),
        ("dwdx", c, d.dwdx.as_array().to_owned()),
        ("dwdy", c, d.dwdy.as_array().to_owned()),
    ]
}
