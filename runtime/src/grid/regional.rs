//! Limited-area grids cut from a global one, ordered like ICON's LAM grids.
//!
//! The region is the set of cells whose centre lies within `radius` of a centre point. Its
//! points are classified as ICON's `refin_ctrl` does:
//! - vertex level 1 is the region's outline (vertices that also touch a cell outside);
//!   level `k+1` the not yet classified neighbours of level `k` (V2E2V);
//! - a cell's row is the lowest level among its vertices;
//! - an edge on the outline has level 1; any other edge `max(l0 + l1 - 1, 2)` for vertex
//!   levels `l0, l1` (edges along a vertex ring get odd levels, edges between rings even
//!   ones, as in ICON's two edge levels per cell row).
//!
//! Before classifying, the outline is smoothed: a cell with two or more neighbours on the
//! other side of it changes sides, so the region has no one-cell notches or spikes.
//!
//! Cells and vertices with level 1..=4 form the lateral-boundary rows, level 5 the nudging
//! zone; edges with level 1..=8 the boundary rows, 9 and 10 the two nudging levels. Points
//! are sorted by (zone level, global index), so each zone is a contiguous index range.

use std::collections::VecDeque;

use ndarray::{Array2, ArrayD, Axis};
use serde::{Deserialize, Serialize};

use super::surface::Surface;
use super::topology::{add_derived_tables, Tables};
use super::zones::{DimZones, Zone, Zones};
use super::{Geometry, Grid, GridDim, GridKind};
use crate::error::Error;

/// A circular region on the sphere.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegionSpec {
    /// Latitude of the centre, degrees north.
    pub center_lat_deg: f64,
    /// Longitude of the centre, degrees east.
    pub center_lon_deg: f64,
    /// Great-circle radius, metres.
    pub radius: f64,
}

const UNCLASSIFIED: usize = usize::MAX;

/// Sorts `0..n` points kept (`keep`) by `(min(level, interior_level), index)` and counts
/// the points in each level below `interior_level`.
fn order_by_level(
    keep: &[bool],
    level: &[usize],
    interior_level: usize,
) -> (Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..keep.len()).filter(|&i| keep[i]).collect();
    order.sort_by_key(|&i| (level[i].min(interior_level), i));
    let mut counts = vec![0; interior_level - 1];
    for &i in &order {
        if level[i] < interior_level {
            counts[level[i] - 1] += 1;
        }
    }
    (order, counts)
}

fn inverse(order: &[usize], n: usize) -> Vec<i32> {
    let mut new_index = vec![-1; n];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new as i32;
    }
    new_index
}

