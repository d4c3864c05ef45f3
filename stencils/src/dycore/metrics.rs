//! The metric fields of the nonhydrostatic solver and velocity advection (ICON4Py's
//! `MetricStateNonHydro`), computed on a grid over a terrain as ICON4Py's metrics factory does.
//!
//! [`MetricState::compute`] takes the grid (tables, geometry with `c_lin_e`, the lengths and areas,
//! zones), the half-level heights of a [`Terrain`] and its [`VerticalGrid`], and builds every
//! field in the order of ICON4Py's `metrics_factory.py`, each with the formula, the order of
//! operations and the horizontal and vertical domain of ICON4Py's function: outside its domain a
//! field is 0, as in ICON4Py's zero-initialised buffers. Per-neighbour fields follow the grid's
//! own tables. Where a limited-area grid's edge has one cell (its lateral boundary), the formulas
//! read that cell in place of the missing one, as ICON4Py does on grids loaded without skip
//! values; its weight there (`c_lin_e`) is 0.

use gt4rs::grid::{Grid, GridDim, Zone};
use gt4rs::{Error, Field};
use ndarray::{Array1, Array2, ArrayView2, ArrayViewD, Dimension};

use super::pressure_gradient::{self, FlatEdgeLevels};
use super::reference_atmosphere as reference;
use crate::diffusion::metrics::wgtfac_c_column;
use crate::diffusion::{Terrain, VerticalGrid};
use crate::icon::dims::{Cell, Edge, E2C, K};

/// ICON4Py's `MetricStateNonHydro`, double precision, under ICON4Py's names. Fields on half
/// levels have `nlev + 1` levels, the others `nlev`, unless a field's comment says otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricState {
    /// Cells whose prognostic fields a rank updates in its halo (ICON's `mask_prog_halo_c`):
    /// per cell, as ICON4Py's factory computes it and the solver's programs read it.
    pub mask_prog_halo_c: Field<Cell, bool>,
    /// Rayleigh damping of w per half level (`rayleigh_w`).
    pub rayleigh_w: Field<K, f64>,
    pub wgtfac_c: Field<(Cell, K), f64>,
    pub wgtfacq_c: Field<(Cell, K), f64>,
    pub wgtfac_e: Field<(Edge, K), f64>,
    pub wgtfacq_e: Field<(Edge, K), f64>,
    /// ICON's `exner_exfac`.
    pub time_extrapolation_parameter_for_exner: Field<(Cell, K), f64>,
    /// ICON's `exner_ref_mc`.
    pub reference_exner_at_cells_on_model_levels: Field<(Cell, K), f64>,
    /// ICON's `rho_ref_mc`.
    pub reference_rho_at_cells_on_model_levels: Field<(Cell, K), f64>,
    /// ICON's `theta_ref_mc`.
    pub reference_theta_at_cells_on_model_levels: Field<(Cell, K), f64>,
    /// ICON's `rho_ref_me`.
    pub reference_rho_at_edges_on_model_levels: Field<(Edge, K), f64>,
    /// ICON's `theta_ref_me`.
    pub reference_theta_at_edges_on_model_levels: Field<(Edge, K), f64>,
    /// ICON's `theta_ref_ic`.
    pub reference_theta_at_cells_on_half_levels: Field<(Cell, K), f64>,
    /// ICON's `d_exner_dz_ref_ic`.
    pub ddz_of_reference_exner_at_cells_on_half_levels: Field<(Cell, K), f64>,
    pub ddqz_z_half: Field<(Cell, K), f64>,
    pub d2dexdz2_fac1_mc: Field<(Cell, K), f64>,
    pub d2dexdz2_fac2_mc: Field<(Cell, K), f64>,
    pub ddxn_z_full: Field<(Edge, K), f64>,
    pub ddqz_z_full_e: Field<(Edge, K), f64>,
    pub ddxt_z_full: Field<(Edge, K), f64>,
    pub inv_ddqz_z_full: Field<(Cell, K), f64>,
    /// The level offset of each E2C cell's level that brackets the edge's height, where the
    /// pressure gradient is taken across levels (`vertoffset_gradp`).
    pub vertoffset_gradp: Field<(Edge, E2C, K), i32>,
    pub zdiff_gradp: Field<(Edge, E2C, K), f64>,
    /// The first level from which the pressure gradient may need the multiple-level form.
    pub nflat_gradp: i32,
    pub pg_exdist: Field<(Edge, K), f64>,
    /// ICON's `vwind_expl_wgt`.
    pub exner_w_explicit_weight_parameter: Field<Cell, f64>,
    /// ICON's `vwind_impl_wgt`.
    pub exner_w_implicit_weight_parameter: Field<Cell, f64>,
    /// ICON's `hmask_dd3d`.
    pub horizontal_mask_for_3d_divdamp: Field<Edge, f64>,
    /// ICON's `scalfac_dd3d`.
    pub scaling_factor_for_3d_divdamp: Field<K, f64>,
    pub coeff1_dwdz: Field<(Cell, K), f64>,
    pub coeff2_dwdz: Field<(Cell, K), f64>,
    pub coeff_gradekin: Field<(Edge, E2C), f64>,
}

/// ICON's type of Rayleigh damping of w (`rayleigh_type`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RayleighType {
    /// `rayleigh_coeff · sin²(π/2 · (z - damping height) / (top - damping height))`.
    Classic,
    /// Klemp, Dudhia and Hassiotis (2008): `rayleigh_coeff · (1 - tanh(3.8 (top - z) /
    /// (top - damping height)))`; ICON's default (`rayleigh_type = 2`).
    #[default]
    Klemp,
}

