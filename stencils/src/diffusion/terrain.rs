//! Orography on a spherical grid and ICON's terrain-following SLEVE coordinate (Leuenberger et
//! al. 2010, ICON `mo_init_vgrid`, ICON4Py `vertical_coordinates.py`): per-cell half-level
//! heights `z_ifc` that follow the ground and become flat at `flat_height`.

use std::fmt;
use std::str::FromStr;

use gt4rs::grid::{lat_lon, Grid};
use gt4rs::Error;
use ndarray::{Array1, Array2};

use super::vertical::VerticalGrid;

/// The ground under the atmosphere of the main job.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TerrainKind {
    /// Height 0 everywhere: every column is [`VerticalGrid::vct_a`], and no point is steep.
    Flat,
    /// [`default_mountains`] under a SLEVE coordinate.
    #[default]
    Mountains,
}

impl TerrainKind {
    pub fn name(self) -> &'static str {
        match self {
            TerrainKind::Flat => "flat",
            TerrainKind::Mountains => "mountains",
        }
    }
}

impl fmt::Display for TerrainKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for TerrainKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.to_ascii_lowercase().as_str() {
            "flat" => Ok(TerrainKind::Flat),
            "mountains" => Ok(TerrainKind::Mountains),
            other => Err(Error::Config(format!(
                "unknown terrain `{other}` (expected flat or mountains)"
            ))),
        }
    }
}

/// A Gaussian mountain: `height · exp(-(d / radius)²)` at great-circle distance `d` from its
/// centre.
#[derive(Clone, Debug, PartialEq)]
pub struct Mountain {
    pub lat_deg: f64,
    pub lon_deg: f64,
    /// Peak height (m).
    pub height: f64,
    /// e-folding radius (m).
    pub radius: f64,
}

/// Four ranges of realistic height at their places on Earth, smooth enough for an R2B4 grid
/// (about 160 km between cell centres) yet with flanks that exceed ICON's height-difference
/// threshold between neighbouring cells.
pub fn default_mountains() -> Vec<Mountain> {
    let m = |lat_deg, lon_deg, height, radius_km: f64| Mountain {
        lat_deg,
        lon_deg,
        height,
        radius: radius_km * 1e3,
    };
    vec![
        m(46.5, 10.0, 3000.0, 200.0),   // Alps
        m(39.0, -106.0, 3500.0, 350.0), // Rockies
        m(33.0, 88.0, 4000.0, 500.0),   // Tibetan plateau
        m(-24.0, -67.5, 3500.0, 250.0), // Andes
    ]
}

/// Surface height (m) at every cell centre of a spherical grid: the sum of `mountains`.
pub fn orography(grid: &Grid, mountains: &[Mountain]) -> Result<Array1<f64>, Error> {
    let radius = match grid.geometry.surface {
        gt4rs::grid::Surface::Sphere { radius } => radius,
        gt4rs::grid::Surface::Torus { .. } => {
            return Err(Error::Config(
                "mountains need a spherical grid (use --terrain flat on a torus)".into(),
            ))
        }
    };
    let unit = |lat: f64, lon: f64| [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()];
    let centres: Vec<([f64; 3], &Mountain)> = mountains
        .iter()
        .map(|m| (unit(m.lat_deg.to_radians(), m.lon_deg.to_radians()), m))
        .collect();
    Ok(Array1::from_shape_fn(grid.num_cells, |c| {
        let p = grid.geometry.cell_center.row(c);
        let (lat, lon) = lat_lon([p[0], p[1], p[2]]);
        let u = unit(lat, lon);
        centres
            .iter()
            .map(|(centre, m)| {
                let cos = (u[0] * centre[0] + u[1] * centre[1] + u[2] * centre[2]).clamp(-1.0, 1.0);
                let d = radius * cos.acos();
                m.height * (-(d / m.radius).powi(2)).exp()
            })
            .sum()
    }))
}

/// Parameters of the SLEVE coordinate, with ICON's defaults (`sleve_nml`, ICON4Py
/// `VerticalGridConfig`).
#[derive(Clone, Debug, PartialEq)]
pub struct SleveParams {
    /// Half levels at or above this height (m) are flat.
    pub flat_height: f64,
    /// Decay scale (m) of the large-scale (smoothed) topography.
    pub decay_scale_1: f64,
    /// Decay scale (m) of the small-scale topography (full minus smoothed).
    pub decay_scale_2: f64,
    pub decay_exponent: f64,
    /// ∇² smoothing passes that give the large-scale topography.
    pub smoothing_iterations: usize,
    pub minimum_layer_thickness_1: f64,
    pub minimum_relative_layer_thickness_1: f64,
    pub minimum_layer_thickness_2: f64,
    pub minimum_relative_layer_thickness_2: f64,
    pub lowest_layer_thickness: f64,
}

