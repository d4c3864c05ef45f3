//! The terrain-dependent metric fields of the granule, computed from a [`Terrain`] as ICON's
//! `mo_vertical_grid` (`set_nh_metrics`, `prepare_zdiffu`) and ICON4Py
//! (`metric_fields.py`: `compute_wgtfac_c`, `compute_ddxn_z_half_e`, `compute_ddxn_z_full`,
//! `compute_maxslp_maxhgtd`, `compute_weighted_cell_neighbor_sum`;
//! `compute_diffusion_metrics.py`: `mask_hdiff`, `zd_diffcoef`, `zd_vertoffset`, `zd_intcoef`;
//! `reference_atmosphere.py`: `theta_ref_mc`) compute them.

use gt4rs::grid::{Grid, GridDim, Zone};
use gt4rs::{Error, Field};
use ndarray::{Array2, Array3};

use super::config::DiffusionConfig;
use super::state::{field_of, MetricState, ZDiffusionFields};
use super::terrain::Terrain;
use super::vertical::VerticalGrid;

/// ICON's `divavg_cntrwgt`: the cell's own weight in `c_bln_avg`.
const DIVAVG_CENTRE_WEIGHT: f64 = 0.5;

/// ICON's upper bound of `zd_diffcoef`.
const MAX_ZD_DIFFCOEF: f64 = 0.002;

/// `wgtfac_c` of one column from its `nlev + 1` half-level heights (top down): the weight of
/// full level `k` when interpolating to half level `k`,
/// `(z_ifc[k-1] - z_ifc[k]) / (z_ifc[k-1] - z_ifc[k+1])`; the top and the ground extrapolate
/// from their two nearest full levels (ICON4Py `compute_wgtfac_c`). Needs at least 3 half
/// levels.
pub fn wgtfac_c_column(z_ifc: &[f64]) -> Result<Vec<f64>, Error> {
    if z_ifc.len() < 3 {
        return Err(Error::Config(format!(
            "wgtfac_c needs at least 3 half levels, not {}",
            z_ifc.len()
        )));
    }
    let n = z_ifc.len() - 1;
    Ok((0..=n)
        .map(|k| match k {
            0 => (z_ifc[1] - z_ifc[0]) / (z_ifc[2] - z_ifc[0]),
            k if k == n => (z_ifc[n - 1] - z_ifc[n]) / (z_ifc[n - 2] - z_ifc[n]),
            k => (z_ifc[k - 1] - z_ifc[k]) / (z_ifc[k - 1] - z_ifc[k + 1]),
        })
        .collect())
}

/// The slope measures of ICON's z-diffusion, `[cell, nlev]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SlopeMeasures {
    /// `maxslp`: the largest |∂z/∂n| of full level k over the cell's edges.
    pub maxslp: Array2<f64>,
    /// `maxhgtd`: the largest height difference |∂z/∂n| · dual edge length to a neighbour.
    pub maxhgtd: Array2<f64>,
    /// `maxslp_avg`: `maxslp` averaged with the neighbours by `c_bln_avg`.
    pub maxslp_avg: Array2<f64>,
    pub maxhgtd_avg: Array2<f64>,
}

impl SlopeMeasures {
    /// `ddxn_z_half_e = (z_ifc[E2C[1]] - z_ifc[E2C[0]]) / dual_edge_length`, averaged to full
    /// levels (`ddxn_z_full`); per cell the largest over its edges, then averaged with the
    /// C2E2C neighbours by ICON's `c_bln_avg` weights before their mass-conserving correction:
    /// ½ for the cell, ⅙ per neighbour (a missing neighbour's weight goes to the cell).
    pub fn of(grid: &Grid, terrain: &Terrain) -> Result<Self, Error> {
        let (nc, nlev) = (grid.num_cells, terrain.nlev());
        if terrain.z_ifc.dim() != (nc, nlev + 1) {
            return Err(Error::Shape(format!(
                "the terrain's half levels have shape {:?}, the grid needs ({nc}, {})",
                terrain.z_ifc.dim(),
                nlev + 1
            )));
        }
        let (e2c, c2e, c2e2c) = (grid.table("E2C")?, grid.table("C2E")?, grid.table("C2E2C")?);
        let g = &grid.geometry;
        let z = &terrain.z_ifc;
        let ddxn_z_full = Array2::from_shape_fn((grid.num_edges, nlev), |(e, k)| {
            match (usize::try_from(e2c[[e, 0]]), usize::try_from(e2c[[e, 1]])) {
                (Ok(c0), Ok(c1)) => {
                    let half = |k: usize| (z[[c1, k]] - z[[c0, k]]) * g.inv_dual_edge_length[e];
                    0.5 * (half(k) + half(k + 1))
                }
                // Boundary edges of a limited-area grid have one cell: no slope across them.
                _ => 0.0,
            }
        });
        let mut maxslp = Array2::zeros((nc, nlev));
        let mut maxhgtd = Array2::zeros((nc, nlev));
        for c in 0..nc {
            for e in c2e.row(c).iter().filter_map(|&e| usize::try_from(e).ok()) {
                for k in 0..nlev {
                    let slope = ddxn_z_full[[e, k]].abs();
                    maxslp[[c, k]] = f64::max(maxslp[[c, k]], slope);
                    maxhgtd[[c, k]] = f64::max(maxhgtd[[c, k]], slope * g.dual_edge_length[e]);
                }
            }
        }
        let average = |f: &Array2<f64>| {
            let neighbour_weight = (1.0 - DIVAVG_CENTRE_WEIGHT) / c2e2c.ncols() as f64;
            Array2::from_shape_fn((nc, nlev), |(c, k)| {
                let mut own = DIVAVG_CENTRE_WEIGHT;
                let mut sum = 0.0;
                for &n in c2e2c.row(c) {
                    match usize::try_from(n) {
                        Ok(n) => sum += neighbour_weight * f[[n, k]],
                        Err(_) => own += neighbour_weight,
                    }
                }
                sum + own * f[[c, k]]
            })
        };
        Ok(SlopeMeasures {
            maxslp_avg: average(&maxslp),
            maxhgtd_avg: average(&maxhgtd),
            maxslp,
            maxhgtd,
        })
    }