/// ICON's parameters of the metric fields (`nonhydrostatic_nml`), with ICON's defaults as
/// ICON4Py's `MetricsConfig` and `VerticalGridConfig` state them.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricsConfig {
    /// `exner_expol`: the temporal extrapolation of exner for the horizontal pressure gradient,
    /// as a fraction of the time step; default 1/3.
    pub exner_expol: f64,
    /// `vwind_offctr`: off-centring of the vertically implicit solver; default 0.15.
    pub vwind_offctr: f64,
    /// `rayleigh_type`; default Klemp.
    pub rayleigh_type: RayleighType,
    /// `rayleigh_coeff` (1/s): the Rayleigh damping coefficient `1/τ₀`; default 0.05.
    pub rayleigh_coeff: f64,
    /// `divdamp_trans_start` (m): lower end of the transition from 2D to 3D divergence
    /// damping (`divdamp_type = 32` only); default 12 500.
    pub divdamp_trans_start: f64,
    /// `divdamp_trans_end` (m): its upper end; default 17 500.
    pub divdamp_trans_end: f64,
    /// `divdamp_type`: 3 (3D divergence, ICON's default), 2 or 32 (3D below
    /// `divdamp_trans_start`, 2D above `divdamp_trans_end`).
    pub divdamp_type: i32,
    /// `igradp_method`: the horizontal pressure gradient's method; these fields are those of
    /// ICON's default 3 (Taylor expansion with the multiple-level form over steep terrain).
    pub igradp_method: i32,
    /// `htop_moist_proc` (m): moist physics and the advection of condensate act below this
    /// height; default 22 500.
    pub htop_moist_proc: f64,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig {
            exner_expol: 1.0 / 3.0,
            vwind_offctr: 0.15,
            rayleigh_type: RayleighType::Klemp,
            rayleigh_coeff: 0.05,
            divdamp_trans_start: 12_500.0,
            divdamp_trans_end: 17_500.0,
            divdamp_type: 3,
            igradp_method: 3,
            htop_moist_proc: 22_500.0,
        }
    }
}

impl MetricsConfig {
    fn validate(&self) -> Result<(), Error> {
        let bad = |what: String| Err(Error::Config(what));
        if !(self.exner_expol.is_finite() && self.exner_expol >= 0.0) {
            return bad(format!(
                "exner_expol must be finite and not negative, not {}",
                self.exner_expol
            ));
        }
        if !(self.vwind_offctr.is_finite() && self.vwind_offctr >= 0.0) {
            return bad(format!(
                "vwind_offctr must be finite and not negative, not {}",
                self.vwind_offctr
            ));
        }
        if !(self.rayleigh_coeff.is_finite() && self.rayleigh_coeff >= 0.0) {
            return bad(format!(
                "rayleigh_coeff must be finite and not negative, not {}",
                self.rayleigh_coeff
            ));
        }
        if ![2, 3, 32].contains(&self.divdamp_type) {
            return bad(format!(
                "divdamp_type must be 2, 3 or 32, not {}",
                self.divdamp_type
            ));
        }
        if self.divdamp_type == 32 && self.divdamp_trans_end <= self.divdamp_trans_start {
            return bad(format!(
                "divdamp_trans_end ({} m) must lie above divdamp_trans_start ({} m)",
                self.divdamp_trans_end, self.divdamp_trans_start
            ));
        }
        if self.igradp_method != 3 {
            return bad(format!(
                "igradp_method {} is not supported: the fields are those of igradp_method 3",
                self.igradp_method
            ));
        }
        if !self.htop_moist_proc.is_finite() {
            return bad("htop_moist_proc must be finite".into());
        }
        Ok(())
    }
}

/// The vertical indices the solver's domains need (0-based, top down), as ICON4Py's
/// `VerticalGrid` computes them from `vct_a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerticalIndices {
    /// `nflatlev`: the lowest half level that is flat everywhere (the last `vct_a` at or above
    /// the flat height). ICON4Py's value equals [`Terrain::nflatlev`].
    pub nflatlev: usize,
    /// `end_index_of_damping_layer` (ICON's `nrdmax`): the last half level at or above the
    /// Rayleigh damping height, 0 where the damping height lies above the model top. Equals
    /// [`VerticalGrid::nrdmax`] (both take the last index with `vct_a >= damping height`).
    pub end_index_of_damping_layer: usize,
    /// `kstart_moist`: the first full level whose height `(vct_a[k] + vct_a[k+1]) / 2` lies
    /// below `htop_moist_proc`. The diffusion job's vertical grid has no such index.
    pub kstart_moist: usize,
}

impl VerticalIndices {
    pub fn of(
        vertical: &VerticalGrid,
        terrain: &Terrain,
        config: &MetricsConfig,
    ) -> Result<Self, Error> {
        let vct_a = &vertical.vct_a;
        let kstart_moist = vct_a
            .windows(2)
            .position(|w| 0.5 * (w[0] + w[1]) < config.htop_moist_proc)
            .ok_or_else(|| {
                Error::Config(format!(
                    "htop_moist_proc ({} m) lies below every full level",
                    config.htop_moist_proc
                ))
            })?;
        let end_index_of_damping_layer = if vertical.damping_height > vct_a[0] {
            0
        } else {
            vct_a
                .iter()
                .rposition(|&z| z >= vertical.damping_height)
                .unwrap_or(0)
        };
        Ok(VerticalIndices {
            nflatlev: terrain.nflatlev,
            end_index_of_damping_layer,
            kstart_moist,
        })
    }
}

