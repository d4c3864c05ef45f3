//! Grids as `.npz`: each table under its offset name (int32, -1 for a missing neighbour, as
//! in refs/icon4py), each geometry array under its ICON4Py name (float64), and the sizes,
//! kind, surface and zones as JSON text in the uint8 array `grid_meta`.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

use ndarray::{Array1, Array2, ArrayD};
use ndarray_npy::{NpzReader, NpzWriter};
use serde::{Deserialize, Serialize};

use super::surface::Surface;
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
        npz.finish().map_err(|e| io(path, e))?;
        Ok(())
    }

    /// Reads a grid written by [`write_npz`](Self::write_npz).
    pub fn read_npz(path: impl AsRef<Path>) -> Result<Grid, Error> {
        let path = path.as_ref();
        let mut npz =
            NpzReader::new(File::open(path).map_err(|e| io(path, e))?).map_err(|e| io(path, e))?;
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
        let names = npz.names().map_err(|e| io(path, e))?;
        for name in names {
            if name == META || tables.contains_key(&name) {
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
