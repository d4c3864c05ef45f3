//! A grid from what a grid file holds: the sizes, ICON's basic neighbour tables (0-based, -1
//! for a missing neighbour), vertex positions and, for a limited-area grid, ICON's
//! `refin_*_ctrl` zone markers. Shared by the readers of ICON's NetCDF files and of `.npz`
//! files in the common num_*/tables convention; the derived tables and the geometry are
//! rebuilt, so a file needs only what ICON itself stores.

use ndarray::Array2;

use super::surface::Surface;
use super::topology::{add_derived_tables, Tables};
use super::{DimZones, Geometry, Grid, GridDim, GridKind, Zone, Zones};
use crate::error::Error;

/// The basic tables a grid file must hold; the others are derived from them.
pub const BASIC_TABLES: &[&str] = &["C2V", "C2E", "C2E2C", "E2V", "E2C", "V2C", "V2E", "V2E2V"];

/// What a grid file holds, read into memory.
pub struct GridParts {
    /// How the grid was made (a file's grid: [`GridKind::File`]).
    pub kind: GridKind,
    /// Cells.
    pub num_cells: usize,
    /// Edges.
    pub num_edges: usize,
    /// Vertices.
    pub num_vertices: usize,
    /// At least [`BASIC_TABLES`], 0-based with -1 for a missing neighbour.
    pub tables: Tables,
    /// The surface the positions lie on.
    pub surface: Surface,
    /// `[vertex, xyz]`, metres.
    pub vertex_position: Array2<f64>,
    /// ICON's boundary distance per cell, edge and vertex, where the file has them.
    pub refin_ctrl: Option<[Vec<i32>; 3]>,
}

/// The number of points of the dimension a table's entries index (its last letter).
fn target_size(offset: &str, nc: usize, ne: usize, nv: usize) -> usize {
    match offset.strip_suffix('O').unwrap_or(offset).as_bytes().last() {
        Some(b'C') => nc,
        Some(b'E') => ne,
        _ => nv,
    }
}

/// The number of points of the dimension a table's rows belong to (its first letter).
fn row_count(offset: &str, nc: usize, ne: usize, nv: usize) -> usize {
    match offset.as_bytes().first() {
        Some(b'C') => nc,
        Some(b'E') => ne,
        _ => nv,
    }
}

impl GridParts {
    /// Validates the parts (table shapes and ranges, their mutual consistency, positions, zone
    /// order) before anything indexes with them; then derives the other tables and the
    /// geometry. Errors name the table or array that does not fit.
    pub fn assemble(self) -> Result<Grid, Error> {
        let (nc, ne, nv) = (self.num_cells, self.num_edges, self.num_vertices);
        let mut tables = self.tables;
        for &offset in BASIC_TABLES {
            let table = tables
                .get(offset)
                .ok_or_else(|| Error::Io(format!("table {offset} is missing")))?;
            let rows = row_count(offset, nc, ne, nv);
            if table.nrows() != rows {
                return Err(Error::Io(format!(
                    "table {offset} has {} rows, but the grid has {rows} points of its kind",
                    table.nrows()
                )));
            }
            let target = target_size(offset, nc, ne, nv);
            if let Some(bad) = table.iter().find(|&&x| x < -1 || x >= target as i32) {
                return Err(Error::Io(format!(
                    "table {offset} holds {bad}, outside 0..{target} (and not -1)"
                )));
            }
        }
        for offset in ["C2V", "C2E", "E2V"] {
            if tables[offset].iter().any(|&x| x < 0) {
                return Err(Error::Io(format!("{offset} has missing entries")));
            }
        }
        if self.vertex_position.dim() != (nv, 3) {
            return Err(Error::Io(format!(
                "vertex positions have shape {:?}, expected [{nv}, 3]",
                self.vertex_position.shape()
            )));
        }
        add_derived_tables(&mut tables);
        let consistent = super::check::cross_check_tables(&tables, nc, ne, nv);
        if !consistent.is_ok() {
            return Err(Error::Io(format!("inconsistent tables:\n{consistent}")));
        }
        let zones = match self.refin_ctrl {
            Some([cell, edge, vertex]) => {
                let mut dims = Vec::new();
                for (refin, dim, size) in [
                    (cell, GridDim::Cell, nc),
                    (edge, GridDim::Edge, ne),
                    (vertex, GridDim::Vertex, nv),
                ] {
                    if refin.len() != size {
                        return Err(Error::Io(format!(
                            "refin_ctrl of the {} points has {} values for {size} points",
                            dim.name(),
                            refin.len()
                        )));
                    }
                    dims.push(zones_from_refin_ctrl(&refin, dim).map_err(|m| {
                        Error::Io(format!("refin_ctrl of the {} points: {m}", dim.name()))
                    })?);
                }
                let [cell, edge, vertex]: [DimZones; 3] = dims
                    .try_into()
                    .map_err(|_| Error::Io("three zone markers expected".into()))?;
                Zones { cell, edge, vertex }
            }
            None => Zones::global(nc, ne, nv),
        };
        let geometry = Geometry::compute(self.surface, self.vertex_position, &tables)?;
        Ok(Grid {
            kind: self.kind,
            num_cells: nc,
            num_edges: ne,
            num_vertices: nv,
            tables,
            geometry,
            zones,
        })
    }
}