/// Smooths the region's outline as ICON's LAM cuts are: cells with two or more neighbours
/// on the other side switch sides, until none does (at most a few sweeps).
fn smooth_outline(in_cell: &mut [bool], c2e2c: &Array2<i32>) {
    for _ in 0..16 {
        let mut changed = false;
        for c in 0..in_cell.len() {
            let other_side = (0..3)
                .filter(|&i| {
                    let n = c2e2c[[c, i]];
                    n >= 0 && in_cell[n as usize] != in_cell[c]
                })
                .count();
            if other_side >= 2 {
                in_cell[c] = !in_cell[c];
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

impl Grid {
    /// A limited-area grid: the cells of this (global) grid whose centres lie within
    /// `region.radius` of the region's centre, sorted into ICON's zones. Neighbours outside
    /// the region are -1.
    pub fn regional(&self, region: RegionSpec) -> Result<Grid, Error> {
        let Surface::Sphere {
            radius: sphere_radius,
        } = self.geometry.surface
        else {
            return Err(Error::Config(
                "regional grids are cut from spherical grids".into(),
            ));
        };
        if matches!(self.kind, GridKind::Regional { .. }) {
            return Err(Error::Config("the grid is already regional".into()));
        }
        // The fields are public: make sure they still form a grid before indexing with them.
        let report = self.check();
        if !report.is_ok() {
            return Err(Error::Config(format!(
                "the grid is inconsistent:\n{report}"
            )));
        }
        if !(region.radius.is_finite() && region.radius > 0.0) {
            return Err(Error::Config(format!(
                "region radius must be positive, got {}",
                region.radius
            )));
        }
        let (lat, lon) = (
            region.center_lat_deg.to_radians(),
            region.center_lon_deg.to_radians(),
        );
        let center = [
            sphere_radius * lat.cos() * lon.cos(),
            sphere_radius * lat.cos() * lon.sin(),
            sphere_radius * lat.sin(),
        ];
        let t = |n: &str| &self.tables[n];
        let (c2v, c2e, v2c, v2e2v, e2v) = (t("C2V"), t("C2E"), t("V2C"), t("V2E2V"), t("E2V"));
        let surface = self.geometry.surface;

        let mut in_cell: Vec<bool> = (0..self.num_cells)
            .map(|c| {
                let p = super::geometry::row(&self.geometry.cell_center, c);
                surface.distance(p, center) <= region.radius
            })
            .collect();
        smooth_outline(&mut in_cell, &self.tables["C2E2C"]);
        let mut in_vertex = vec![false; self.num_vertices];
        let mut in_edge = vec![false; self.num_edges];
        for c in (0..self.num_cells).filter(|&c| in_cell[c]) {
            for i in 0..3 {
                in_vertex[c2v[[c, i]] as usize] = true;
                in_edge[c2e[[c, i]] as usize] = true;
            }
        }
        let kept_cells = in_cell.iter().filter(|&&x| x).count();
        if kept_cells == 0 || kept_cells == self.num_cells {
            return Err(Error::Config(format!(
                "the region holds {kept_cells} of {} cells; it must hold some but not all",
                self.num_cells
            )));
        }

        // Vertex levels by breadth-first search from the outline.
        let mut vlevel = vec![UNCLASSIFIED; self.num_vertices];
        let mut queue = VecDeque::new();
        for v in (0..self.num_vertices).filter(|&v| in_vertex[v]) {
            if v2c.row(v).iter().any(|&c| c >= 0 && !in_cell[c as usize]) {
                vlevel[v] = 1;
                queue.push_back(v);
            }
        }
        while let Some(v) = queue.pop_front() {
            for &w in v2e2v.row(v) {
                if w >= 0 && in_vertex[w as usize] && vlevel[w as usize] == UNCLASSIFIED {
                    vlevel[w as usize] = vlevel[v] + 1;
                    queue.push_back(w as usize);
                }
            }
        }
        let clevel: Vec<usize> = (0..self.num_cells)
            .map(|c| {
                (0..3)
                    .map(|i| vlevel[c2v[[c, i]] as usize])
                    .min()
                    .unwrap_or(UNCLASSIFIED)
            })
            .collect();
        let elevel: Vec<usize> = (0..self.num_edges)
            .map(|e| {
                let (a, b) = (vlevel[e2v[[e, 0]] as usize], vlevel[e2v[[e, 1]] as usize]);
                let on_outline = (0..2).any(|k| {
                    let c = self.tables["E2C"][[e, k]];
                    c < 0 || !in_cell[c as usize]
                });
                if a == UNCLASSIFIED || b == UNCLASSIFIED {
                    UNCLASSIFIED
                } else if on_outline {
                    1
                } else {
                    // An inner edge joining two outline vertices is a chord of a notch;
                    // it belongs to the first row of inner edges.
                    (a + b - 1).max(2)
                }
            })
            .collect();

        let (cl, cn) = Zone::levels(GridDim::Cell);
        let (el, en) = Zone::levels(GridDim::Edge);
        let (vl, vn) = Zone::levels(GridDim::Vertex);
        let (cell_order, cell_counts) = order_by_level(&in_cell, &clevel, cl + cn + 1);
        let (edge_order, edge_counts) = order_by_level(&in_edge, &elevel, el + en + 1);
        let (vertex_order, vertex_counts) = order_by_level(&in_vertex, &vlevel, vl + vn + 1);
        let new_cell = inverse(&cell_order, self.num_cells);
        let new_edge = inverse(&edge_order, self.num_edges);
        let new_vertex = inverse(&vertex_order, self.num_vertices);
        let order_of = |d: GridDim| match d {
            GridDim::Cell => &cell_order,
            GridDim::Edge => &edge_order,
            GridDim::Vertex => &vertex_order,
        };
        let new_of = |d: GridDim| match d {
            GridDim::Cell => &new_cell,
            GridDim::Edge => &new_edge,
            GridDim::Vertex => &new_vertex,
        };

        let mut tables = Tables::new();
        for name in ["C2V", "C2E", "C2E2C", "E2V", "E2C", "V2E", "V2C", "V2E2V"] {
            let global = t(name);
            let (from, to) = super::topology::table_dims(name).expect("known table");
            let (rows, map) = (order_of(from), new_of(to));
            let mut table = Array2::from_elem((rows.len(), global.ncols()), -1);
            for (r, &old) in rows.iter().enumerate() {
                for k in 0..global.ncols() {
                    let x = global[[old, k]];
                    table[[r, k]] = if x >= 0 { map[x as usize] } else { -1 };
                }
            }
            tables.insert(name.to_string(), table);
        }
        add_derived_tables(&mut tables);

        let mut arrays = std::collections::BTreeMap::new();
        for a in self.geometry.arrays() {
            let rows = order_of(a.dim);
            let mut data: ArrayD<f64> = a.data.select(Axis(0), rows);
            if let Some(name) = a.table {
                let table = &tables[name];
                for ((r, k), &x) in table.indexed_iter() {
                    if x < 0 {
                        data[[r, k]] = 0.0;
                    }
                }
            }
            arrays.insert(a.name.to_string(), data);
        }
        let geometry = Geometry::from_arrays(surface, &mut arrays)?;
        let (nc, ne, nv) = (cell_order.len(), edge_order.len(), vertex_order.len());
        Ok(Grid {
            kind: GridKind::Regional {
                parent: Box::new(self.kind.clone()),
                region,
            },
            num_cells: nc,
            num_edges: ne,
            num_vertices: nv,
            tables,
            geometry,
            zones: Zones {
                cell: DimZones::from_counts(&cell_counts, nc),
                edge: DimZones::from_counts(&edge_counts, ne),
                vertex: DimZones::from_counts(&vertex_counts, nv),
            },
        })
    }
}