/// The boundary row of each point of `dim` as ICON's `refin_*_ctrl` numbers it: 1.. for the
/// lateral boundary rows and the nudging rows, 0 for the rest of the owned points. `None` for
/// halo points, whose row a rank's grid does not know.
fn boundary_rows(grid: &Grid, dim: GridDim) -> Result<Vec<Option<i32>>, Error> {
    let (lateral, nudging) = Zone::levels(dim);
    let nudging_zones = [Zone::Nudging, Zone::NudgingLevel2];
    let rows = Zone::LATERAL_BOUNDARY[..lateral]
        .iter()
        .chain(&nudging_zones[..nudging])
        .copied();
    let local_end = grid.end(dim, Zone::Local)?;
    let mut refin: Vec<Option<i32>> = (0..grid.size(dim))
        .map(|i| (i < local_end).then_some(0))
        .collect();
    for (row, zone) in rows.enumerate() {
        let (start, end) = (grid.start(dim, zone)?, grid.end(dim, zone)?);
        for r in &mut refin[start..end] {
            *r = Some(row as i32 + 1);
        }
    }
    Ok(refin)
}

fn neighbour(n: i32) -> Option<usize> {
    usize::try_from(n).ok()
}

/// The two cells of each edge; an edge with one cell (a limited area's boundary) reads it twice.
fn edge_cells(e2c: &ArrayView2<'_, i32>) -> Result<Vec<[usize; 2]>, Error> {
    e2c.outer_iter()
        .enumerate()
        .map(|(e, row)| match (neighbour(row[0]), neighbour(row[1])) {
            (Some(a), Some(b)) => Ok([a, b]),
            (Some(a), None) | (None, Some(a)) => Ok([a, a]),
            (None, None) => Err(Error::Connectivity {
                offset: "E2C".into(),
                message: format!("edge {e} has no cell in E2C"),
            }),
        })
        .collect()
}

/// `Σ_j c_lin_e[e, j] · f(E2C[e, j])` per level (ICON4Py `_cell_2_edge_interpolation`).
fn cells_to_edges(cells: &[[usize; 2]], c_lin_e: &Array2<f64>, f: &Array2<f64>) -> Array2<f64> {
    Array2::from_shape_fn((cells.len(), f.ncols()), |(e, k)| {
        let [c0, c1] = cells[e];
        c_lin_e[[e, 0]] * f[[c0, k]] + c_lin_e[[e, 1]] * f[[c1, k]]
    })
}

fn field<D: gt4rs::Dims, T: gt4rs::field::Scalar, S: Dimension>(
    array: ndarray::Array<T, S>,
) -> Result<Field<D, T>, Error> {
    Field::from_array_zero_origin(array.into_dyn())
}

/// The intermediate fields of ICON4Py's factory that several outputs share.
struct Heights<'a> {
    z_ifc: &'a Array2<f64>,
    z_mc: &'a Array2<f64>,
    nlev: usize,
}