/// Vertex positions on a sphere of `radius` from latitudes and longitudes in radians.
pub fn positions_from_lat_lon(lat: &[f64], lon: &[f64], radius: f64) -> Result<Array2<f64>, Error> {
    if lat.len() != lon.len() {
        return Err(Error::Io(format!(
            "{} vertex latitudes but {} longitudes",
            lat.len(),
            lon.len()
        )));
    }
    let mut positions = Array2::zeros((lat.len(), 3));
    for (v, (la, lo)) in lat.iter().zip(lon).enumerate() {
        positions[[v, 0]] = radius * la.cos() * lo.cos();
        positions[[v, 1]] = radius * la.cos() * lo.sin();
        positions[[v, 2]] = radius * la.sin();
    }
    Ok(positions)
}

/// Zone bounds from ICON's `refin_*_ctrl` (boundary distance per point: 1.. for the lateral
/// and nudging levels, anything else interior), which must be sorted as ICON sorts them.
pub fn zones_from_refin_ctrl(refin: &[i32], dim: GridDim) -> Result<DimZones, String> {
    let (lateral, nudging) = Zone::levels(dim);
    let zoned = (lateral + nudging) as i32;
    let class = |r: i32| {
        if (1..=zoned).contains(&r) {
            r
        } else {
            zoned + 1
        }
    };
    if let Some(i) = (1..refin.len()).find(|&i| class(refin[i]) < class(refin[i - 1])) {
        return Err(format!(
            "points are not sorted by zone (index {i} has level {} after level {})",
            refin[i],
            refin[i - 1]
        ));
    }
    let mut counts = vec![0; zoned as usize];
    for &r in refin {
        if (1..=zoned).contains(&r) {
            counts[r as usize - 1] += 1;
        }
    }
    Ok(DimZones::from_counts(&counts, refin.len()))
}

/// ICON's `refin_*_ctrl` from zone bounds: the level for lateral and nudging points, 0 for
/// the interior. Bounds outside the points (a damaged grid, written for inspection) are
/// clamped to them; reading such a file back fails its consistency checks.
pub fn refin_ctrl_from_zones(zones: &DimZones) -> Vec<i32> {
    let mut refin = vec![0; zones.size];
    for (level, bounds) in zones.bounds.windows(2).enumerate() {
        let start = bounds[0].min(zones.size);
        let end = bounds[1].clamp(start, zones.size);
        for r in &mut refin[start..end] {
            *r = level as i32 + 1;
        }
    }
    refin
}
