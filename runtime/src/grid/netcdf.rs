//! ICON grid files (NetCDF, feature `netcdf`).
//!
//! Tables are stored 1-based and transposed, `[slot, point]`, with 0 for a missing
//! neighbour, under ICON's names; positions as longitude/latitude in radians. Reading
//! rebuilds the derived tables (E2C2V, C2E2C2E, ...) and the geometry from the file's
//! tables and vertex positions; limited-area files get their zones from `refin_c_ctrl`,
//! `refin_e_ctrl` and `refin_v_ctrl` (ICON's boundary distance: 1.. for the lateral and
//! nudging levels, anything else interior), which must be sorted as ICON sorts them.

use std::path::Path;

use ndarray::Array2;

use super::assemble::{positions_from_lat_lon, refin_ctrl_from_zones, GridParts};
use super::surface::{lat_lon, Surface, EARTH_RADIUS};
use super::topology::Tables;
use super::{Grid, GridKind};
use crate::error::Error;

/// ICON's variable name of each basic table, with its slot dimension.
pub const ICON_TABLE_NAMES: &[(&str, &str, &str)] = &[
    ("C2V", "vertex_of_cell", "nv"),
    ("C2E", "edge_of_cell", "nv"),
    ("C2E2C", "neighbor_cell_index", "nv"),
    ("E2V", "edge_vertices", "nc"),
    ("E2C", "adjacent_cell_of_edge", "nc"),
    ("V2C", "cells_of_vertex", "ne"),
    ("V2E", "edges_of_vertex", "ne"),
    ("V2E2V", "vertices_of_vertex", "ne"),
];

fn nc_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

fn point_dim(offset: &str) -> &'static str {
    match offset.as_bytes()[0] {
        b'C' => "cell",
        b'E' => "edge",
        _ => "vertex",
    }
}

/// Writes the grid's basic tables, positions and main metric fields in ICON's layout.
pub fn write_icon_grid(grid: &Grid, path: impl AsRef<Path>) -> Result<(), Error> {
    let path = path.as_ref();
    let Surface::Sphere { radius } = grid.geometry.surface else {
        return Err(Error::Config(
            "only spherical grids are written as ICON grid files".into(),
        ));
    };
    let mut file = netcdf::create(path).map_err(|e| nc_err(path, e))?;
    for (name, len) in [
        ("cell", grid.num_cells),
        ("edge", grid.num_edges),
        ("vertex", grid.num_vertices),
        ("nv", 3),
        ("nc", 2),
        ("ne", 6),
    ] {
        file.add_dimension(name, len).map_err(|e| nc_err(path, e))?;
    }
    file.add_attribute("sphere_radius", radius)
        .map_err(|e| nc_err(path, e))?;
    for &(offset, icon_name, slots) in ICON_TABLE_NAMES {
        let table = &grid.tables[offset];
        let one_based: Vec<i32> = table.t().iter().map(|&x| x + 1).collect();
        let mut var = file
            .add_variable::<i32>(icon_name, &[slots, point_dim(offset)])
            .map_err(|e| nc_err(path, e))?;
        var.put_values(&one_based, ..)
            .map_err(|e| nc_err(path, e))?;
    }
    for (name, dim, zones) in [
        ("refin_c_ctrl", "cell", &grid.zones.cell),
        ("refin_e_ctrl", "edge", &grid.zones.edge),
        ("refin_v_ctrl", "vertex", &grid.zones.vertex),
    ] {
        let mut var = file
            .add_variable::<i32>(name, &[dim])
            .map_err(|e| nc_err(path, e))?;
        var.put_values(&refin_ctrl_from_zones(zones), ..)
            .map_err(|e| nc_err(path, e))?;
    }
    let g = &grid.geometry;
    for (prefix, dim, positions) in [
        ("v", "vertex", &g.vertex_position),
        ("c", "cell", &g.cell_center),
        ("e", "edge", &g.edge_center),
    ] {
        let (lat, lon): (Vec<f64>, Vec<f64>) = positions
            .rows()
            .into_iter()
            .map(|r| lat_lon([r[0], r[1], r[2]]))
            .unzip();
        for (name, values) in [(format!("{prefix}lat"), lat), (format!("{prefix}lon"), lon)] {
            let mut var = file
                .add_variable::<f64>(&name, &[dim])
                .map_err(|e| nc_err(path, e))?;
            var.put_values(&values, ..).map_err(|e| nc_err(path, e))?;
        }
    }
    for (name, dim, values) in [
        ("cell_area", "cell", &g.cell_area),
        ("dual_area", "vertex", &g.dual_area),
        ("edge_length", "edge", &g.primal_edge_length),
        ("dual_edge_length", "edge", &g.dual_edge_length),
        ("edge_system_orientation", "edge", &g.tangent_orientation),
    ] {
        let mut var = file
            .add_variable::<f64>(name, &[dim])
            .map_err(|e| nc_err(path, e))?;
        var.put_values(&values.to_vec(), ..)
            .map_err(|e| nc_err(path, e))?;
    }
    Ok(())
}