impl Default for SleveParams {
    fn default() -> Self {
        SleveParams {
            flat_height: 16_000.0,
            decay_scale_1: 4_000.0,
            decay_scale_2: 2_500.0,
            decay_exponent: 1.2,
            smoothing_iterations: 25,
            minimum_layer_thickness_1: 100.0,
            minimum_relative_layer_thickness_1: 1.0 / 3.0,
            minimum_layer_thickness_2: 500.0,
            minimum_relative_layer_thickness_2: 0.5,
            lowest_layer_thickness: 50.0,
        }
    }
}

/// The ground and the heights of every column's levels.
#[derive(Clone, Debug, PartialEq)]
pub struct Terrain {
    pub kind: TerrainKind,
    /// Surface height per cell (m).
    pub topography: Array1<f64>,
    /// Half-level heights `z_ifc`, `[cell, nlev + 1]`, from the top down to the ground.
    pub z_ifc: Array2<f64>,
    /// Full-level heights `z_mc`, `[cell, nlev]`: midpoints of the half levels.
    pub z_mc: Array2<f64>,
    /// ICON's `nflatlev` (0-based): half levels `0..=nflatlev` are flat.
    pub nflatlev: usize,
}

impl Terrain {
    /// Flat ground: every column is `vct_a`.
    pub fn flat(num_cells: usize, vertical: &VerticalGrid) -> Self {
        let vct_a = &vertical.vct_a;
        let z_ifc = Array2::from_shape_fn((num_cells, vct_a.len()), |(_, k)| vct_a[k]);
        Terrain {
            kind: TerrainKind::Flat,
            topography: Array1::zeros(num_cells),
            z_mc: full_levels(&z_ifc),
            z_ifc,
            nflatlev: vct_a.len().saturating_sub(1),
        }
    }

    /// The terrain of `kind`: flat, or [`default_mountains`] under [`Terrain::sleve`] with
    /// ICON's default parameters.
    pub fn of_kind(kind: TerrainKind, grid: &Grid, vertical: &VerticalGrid) -> Result<Self, Error> {
        match kind {
            TerrainKind::Flat => Ok(Terrain::flat(grid.num_cells, vertical)),
            TerrainKind::Mountains => Terrain::sleve(
                grid,
                vertical,
                orography(grid, &default_mountains())?,
                &SleveParams::default(),
            ),
        }
    }

    /// ICON's SLEVE coordinate over `topography`: `vct_a` plus the large-scale (∇²-smoothed)
    /// topography decaying with scale `decay_scale_1` and the small-scale rest decaying with
    /// `decay_scale_2`, both as `sinh((H/s)^n - (z/s)^n) / sinh((H/s)^n)`; flat from
    /// `flat_height` up. Layers thinner than ICON's minimum thickness are thickened from the
    /// ground up (the limiter of ICON4Py `_check_and_correct_layer_thickness`; its extra
    /// smoothing of the thickness ratios above a limited layer is left out).
    pub fn sleve(
        grid: &Grid,
        vertical: &VerticalGrid,
        topography: Array1<f64>,
        params: &SleveParams,
    ) -> Result<Self, Error> {
        let (nc, nlev) = (grid.num_cells, vertical.nlev);
        if topography.len() != nc {
            return Err(Error::Shape(format!(
                "topography has {} values, the grid {nc} cells",
                topography.len()
            )));
        }
        if topography.iter().any(|h| !h.is_finite() || *h < 0.0) {
            return Err(Error::Config(
                "topography must be finite and not below 0 m".into(),
            ));
        }
        let vct_a = &vertical.vct_a;
        if nlev < 2 || vct_a.len() != nlev + 1 {
            return Err(Error::Shape(format!(
                "the vertical grid has {nlev} levels and {} half-level heights",
                vct_a.len()
            )));
        }
        let top = vct_a[0];
        if !(params.flat_height > 0.0 && params.flat_height < top) {
            return Err(Error::Config(format!(
                "need 0 < flat height ({} m) < model top ({top} m)",
                params.flat_height
            )));
        }
        let nflatlev = vct_a
            .iter()
            .rposition(|&z| z >= params.flat_height)
            .unwrap_or(0);
        let smooth = smooth_topography(grid, &topography, params.smoothing_iterations)?;
        let decay = |z: f64, scale: f64| {
            let n = params.decay_exponent;
            ((top / scale).powf(n) - (z / scale).powf(n)).sinh() / (top / scale).powf(n).sinh()
        };
        let mut z_ifc = Array2::from_shape_fn((nc, nlev + 1), |(c, k)| {
            if k <= nflatlev {
                vct_a[k]
            } else if k == nlev {
                topography[c]
            } else {
                vct_a[k]
                    + smooth[c] * decay(vct_a[k], params.decay_scale_1)
                    + (topography[c] - smooth[c]) * decay(vct_a[k], params.decay_scale_2)
            }
        });
        limit_layer_thickness(&mut z_ifc, vct_a, params);
        for c in 0..nc {
            if (z_ifc[[c, nflatlev]] - vct_a[nflatlev]).abs() > 0.0 {
                return Err(Error::Config(format!(
                    "the terrain reaches the flat level {nflatlev} in cell {c}: raise flat_height or lower the mountains"
                )));
            }
        }
        Ok(Terrain {
            kind: TerrainKind::Mountains,
            topography,
            z_mc: full_levels(&z_ifc),
            z_ifc,
            nflatlev,
        })
    }

