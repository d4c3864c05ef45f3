//! Grids as `.npz`, in the common convention that ICON4Py's tools read: the sizes as scalar
//! integers `num_cells`, `num_edges`, `num_vertices`, each table under its upper-case offset
//! name (0-based int32, -1 for a missing neighbour, as in refs/icon4py), vertex positions as
//! `vlat`/`vlon` (radians) on a sphere of `sphere_radius` and ICON's zone markers
//! `refin_c_ctrl`/`refin_e_ctrl`/`refin_v_ctrl`. gt4rs writes all of that, plus each geometry
//! array under its ICON4Py name (float64) and the kind, surface and zones as JSON text in the
//! uint8 array `grid_meta`, which makes reading exact (no geometry recomputed). A file without
//! `grid_meta` is read by the convention: its basic tables and vertex positions rebuild the rest.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

use ndarray::{Array0, Array1, Array2, ArrayD};
use ndarray_npy::{NpzReader, NpzWriter};
use serde::{Deserialize, Serialize};

use super::assemble::{positions_from_lat_lon, refin_ctrl_from_zones, GridParts, BASIC_TABLES};
use super::surface::{lat_lon, Surface, EARTH_RADIUS};
use super::topology::{Tables, TABLE_WIDTHS};
use super::zones::Zones;
use super::{Geometry, Grid, GridKind};
use crate::error::Error;

const META: &str = "grid_meta";

#[derive(Serialize, Deserialize)]
struct Meta {
    kind: GridKind,
    surface: Surface,
    num_cells: usize,
    num_edges: usize,
    num_vertices: usize,
    zones: Zones,
}