    /// ICON's criterion of a steep point at `(cell, k)`.
    pub fn steep(&self, cell: usize, k: usize, thslp: f64, thhgtd: f64) -> bool {
        self.maxslp_avg[[cell, k]] >= thslp || self.maxhgtd_avg[[cell, k]] >= thhgtd
    }

    /// ICON's `zd_diffcoef` at a steep `(cell, k)`:
    /// `min(0.002, max(√max(0, slope - thslp) / 250, 2·10⁻⁴ √max(0, hgtd - thhgtd)))`.
    pub fn diffusion_coefficient(&self, cell: usize, k: usize, thslp: f64, thhgtd: f64) -> f64 {
        let by_slope = (self.maxslp_avg[[cell, k]] - thslp).max(0.0).sqrt() / 250.0;
        let by_height = 2.0e-4 * (self.maxhgtd_avg[[cell, k]] - thhgtd).max(0.0).sqrt();
        by_slope.max(by_height).min(MAX_ZD_DIFFCOEF)
    }
}

/// ICON's `prepare_zdiffu`, in ICON4Py's dense layout. A cell from the first nudging row to the
/// last local cell is steep where its lowest level meets the slope or height-difference
/// threshold; it is diffused from the first level (from the top) that meets one down to the
/// lowest level still at or above its highest neighbour's lowest full level. Each neighbour's θ
/// is read at the two of its levels that bracket the point's height (`zd_vertoffset`), weighted
/// by `zd_intcoef` (linear in height). A level where some neighbour has no bracketing levels is
/// left out (ICON4Py leaves such entries at arbitrary values).
///
/// Outside the mask `zd_diffcoef` is 0 and each neighbour is read on the point's own level
/// (offset 0, weight 1; on the lowest level offset -1, weight 0), so that the granule's
/// unmasked z-diffusion program reads inside every column and adds exactly 0 there.
///
/// `None` where no point is steep.
pub fn zdiffusion_fields(
    grid: &Grid,
    terrain: &Terrain,
    slopes: &SlopeMeasures,
    thslp: f64,
    thhgtd: f64,
) -> Result<Option<ZDiffusionFields>, Error> {
    let (nc, nlev) = (grid.num_cells, terrain.nlev());
    if nlev < 2 {
        return Err(Error::Config("z-diffusion needs at least 2 levels".into()));
    }
    for (name, dim) in [
        ("z_mc", terrain.z_mc.dim()),
        ("maxslp_avg", slopes.maxslp_avg.dim()),
        ("maxhgtd_avg", slopes.maxhgtd_avg.dim()),
    ] {
        if dim != (nc, nlev) {
            return Err(Error::Shape(format!(
                "z-diffusion: `{name}` has shape {dim:?}, the grid and terrain need ({nc}, {nlev})"
            )));
        }
    }
    let c2e2c = grid.table("C2E2C")?;
    let nbh = c2e2c.ncols();
    let z = &terrain.z_mc;
    let mut mask = Array2::from_elem((nc, nlev), false);
    let mut diffcoef = Array2::<f64>::zeros((nc, nlev));
    let mut vertoffset = Array3::<i32>::zeros((nc, nbh, nlev));
    let mut intcoef = Array3::<f64>::from_elem((nc, nbh, nlev), 1.0);
    for c in 0..nc {
        for j in 0..nbh {
            vertoffset[[c, j, nlev - 1]] = -1;
            intcoef[[c, j, nlev - 1]] = 0.0;
        }
    }
    let start = grid.start(GridDim::Cell, Zone::Nudging)?;
    let end = grid.end(GridDim::Cell, Zone::Local)?;
    for c in start..end {
        let Some(neighbours) = c2e2c
            .row(c)
            .iter()
            .map(|&n| usize::try_from(n).ok())
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        if !slopes.steep(c, nlev - 1, thslp, thhgtd) {
            continue;
        }
        let max_nbhgt = neighbours
            .iter()
            .map(|&n| z[[n, nlev - 1]])
            .fold(f64::NEG_INFINITY, f64::max);
        let Some(k_end) = (0..nlev).rev().find(|&k| z[[c, k]] >= max_nbhgt) else {
            continue;
        };
        let Some(k_start) = (0..nlev).find(|&k| slopes.steep(c, k, thslp, thhgtd)) else {
            continue;
        };
        for k in k_start..=k_end {
            let height = z[[c, k]];
            let bracket: Option<Vec<(usize, f64)>> = neighbours
                .iter()
                .map(|&n| {
                    (0..nlev - 1).rev().find_map(|k1| {
                        let (upper, lower) = (z[[n, k1]], z[[n, k1 + 1]]);
                        (height <= upper && height >= lower)
                            .then(|| (k1, (height - lower) / (upper - lower)))
                    })
                })
                .collect();
            let Some(bracket) = bracket else { continue };
            mask[[c, k]] = true;
            diffcoef[[c, k]] = slopes.diffusion_coefficient(c, k, thslp, thhgtd);
            for (j, (k1, weight)) in bracket.into_iter().enumerate() {
                vertoffset[[c, j, k]] = k1 as i32 - k as i32;
                intcoef[[c, j, k]] = weight;
            }
        }
    }
    if !mask.iter().any(|&m| m) {
        return Ok(None);
    }
    Ok(Some(ZDiffusionFields {
        mask_hdiff: Field::from_array_zero_origin(mask.into_dyn())?,
        zd_vertoffset: Field::from_array_zero_origin(vertoffset.into_dyn())?,
        zd_diffcoef: field_of(diffcoef.into_dyn())?,
        zd_intcoef: field_of(intcoef.into_dyn())?,
    }))
}