    pub fn nlev(&self) -> usize {
        self.z_mc.ncols()
    }

    /// Height (m) of full level `k` at the edge between `cells`: their mean.
    pub fn edge_height(&self, cells: [usize; 2], k: usize) -> f64 {
        0.5 * (self.z_mc[[cells[0], k]] + self.z_mc[[cells[1], k]])
    }
}

/// Midpoints of the half levels.
fn full_levels(z_ifc: &Array2<f64>) -> Array2<f64> {
    let nlev = z_ifc.ncols().saturating_sub(1);
    Array2::from_shape_fn((z_ifc.nrows(), nlev), |(c, k)| {
        0.5 * (z_ifc[[c, k]] + z_ifc[[c, k + 1]])
    })
}

/// ICON's topography smoothing for SLEVE: `iterations` passes of `h += ⅛ ∇²h · area` with the
/// grid's `geofac_n2s` on `C2E2CO`.
fn smooth_topography(
    grid: &Grid,
    topography: &Array1<f64>,
    iterations: usize,
) -> Result<Array1<f64>, Error> {
    let c2e2co = grid.table("C2E2CO")?;
    let (geofac, area) = (&grid.geometry.geofac_n2s, &grid.geometry.cell_area);
    let mut smooth = topography.clone();
    for _ in 0..iterations {
        let nabla2 = Array1::from_shape_fn(grid.num_cells, |c| {
            (0..c2e2co.ncols())
                .filter_map(|j| {
                    usize::try_from(c2e2co[[c, j]])
                        .ok()
                        .map(|n| geofac[[c, j]] * smooth[n])
                })
                .sum::<f64>()
        });
        for c in 0..grid.num_cells {
            smooth[c] += 0.125 * nabla2[c] * area[c];
        }
    }
    Ok(smooth)
}

/// ICON's minimum layer thickness, from the ground up: a layer thinner than its limit (a
/// fraction of its `vct_a` thickness) is thickened by raising its upper half level.
fn limit_layer_thickness(z_ifc: &mut Array2<f64>, vct_a: &[f64], p: &SleveParams) {
    let nlev = vct_a.len() - 1;
    for k in (0..nlev).rev() {
        let nominal = vct_a[k] - vct_a[k + 1];
        let limit = if nominal < p.minimum_layer_thickness_1 {
            p.minimum_relative_layer_thickness_1 * nominal
        } else if nominal < p.minimum_layer_thickness_2 {
            let blend = ((p.minimum_layer_thickness_2 - nominal)
                / (p.minimum_layer_thickness_2 - p.minimum_layer_thickness_1))
                .powi(2);
            (p.minimum_relative_layer_thickness_1 * blend
                + p.minimum_relative_layer_thickness_2 * (1.0 - blend))
                * nominal
        } else {
            p.minimum_relative_layer_thickness_2
                * p.minimum_layer_thickness_2
                * (nominal / p.minimum_layer_thickness_2).powf(1.0 / 3.0)
        };
        let limit = limit.max(p.lowest_layer_thickness.min(50.0));
        for c in 0..z_ifc.nrows() {
            if z_ifc[[c, k + 1]] + limit > z_ifc[[c, k]] {
                z_ifc[[c, k]] = z_ifc[[c, k + 1]] + limit;
            }
        }
    }
}