fn io(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

impl Grid {
    /// Writes the whole grid to one `.npz` file.
    pub fn write_npz(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let mut npz = NpzWriter::new(File::create(path).map_err(|e| io(path, e))?);
        let meta = Meta {
            kind: self.kind.clone(),
            surface: self.geometry.surface,
            num_cells: self.num_cells,
            num_edges: self.num_edges,
            num_vertices: self.num_vertices,
            zones: self.zones.clone(),
        };
        let json = serde_json::to_vec(&meta).map_err(|e| io(path, e))?;
        npz.add_array(META, &Array1::from(json))
            .map_err(|e| io(path, e))?;
        for (name, table) in &self.tables {
            npz.add_array(name.as_str(), table)
                .map_err(|e| io(path, e))?;
        }
        for a in self.geometry.arrays() {
            npz.add_array(a.name, &a.data).map_err(|e| io(path, e))?;
        }
        // The convention's keys, for tools that do not read `grid_meta`.
        for (name, n) in [
            ("num_cells", self.num_cells),
            ("num_edges", self.num_edges),
            ("num_vertices", self.num_vertices),
        ] {
            npz.add_array(name, &Array0::from_elem((), n as i64))
                .map_err(|e| io(path, e))?;
        }
        if let Surface::Sphere { radius } = self.geometry.surface {
            let (lat, lon): (Vec<f64>, Vec<f64>) = (0..self.num_vertices)
                .map(|v| lat_lon(super::geometry::row(&self.geometry.vertex_position, v)))
                .unzip();
            npz.add_array("vlat", &Array1::from(lat))
                .map_err(|e| io(path, e))?;
            npz.add_array("vlon", &Array1::from(lon))
                .map_err(|e| io(path, e))?;
            npz.add_array("sphere_radius", &Array0::from_elem((), radius))
                .map_err(|e| io(path, e))?;
        }
        for (name, zones) in [
            ("refin_c_ctrl", &self.zones.cell),
            ("refin_e_ctrl", &self.zones.edge),
            ("refin_v_ctrl", &self.zones.vertex),
        ] {
            npz.add_array(name, &Array1::from(refin_ctrl_from_zones(zones)))
                .map_err(|e| io(path, e))?;
        }
        npz.finish().map_err(|e| io(path, e))?;
        Ok(())
    }

    /// Reads a grid written by [`write_npz`](Self::write_npz), or (without `grid_meta`) one
    /// in the num_*/tables convention. A file that fits neither is an error naming what is
    /// missing.
    pub fn read_npz(path: impl AsRef<Path>) -> Result<Grid, Error> {
        let path = path.as_ref();
        let mut npz =
            NpzReader::new(File::open(path).map_err(|e| io(path, e))?).map_err(|e| io(path, e))?;
        let names = npz.names().map_err(|e| io(path, e))?;
        if !names.iter().any(|n| n == META) {
            return read_convention(path, &mut npz, &names);
        }
        let json: Array1<u8> = npz.by_name(META).map_err(|e| io(path, e))?;
        let meta: Meta = serde_json::from_slice(json.as_slice().unwrap_or(&json.to_vec()))
            .map_err(|e| io(path, e))?;
        let mut tables = Tables::new();
        for &(name, _) in TABLE_WIDTHS {
            let t: Array2<i32> = npz
                .by_name(name)
                .map_err(|e| io(path, format!("{name}: {e}")))?;
            tables.insert(name.to_string(), t);
        }
        let mut arrays = BTreeMap::new();
        for name in names {
            if name == META
                || tables.contains_key(&name)
                || CONVENTION_KEYS.contains(&name.as_str())
            {
                continue;
            }
            let a: ArrayD<f64> = npz
                .by_name(&name)
                .map_err(|e| io(path, format!("{name}: {e}")))?;
            arrays.insert(name, a);
        }
        let geometry = Geometry::from_arrays(meta.surface, &mut arrays)?;
        let grid = Grid {
            kind: meta.kind,
            num_cells: meta.num_cells,
            num_edges: meta.num_edges,
            num_vertices: meta.num_vertices,
            tables,
            geometry,
            zones: meta.zones,
        };
        let report = grid.check();
        if !report.is_ok() {
            return Err(io(path, format!("inconsistent grid:\n{report}")));
        }
        Ok(grid)
    }
}

/// The convention's keys that are not geometry arrays.
const CONVENTION_KEYS: &[&str] = &[
    "num_cells",
    "num_edges",
    "num_vertices",
    "vlat",
    "vlon",
    "sphere_radius",
    "refin_c_ctrl",
    "refin_e_ctrl",
    "refin_v_ctrl",
];

type Npz = NpzReader<File>;

/// A scalar integer (0-d, or a 1-element array; int32 or int64).
fn read_count(npz: &mut Npz, name: &str) -> Result<usize, String> {
    let value = match npz.by_name::<ndarray::OwnedRepr<i64>, ndarray::IxDyn>(name) {
        Ok(a) => a.iter().next().copied(),
        Err(_) => npz
            .by_name::<ndarray::OwnedRepr<i32>, ndarray::IxDyn>(name)
            .map_err(|e| format!("`{name}`: {e}"))?
            .iter()
            .next()
            .map(|&v| i64::from(v)),
    };
    let value = value.ok_or_else(|| format!("`{name}` holds no value"))?;
    usize::try_from(value).map_err(|_| format!("`{name}` is {value}"))
}

fn read_f64(npz: &mut Npz, name: &str) -> Result<Vec<f64>, String> {
    let a: ArrayD<f64> = npz.by_name(name).map_err(|e| format!("`{name}`: {e}"))?;
    Ok(a.iter().copied().collect())
}

fn read_i32(npz: &mut Npz, name: &str) -> Result<Vec<i32>, String> {
    let a: ArrayD<i32> = npz.by_name(name).map_err(|e| format!("`{name}`: {e}"))?;
    Ok(a.iter().copied().collect())
}

/// A grid from a file in the num_*/tables convention (see the module documentation).
fn read_convention(path: &Path, npz: &mut Npz, names: &[String]) -> Result<Grid, Error> {
    let has = |n: &str| names.iter().any(|x| x == n);
    let mut missing: Vec<String> = ["num_cells", "num_edges", "num_vertices"]
        .into_iter()
        .chain(BASIC_TABLES.iter().copied())
        .filter(|n| !has(n))
        .map(|n| format!("`{n}`"))
        .collect();
    let has_positions = has("vertex_position") || (has("vlat") && has("vlon"));
    if !has_positions {
        missing.push("vertex positions (`vlat` and `vlon`, or `vertex_position`)".into());
    }
    if !missing.is_empty() {
        return Err(io(
            path,
            format!(
                "neither a gt4rs grid file (no `{META}`) nor a grid in the num_cells/num_edges/num_vertices and tables convention: missing {}",
                missing.join(", ")
            ),
        ));
    }
    let fail = |m: String| io(path, m);
    let num_cells = read_count(npz, "num_cells").map_err(fail)?;
    let num_edges = read_count(npz, "num_edges").map_err(fail)?;
    let num_vertices = read_count(npz, "num_vertices").map_err(fail)?;
    let mut tables = Tables::new();
    for &(name, _) in TABLE_WIDTHS {
        if has(name) {
            let t: Array2<i32> = npz
                .by_name(name)
                .map_err(|e| fail(format!("{name}: {e}")))?;
            tables.insert(name.to_string(), t);
        }
    }
    let radius = if has("sphere_radius") {
        read_f64(npz, "sphere_radius")
            .map_err(fail)?
            .first()
            .copied()
            .unwrap_or(EARTH_RADIUS)
    } else {
        EARTH_RADIUS
    };
    let vertex_position = if has("vertex_position") {
        npz.by_name("vertex_position")
            .map_err(|e| fail(format!("vertex_position: {e}")))?
    } else {
        let lat = read_f64(npz, "vlat").map_err(fail)?;
        let lon = read_f64(npz, "vlon").map_err(fail)?;
        positions_from_lat_lon(&lat, &lon, radius).map_err(|e| fail(e.to_string()))?
    };
    let markers = ["refin_c_ctrl", "refin_e_ctrl", "refin_v_ctrl"];
    let refin_ctrl = if markers.iter().all(|m| has(m)) {
        Some([
            read_i32(npz, markers[0]).map_err(fail)?,
            read_i32(npz, markers[1]).map_err(fail)?,
            read_i32(npz, markers[2]).map_err(fail)?,
        ])
    } else {
        None
    };
    GridParts {
        kind: GridKind::File {
            path: path.display().to_string(),
        },
        num_cells,
        num_edges,
        num_vertices,
        tables,
        surface: Surface::Sphere { radius },
        vertex_position,
        refin_ctrl,
    }
    .assemble()
    .map_err(|e| fail(e.to_string()))
}