impl MetricState {
    /// Every metric field over `terrain` (half-level heights `z_ifc` per cell, `nlev + 1` of
    /// them, and the topography) on `grid`, with `vertical`'s `vct_a` and damping height and
    /// `config`'s parameters. Needs at least 3 levels (`wgtfacq_c` extrapolates from three).
    pub fn compute(
        grid: &Grid,
        terrain: &Terrain,
        vertical: &VerticalGrid,
        config: &MetricsConfig,
    ) -> Result<Self, Error> {
        config.validate()?;
        let (nc, ne, nv) = (grid.num_cells, grid.num_edges, grid.num_vertices);
        let nlev = vertical.nlev;
        if nlev < 3 || vertical.vct_a.len() != nlev + 1 {
            return Err(Error::Config(format!(
                "the metric fields need at least 3 levels and nlev + 1 half-level heights; the vertical grid has {nlev} levels and {} heights",
                vertical.vct_a.len()
            )));
        }
        let shapes = [
            ("z_ifc", terrain.z_ifc.dim(), (nc, nlev + 1)),
            ("z_mc", terrain.z_mc.dim(), (nc, nlev)),
            ("topography", (terrain.topography.len(), 1), (nc, 1)),
        ];
        for (name, got, want) in shapes {
            if got != want {
                return Err(Error::Shape(format!(
                    "the terrain's `{name}` has shape {got:?}, the grid and the vertical grid need {want:?}"
                )));
            }
        }
        if terrain.z_ifc.iter().any(|z| !z.is_finite()) {
            return Err(Error::Config("the terrain's heights must be finite".into()));
        }
        if terrain
            .z_ifc
            .outer_iter()
            .any(|column| column.windows(2).into_iter().any(|w| w[0] <= w[1]))
        {
            return Err(Error::Config(
                "every column's half-level heights must fall strictly from the top down".into(),
            ));
        }
        let g = &grid.geometry;
        let geometry_shapes = [
            ("c_lin_e", g.c_lin_e.dim(), (ne, 2)),
            ("edge_cell_length", g.edge_cell_length.dim(), (ne, 2)),
        ];
        for (name, got, want) in geometry_shapes {
            if got != want {
                return Err(Error::Shape(format!(
                    "the grid's `{name}` has shape {got:?}, not {want:?}"
                )));
            }
        }
        let e2c = grid.table("E2C")?;
        let c2e = grid.table("C2E")?;
        let v2c = grid.table("V2C")?;
        let e2v = grid.table("E2V")?;
        let cells = edge_cells(&e2c)?;
        let heights = Heights {
            z_ifc: &terrain.z_ifc,
            z_mc: &terrain.z_mc,
            nlev,
        };
        let (z_ifc, z_mc) = (heights.z_ifc, heights.z_mc);
        let cell_start_lb2 = grid.start(GridDim::Cell, Zone::LateralBoundaryLevel2)?;
        let edge_start_lb2 = grid.start(GridDim::Edge, Zone::LateralBoundaryLevel2)?;
        let edge_start_lb3 = grid.start(GridDim::Edge, Zone::LateralBoundaryLevel3)?;
        let edge_end_interior = grid.end(GridDim::Edge, Zone::Interior)?;

        // ddqz_z_half (ICON4Py `compute_ddqz_z_half`): the distance between the full levels
        // around each half level; at the top and the ground twice the half layer.
        let ddqz_z_half = Array2::from_shape_fn((nc, nlev + 1), |(c, k)| {
            if k == 0 {
                2.0 * (z_ifc[[c, 0]] - z_mc[[c, 0]])
            } else if k == nlev {
                2.0 * (z_mc[[c, nlev - 1]] - z_ifc[[c, nlev]])
            } else {
                z_mc[[c, k - 1]] - z_mc[[c, k]]
            }
        });
        // ddqz_z_full and its inverse (`compute_ddqz_z_full_and_inverse`).
        let ddqz_z_full =
            Array2::from_shape_fn((nc, nlev), |(c, k)| z_ifc[[c, k]] - z_ifc[[c, k + 1]]);
        let inv_ddqz_z_full = ddqz_z_full.mapv(|d| 1.0 / d);
        let ddqz_z_full_e = cells_to_edges(&cells, &g.c_lin_e, &ddqz_z_full);
        let scaling_factor_for_3d_divdamp = scaling_factor_for_3d_divdamp(vertical, config);
        let rayleigh_w = rayleigh_w(vertical, config);
        let (coeff1_dwdz, coeff2_dwdz) = coeff_dwdz(&heights, &ddqz_z_full);

        // The reference atmosphere (`compute_reference_atmosphere_cell_fields`,
        // `..._edge_fields` from lateral boundary level 2, `compute_theta_d_exner_dz_ref_ic`,
        // `compute_d2dexdz2_fac_mc`).
        let reference_mc = z_mc.mapv(reference::at_full_level);
        let theta_ref_mc = reference_mc.mapv(|r| r.theta);
        let exner_ref_mc = reference_mc.mapv(|r| r.exner);
        let rho_ref_mc = reference_mc.mapv(|r| r.rho);
        let z_me = cells_to_edges(&cells, &g.c_lin_e, z_mc);
        let mut rho_ref_me = Array2::zeros((ne, nlev));
        let mut theta_ref_me = Array2::zeros((ne, nlev));
        for e in edge_start_lb2..ne {
            for k in 0..nlev {
                let (rho, theta) = reference::at_edge(z_me[[e, k]]);
                rho_ref_me[[e, k]] = rho;
                theta_ref_me[[e, k]] = theta;
            }
        }
        let reference_ic = z_ifc.mapv(reference::at_half_level);
        let theta_ref_ic = reference_ic.mapv(|r| r.0);
        let d_exner_dz_ref_ic = reference_ic.mapv(|r| r.1);
        let factors = Array2::from_shape_fn((nc, nlev), |(c, k)| {
            reference::d2dexdz2_factors(
                theta_ref_mc[[c, k]],
                exner_ref_mc[[c, k]],
                inv_ddqz_z_full[[c, k]],
                z_mc[[c, k]],
            )
        });
        let d2dexdz2_fac1_mc = factors.mapv(|f| f.0);
        let d2dexdz2_fac2_mc = factors.mapv(|f| f.1);

        // The slopes of the half levels: tangential (`compute_ddxt_z_half_e`, from lateral
        // boundary level 3, through the heights at the vertices) and normal
        // (`compute_ddxn_z_half_e`, from level 2), each to the end of the interior; their means
        // on full levels (`ddxn_z_full` on every edge, `ddxt_z_full` from level 2).
        // The vertices' weights are ICON's `cells_aw_verts`, as the interpolation state's
        // `c_intp` (ICON4Py's metrics factory takes them from its interpolation factory).
        let c_intp = super::coefficients::cell_to_vertex_weights(grid)?;
        let z_ifv = Array2::from_shape_fn((nv, nlev + 1), |(v, k)| {
            let mut sum = 0.0;
            for (j, &c) in v2c.row(v).iter().enumerate() {
                if let Some(c) = neighbour(c) {
                    sum += c_intp[[v, j]] * z_ifc[[c, k]];
                }
            }
            sum
        });
        let mut ddxt_z_half_e = Array2::zeros((ne, nlev + 1));
        let mut ddxn_z_half_e = Array2::zeros((ne, nlev + 1));
        for e in edge_start_lb2..edge_end_interior {
            let [c0, c1] = cells[e];
            let (v0, v1) = match (neighbour(e2v[[e, 0]]), neighbour(e2v[[e, 1]])) {
                (Some(v0), Some(v1)) => (v0, v1),
                _ => {
                    return Err(Error::Connectivity {
                        offset: "E2V".into(),
                        message: format!("edge {e} lacks a vertex in E2V"),
                    })
                }
            };
            for k in 0..=nlev {
                ddxn_z_half_e[[e, k]] =
                    (z_ifc[[c1, k]] - z_ifc[[c0, k]]) * g.inv_dual_edge_length[e];
                if e >= edge_start_lb3 {
                    ddxt_z_half_e[[e, k]] = g.tangent_orientation[e]
                        * (z_ifv[[v1, k]] - z_ifv[[v0, k]])
                        * g.inv_primal_edge_length[e];
                }
            }
        }
        let ddxn_z_full = Array2::from_shape_fn((ne, nlev), |(e, k)| {
            0.5 * (ddxn_z_half_e[[e, k]] + ddxn_z_half_e[[e, k + 1]])
        });
        let ddxt_z_full = Array2::from_shape_fn((ne, nlev), |(e, k)| {
            if e >= edge_start_lb2 {
                0.5 * (ddxt_z_half_e[[e, k]] + ddxt_z_half_e[[e, k + 1]])
            } else {
                0.0
            }
        });

        let implicit = exner_w_implicit_weight(
            grid,
            &c2e,
            vertical,
            &heights,
            &ddxn_z_half_e,
            &ddxt_z_half_e,
            config,
            cell_start_lb2,
        )?;
        let explicit = implicit.mapv(|w| 1.0 - w);

        // maxslp and maxhgtd (`compute_maxslp_maxhgtd`) and the exner extrapolation that
        // vanishes over steep slopes (`compute_exner_exfac`).
        let mut maxslp = Array2::from_elem((nc, nlev), f64::NEG_INFINITY);
        let mut maxhgtd = Array2::from_elem((nc, nlev), f64::NEG_INFINITY);
        for c in 0..nc {
            for e in c2e.row(c).iter().filter_map(|&e| neighbour(e)) {
                for k in 0..nlev {
                    let slope = ddxn_z_full[[e, k]];
                    maxslp[[c, k]] = f64::max(maxslp[[c, k]], slope.abs());
                    maxhgtd[[c, k]] =
                        f64::max(maxhgtd[[c, k]], (slope * g.dual_edge_length[e]).abs());
                }
            }
        }
        let exner_exfac = Array2::from_shape_fn((nc, nlev), |(c, k)| {
            let (slope, height) = (maxslp[[c, k]], maxhgtd[[c, k]]);
            let mut exfac = if c >= cell_start_lb2 {
                config.exner_expol
                    * f64::min(
                        1.0 - (4.0 * slope).powf(2.0),
                        1.0 - (0.002 * height).powf(2.0),
                    )
            } else {
                config.exner_expol
            };
            exfac = f64::max(0.0, exfac);
            if slope > 1.5 {
                exfac = f64::max(-1.0 / 6.0, 1.0 / 9.0 * (1.5 - slope));
            }
            exfac
        });

        let wgtfac_c = wgtfac_c(&heights)?;
        let wgtfac_e = cells_to_edges(&cells, &g.c_lin_e, &wgtfac_c);

        // The pressure gradient over steep terrain.
        let flat = FlatEdgeLevels::of(&cells, &z_me, z_ifc)?;
        let edge_owned_end = grid.end(GridDim::Edge, Zone::Local)?;
        let nflat_gradp = flat.nflat_gradp(edge_start_lb2, edge_owned_end, nlev);
        let pg_exdist = pressure_gradient::pg_exdist(
            &cells,
            &z_me,
            &terrain.topography,
            &flat,
            grid.start(GridDim::Edge, Zone::NudgingLevel2)?,
            grid.end(GridDim::Edge, Zone::Nudging)?,
            edge_owned_end,
        );
        let (zdiff_gradp, vertoffset_gradp) = pressure_gradient::zdiff_gradp(
            &cells,
            &z_me,
            z_mc,
            z_ifc,
            &terrain.topography,
            &flat,
            edge_start_lb2,
            grid.start(GridDim::Edge, Zone::NudgingLevel2)?,
        );

        let mask_prog_halo_c = mask_prog_halo_c(grid)?;
        let hmask_dd3d = horizontal_mask_for_3d_divdamp(grid)?;

        // coeff_gradekin (`compute_coeff_gradekin`) from lateral boundary level 2.
        let mut coeff_gradekin = Array2::zeros((ne, 2));
        for e in edge_start_lb2..ne {
            let (l0, l1) = (g.edge_cell_length[[e, 0]], g.edge_cell_length[[e, 1]]);
            coeff_gradekin[[e, 0]] = l1 / l0 * g.inv_dual_edge_length[e];
            coeff_gradekin[[e, 1]] = l0 / l1 * g.inv_dual_edge_length[e];
        }

        let (wgtfacq_c, wgtfacq_e) = wgtfacq(&cells, &g.c_lin_e, &heights);

        Ok(MetricState {
            mask_prog_halo_c: field(mask_prog_halo_c)?,
            rayleigh_w: field(rayleigh_w)?,
            wgtfac_c: field(wgtfac_c)?,
            wgtfacq_c: field(wgtfacq_c)?,
            wgtfac_e: field(wgtfac_e)?,
            wgtfacq_e: field(wgtfacq_e)?,
            time_extrapolation_parameter_for_exner: field(exner_exfac)?,
            reference_exner_at_cells_on_model_levels: field(exner_ref_mc)?,
            reference_rho_at_cells_on_model_levels: field(rho_ref_mc)?,
            reference_theta_at_cells_on_model_levels: field(theta_ref_mc)?,
            reference_rho_at_edges_on_model_levels: field(rho_ref_me)?,
            reference_theta_at_edges_on_model_levels: field(theta_ref_me)?,
            reference_theta_at_cells_on_half_levels: field(theta_ref_ic)?,
            ddz_of_reference_exner_at_cells_on_half_levels: field(d_exner_dz_ref_ic)?,
            ddqz_z_half: field(ddqz_z_half)?,
            d2dexdz2_fac1_mc: field(d2dexdz2_fac1_mc)?,
            d2dexdz2_fac2_mc: field(d2dexdz2_fac2_mc)?,
            ddxn_z_full: field(ddxn_z_full)?,
            ddqz_z_full_e: field(ddqz_z_full_e)?,
            ddxt_z_full: field(ddxt_z_full)?,
            inv_ddqz_z_full: field(inv_ddqz_z_full)?,
            vertoffset_gradp: field(vertoffset_gradp)?,
            zdiff_gradp: field(zdiff_gradp)?,
            nflat_gradp: i32::try_from(nflat_gradp)
                .map_err(|_| Error::Config(format!("nflat_gradp {nflat_gradp} exceeds i32")))?,
            pg_exdist: field(pg_exdist)?,
            exner_w_explicit_weight_parameter: field(explicit)?,
            exner_w_implicit_weight_parameter: field(implicit)?,
            horizontal_mask_for_3d_divdamp: field(hmask_dd3d)?,
            scaling_factor_for_3d_divdamp: field(scaling_factor_for_3d_divdamp)?,
            coeff1_dwdz: field(coeff1_dwdz)?,
            coeff2_dwdz: field(coeff2_dwdz)?,
            coeff_gradekin: field(coeff_gradekin)?,
        })
    }