/// Reads a global ICON grid file: tables (1-based, `[slot, point]`), `vlon`/`vlat` and the
/// `sphere_radius` attribute (Earth's radius if absent).
pub fn read_icon_grid(path: impl AsRef<Path>) -> Result<Grid, Error> {
    let path = path.as_ref();
    let file = netcdf::open(path).map_err(|e| nc_err(path, e))?;
    let dim_len = |name: &str| {
        file.dimension(name)
            .map(|d| d.len())
            .ok_or_else(|| nc_err(path, format!("dimension `{name}` is missing")))
    };
    let (nc, ne, nv) = (dim_len("cell")?, dim_len("edge")?, dim_len("vertex")?);
    let size = |dim: &str| match dim {
        "cell" => nc,
        "edge" => ne,
        _ => nv,
    };
    let mut tables = Tables::new();
    for &(offset, icon_name, _) in ICON_TABLE_NAMES {
        let var = file
            .variable(icon_name)
            .ok_or_else(|| nc_err(path, format!("variable `{icon_name}` is missing")))?;
        let values: Vec<i32> = var.get_values(..).map_err(|e| nc_err(path, e))?;
        let rows = size(point_dim(offset));
        if rows == 0 || !values.len().is_multiple_of(rows) {
            return Err(nc_err(
                path,
                format!(
                    "`{icon_name}` has {} values for {rows} points",
                    values.len()
                ),
            ));
        }
        let slots = values.len() / rows;
        let transposed =
            Array2::from_shape_vec((slots, rows), values).map_err(|e| nc_err(path, e))?;
        tables.insert(offset.to_string(), transposed.t().mapv(|x| x - 1));
    }
    let radius = match file.attribute("sphere_radius") {
        Some(a) => {
            let value = a.value().map_err(|e| nc_err(path, e))?;
            f64::try_from(value).map_err(|e| nc_err(path, e))?
        }
        None => EARTH_RADIUS,
    };
    let read = |name: &str| -> Result<Vec<f64>, Error> {
        file.variable(name)
            .ok_or_else(|| nc_err(path, format!("variable `{name}` is missing")))?
            .get_values(..)
            .map_err(|e| nc_err(path, e))
    };
    let vertex_position = positions_from_lat_lon(&read("vlat")?, &read("vlon")?, radius)
        .map_err(|e| nc_err(path, e))?;
    let markers = ["refin_c_ctrl", "refin_e_ctrl", "refin_v_ctrl"];
    let refin_ctrl = if markers.iter().all(|name| file.variable(name).is_some()) {
        let mut read_markers = Vec::new();
        for name in markers {
            let values: Vec<i32> = file
                .variable(name)
                .ok_or_else(|| nc_err(path, format!("variable `{name}` is missing")))?
                .get_values(..)
                .map_err(|e| nc_err(path, e))?;
            read_markers.push(values);
        }
        let [c, e, v]: [Vec<i32>; 3] = read_markers
            .try_into()
            .map_err(|_| nc_err(path, "three zone markers expected"))?;
        Some([c, e, v])
    } else {
        None
    };
    GridParts {
        kind: GridKind::File {
            path: path.display().to_string(),
        },
        num_cells: nc,
        num_edges: ne,
        num_vertices: nv,
        tables,
        surface: Surface::Sphere { radius },
        vertex_position,
        refin_ctrl,
    }
    .assemble()
    .map_err(|e| nc_err(path, e))
}