impl MetricState {
    /// Over `terrain`: `wgtfac_c` from each column's half levels, `theta_ref_mc` of the
    /// reference atmosphere at each cell's full-level heights, and the z-diffusion fields with
    /// `config`'s thresholds (`thslp_zdiffu`, `thhgtd_zdiffu`). Over flat terrain this equals
    /// [`MetricState::flat`].
    pub fn over_terrain(
        grid: &Grid,
        terrain: &Terrain,
        config: &DiffusionConfig,
    ) -> Result<Self, Error> {
        let (nc, nlev) = (grid.num_cells, terrain.nlev());
        if terrain.z_ifc.nrows() != nc {
            return Err(Error::Shape(format!(
                "the terrain has {} columns, the grid {nc} cells",
                terrain.z_ifc.nrows()
            )));
        }
        if nlev < 3 {
            return Err(Error::Config(format!(
                "the vertical grid needs at least 3 levels, not {nlev}"
            )));
        }
        let mut wgtfac_c = Array2::zeros((nc, nlev + 1));
        for c in 0..nc {
            let column = terrain.z_ifc.row(c).to_vec();
            for (k, w) in wgtfac_c_column(&column)?.into_iter().enumerate() {
                wgtfac_c[[c, k]] = w;
            }
        }
        let theta_ref_mc = terrain.z_mc.mapv(VerticalGrid::reference_theta);
        let slopes = SlopeMeasures::of(grid, terrain)?;
        Ok(MetricState {
            wgtfac_c: field_of(wgtfac_c.into_dyn())?,
            theta_ref_mc: field_of(theta_ref_mc.into_dyn())?,
            zdiffusion: zdiffusion_fields(
                grid,
                terrain,
                &slopes,
                config.thslp_zdiffu,
                config.thhgtd_zdiffu,
            )?,
        })
    }
}

impl ZDiffusionFields {
    /// Cells with at least one steep level (ICON's list of z-diffusion columns).
    pub fn steep_columns(&self) -> usize {
        self.mask_hdiff
            .as_array()
            .outer_iter()
            .filter(|column| column.iter().any(|&m| m))
            .count()
    }

    /// Steep `(cell, level)` points.
    pub fn steep_points(&self) -> usize {
        self.mask_hdiff.as_array().iter().filter(|&&m| m).count()
    }
}