    /// Every field as `(name, values)` under ICON4Py's names, for comparisons and output.
    pub fn arrays(&self) -> Vec<(&'static str, MetricArray<'_>)> {
        use MetricArray::{Bool, Float, Int};
        vec![
            ("mask_prog_halo_c", Bool(self.mask_prog_halo_c.as_array())),
            ("rayleigh_w", Float(self.rayleigh_w.as_array())),
            ("wgtfac_c", Float(self.wgtfac_c.as_array())),
            ("wgtfacq_c", Float(self.wgtfacq_c.as_array())),
            ("wgtfac_e", Float(self.wgtfac_e.as_array())),
            ("wgtfacq_e", Float(self.wgtfacq_e.as_array())),
            (
                "exner_exfac",
                Float(self.time_extrapolation_parameter_for_exner.as_array()),
            ),
            (
                "exner_ref_mc",
                Float(self.reference_exner_at_cells_on_model_levels.as_array()),
            ),
            (
                "rho_ref_mc",
                Float(self.reference_rho_at_cells_on_model_levels.as_array()),
            ),
            (
                "theta_ref_mc",
                Float(self.reference_theta_at_cells_on_model_levels.as_array()),
            ),
            (
                "rho_ref_me",
                Float(self.reference_rho_at_edges_on_model_levels.as_array()),
            ),
            (
                "theta_ref_me",
                Float(self.reference_theta_at_edges_on_model_levels.as_array()),
            ),
            (
                "theta_ref_ic",
                Float(self.reference_theta_at_cells_on_half_levels.as_array()),
            ),
            (
                "d_exner_dz_ref_ic",
                Float(
                    self.ddz_of_reference_exner_at_cells_on_half_levels
                        .as_array(),
                ),
            ),
            ("ddqz_z_half", Float(self.ddqz_z_half.as_array())),
            ("d2dexdz2_fac1_mc", Float(self.d2dexdz2_fac1_mc.as_array())),
            ("d2dexdz2_fac2_mc", Float(self.d2dexdz2_fac2_mc.as_array())),
            ("ddxn_z_full", Float(self.ddxn_z_full.as_array())),
            ("ddqz_z_full_e", Float(self.ddqz_z_full_e.as_array())),
            ("ddxt_z_full", Float(self.ddxt_z_full.as_array())),
            ("inv_ddqz_z_full", Float(self.inv_ddqz_z_full.as_array())),
            ("vertoffset_gradp", Int(self.vertoffset_gradp.as_array())),
            ("zdiff_gradp", Float(self.zdiff_gradp.as_array())),
            ("pg_exdist", Float(self.pg_exdist.as_array())),
            (
                "vwind_expl_wgt",
                Float(self.exner_w_explicit_weight_parameter.as_array()),
            ),
            (
                "vwind_impl_wgt",
                Float(self.exner_w_implicit_weight_parameter.as_array()),
            ),
            (
                "hmask_dd3d",
                Float(self.horizontal_mask_for_3d_divdamp.as_array()),
            ),
            (
                "scalfac_dd3d",
                Float(self.scaling_factor_for_3d_divdamp.as_array()),
            ),
            ("coeff1_dwdz", Float(self.coeff1_dwdz.as_array())),
            ("coeff2_dwdz", Float(self.coeff2_dwdz.as_array())),
            ("coeff_gradekin", Float(self.coeff_gradekin.as_array())),
        ]
    }
}

/// The values of one metric field.
#[derive(Clone, Debug)]
pub enum MetricArray<'a> {
    Float(ArrayViewD<'a, f64>),
    Int(ArrayViewD<'a, i32>),
    Bool(ArrayViewD<'a, bool>),
}

/// `scaling_factor_for_3d_divdamp` (ICON's `scalfac_dd3d`, ICON4Py
/// `compute_scaling_factor_for_3d_divdamp`): 1 on every level, except with `divdamp_type = 32`:
/// 0 from `divdamp_trans_end` up, falling linearly between the transition heights. (ICON's
/// `mo_vertical_grid` order of the cases; ICON4Py's lets the linear ramp go negative above
/// `divdamp_trans_end`. ICON's default type 3 is 1 everywhere in both.)
fn scaling_factor_for_3d_divdamp(vertical: &VerticalGrid, config: &MetricsConfig) -> Array1<f64> {
    let vct_a = &vertical.vct_a;
    Array1::from_shape_fn(vertical.nlev, |k| {
        if config.divdamp_type != 32 {
            return 1.0;
        }
        let zf = 0.5 * (vct_a[k] + vct_a[k + 1]);
        if zf >= config.divdamp_trans_end {
            0.0
        } else if zf >= config.divdamp_trans_start {
            (config.divdamp_trans_end - zf)
                / (config.divdamp_trans_end - config.divdamp_trans_start)
        } else {
            1.0
        }
    })
}

/// `rayleigh_w` (ICON4Py `compute_rayleigh_w`) on the half levels from the top down to the
/// end of the damping layer; 0 below.
fn rayleigh_w(vertical: &VerticalGrid, config: &MetricsConfig) -> Array1<f64> {
    let vct_a = &vertical.vct_a;
    let (top, damping) = (vct_a[0], vertical.damping_height);
    let end = if damping > top { 0 } else { vertical.nrdmax };
    Array1::from_shape_fn(vertical.nlev + 1, |k| {
        if k > end {
            return 0.0;
        }
        match config.rayleigh_type {
            RayleighType::Classic => {
                let z_sin_diff = f64::max(0.0, vct_a[k] - damping);
                config.rayleigh_coeff
                    * (std::f64::consts::PI / 2.0 * z_sin_diff / f64::max(0.001, top - damping))
                        .sin()
                        .powf(2.0)
            }
            RayleighType::Klemp => {
                config.rayleigh_coeff
                    * (1.0 - (3.8 * (top - vct_a[k]) / f64::max(0.000001, top - damping)).tanh())
            }
        }
    })
}

/// `coeff1_dwdz` and `coeff2_dwdz` (ICON4Py `compute_coeff_dwdz`) below the top level.
fn coeff_dwdz(heights: &Heights<'_>, ddqz_z_full: &Array2<f64>) -> (Array2<f64>, Array2<f64>) {
    let (z_ifc, nlev) = (heights.z_ifc, heights.nlev);
    let nc = z_ifc.nrows();
    let mut coeff1 = Array2::zeros((nc, nlev));
    let mut coeff2 = Array2::zeros((nc, nlev));
    for c in 0..nc {
        for k in 1..nlev {
            let span = z_ifc[[c, k - 1]] - z_ifc[[c, k + 1]];
            coeff1[[c, k]] = ddqz_z_full[[c, k]] / ddqz_z_full[[c, k - 1]] / span;
            coeff2[[c, k]] = ddqz_z_full[[c, k - 1]] / ddqz_z_full[[c, k]] / span;
        }
    }
    (coeff1, coeff2)
}

fn wgtfac_c(heights: &Heights<'_>) -> Result<Array2<f64>, Error> {
    let (z_ifc, nlev) = (heights.z_ifc, heights.nlev);
    let mut wgtfac_c = Array2::zeros((z_ifc.nrows(), nlev + 1));
    for (c, column) in z_ifc.outer_iter().enumerate() {
        let column = column.to_vec();
        for (k, w) in wgtfac_c_column(&column)?.into_iter().enumerate() {
            wgtfac_c[[c, k]] = w;
        }
    }
    Ok(wgtfac_c)
}

/// The weights of the quadratic extrapolation to the ground from the three lowest full levels
/// (ICON4Py `compute_wgtfacq_c_dsl`, `compute_wgtfacq_e_dsl`): on `nlev` levels, the weight of
/// full level `nlev - 1 - j` at level `nlev - 1 - j` for `j = 0, 1, 2`, 0 above, as ICON4Py's
/// fields on levels `nlev - 3 .. nlev` (the solver reads them from the surface half level
/// `nlev` at offsets -1, -2, -3). On edges the cells' weights interpolated with `c_lin_e`.
fn wgtfacq(
    cells: &[[usize; 2]],
    c_lin_e: &Array2<f64>,
    heights: &Heights<'_>,
) -> (Array2<f64>, Array2<f64>) {
    let (z_ifc, nlev) = (heights.z_ifc, heights.nlev);
    let nc = z_ifc.nrows();
    let mut weights = Array2::zeros((nc, 3));
    for c in 0..nc {
        let z = |k: usize| z_ifc[[c, k]];
        let z1 = 0.5 * (z(nlev - 1) - z(nlev));
        let z2 = 0.5 * (z(nlev - 1) + z(nlev - 2)) - z(nlev);
        let z3 = 0.5 * (z(nlev - 2) + z(nlev - 3)) - z(nlev);
        let w2 = z1 * z2 / (z2 - z3) / (z1 - z3);
        let w1 = (z1 - w2 * (z1 - z3)) / (z1 - z2);
        let w0 = 1.0 - (w1 + w2);
        weights[[c, 0]] = w0;
        weights[[c, 1]] = w1;
        weights[[c, 2]] = w2;
    }
    let on_edges = cells_to_edges(cells, c_lin_e, &weights);
    let place = |w: &Array2<f64>| {
        Array2::from_shape_fn((w.nrows(), nlev), |(i, k)| {
            if k + 3 >= nlev {
                w[[i, nlev - 1 - k]]
            } else {
                0.0
            }
        })
    };
    (place(&weights), place(&on_edges))
}

/// `exner_w_implicit_weight_parameter` (ICON's `vwind_impl_wgt`, ICON4Py
/// `compute_exner_w_implicit_weight_parameter`): `½ + vwind_offctr`, raised over steep slopes
/// of the ground (up to `½ + max(vwind_offctr, 0.75)`) and, from lateral boundary level 2, in
/// columns whose lowest nine layers are squeezed below 0.6 of their nominal thickness.
#[allow(clippy::too_many_arguments)]
fn exner_w_implicit_weight(
    grid: &Grid,
    c2e: &ArrayView2<'_, i32>,
    vertical: &VerticalGrid,
    heights: &Heights<'_>,
    ddxn_z_half_e: &Array2<f64>,
    ddxt_z_half_e: &Array2<f64>,
    config: &MetricsConfig,
    cell_start_lb2: usize,
) -> Result<Array1<f64>, Error> {
    let (z_ifc, nlev) = (heights.z_ifc, heights.nlev);
    let g = &grid.geometry;
    let vct_a = &vertical.vct_a;
    let factor = f64::max(config.vwind_offctr, 0.75);
    let mut weight = Array1::zeros(grid.num_cells);
    for c in 0..grid.num_cells {
        let edges: Vec<usize> = c2e.row(c).iter().filter_map(|&e| neighbour(e)).collect();
        if edges.len() != c2e.ncols() {
            return Err(Error::Connectivity {
                offset: "C2E".into(),
                message: format!("cell {c} lacks an edge in C2E"),
            });
        }
        let mut max_slope = f64::NEG_INFINITY;
        for &e in &edges {
            max_slope = max_slope.max(ddxn_z_half_e[[e, nlev]].abs());
        }
        for &e in &edges {
            max_slope = max_slope.max(ddxt_z_half_e[[e, nlev]].abs());
        }
        let max_height = edges
            .iter()
            .map(|&e| (ddxn_z_half_e[[e, nlev]].abs() * g.dual_edge_length[e]).abs())
            .fold(f64::NEG_INFINITY, f64::max);
        let maxslope = 0.425 * max_slope.powf(0.75);
        let diff = f64::min(0.25, 0.00025 * (max_height - 250.0));
        let offctr = f64::min(
            factor,
            f64::max(config.vwind_offctr, f64::max(maxslope, diff)),
        );
        weight[c] = 0.5 + offctr;
    }
    for k in nlev.saturating_sub(9)..nlev {
        for c in cell_start_lb2..grid.num_cells {
            let zdiff2 = (z_ifc[[c, k]] - z_ifc[[c, k + 1]]) / (vct_a[k] - vct_a[k + 1]);
            if zdiff2 < 0.6 {
                weight[c] = f64::max(1.2 - zdiff2, weight[c]);
            }
        }
    }
    Ok(weight)
}

/// `mask_prog_halo_c` (ICON4Py `compute_mask_prog_halo_c`): on a rank's halo cells, whether
/// the rank updates their prognostic fields itself (not in the lateral boundary rows 1-4); false
/// on the owned cells. A rank grid does not know its halo cells' boundary rows, so a limited
/// area with halo cells is refused.
fn mask_prog_halo_c(grid: &Grid) -> Result<Array1<bool>, Error> {
    let halo_start = grid.start(GridDim::Cell, Zone::Halo)?;
    let limited_area = grid.end(GridDim::Cell, Zone::LateralBoundaryLevel4)? > 0;
    if limited_area && halo_start < grid.num_cells {
        return Err(Error::Config(
            "mask_prog_halo_c of a limited-area rank grid needs its halo cells' boundary rows (refin_c_ctrl), which the grid does not carry".into(),
        ));
    }
    Ok(Array1::from_shape_fn(grid.num_cells, |c| c >= halo_start))
}

/// `horizontal_mask_for_3d_divdamp` (ICON's `hmask_dd3d`, ICON4Py
/// `compute_horizontal_mask_for_3d_divdamp`) from lateral boundary level 2 to the owned edges'
/// end: 1 in the interior, 0 in the boundary and nudging rows (ramping up over the
/// `grf_nudgezone_width = 8` rows after the nudging zone, which the rows of a generated grid
/// do not reach).
fn horizontal_mask_for_3d_divdamp(grid: &Grid) -> Result<Array1<f64>, Error> {
    /// ICON's `grf_nudgezone_width` (ICON4Py `DEFAULT_GRF_NUDGEZONE_WIDTH`).
    const NUDGEZONE_WIDTH: i32 = 8;
    let (lateral, nudging) = Zone::levels(GridDim::Edge);
    // ICON's `grf_nudge_start_e`: the last nudging row of edges.
    let nudge_start = (lateral + nudging) as i32;
    let rows = boundary_rows(grid, GridDim::Edge)?;
    let start = grid.start(GridDim::Edge, Zone::LateralBoundaryLevel2)?;
    let end = grid.end(GridDim::Edge, Zone::Local)?;
    let mut mask = Array1::zeros(grid.num_edges);
    for e in start..end {
        let Some(refin) = rows[e] else { continue };
        let (r, n, w) = (refin as f64, nudge_start as f64, NUDGEZONE_WIDTH as f64);
        let mut value = if refin > nudge_start + NUDGEZONE_WIDTH - 1 {
            1.0 / (w - 1.0) * (r - (n + w - 1.0))
        } else {
            0.0
        };
        if refin <= 0 || r >= n + 2.0 * (w - 1.0) {
            value = 1.0;
        }
        mask[e] = value;
    }
    Ok(mask)
}
