//! One rank's part of a decomposed grid: its owned points and two halo rows, numbered
//! locally (owned points first, in ICON's zone order, then the halo by level), with neighbour
//! tables that keep every slot where the global grid has it.

use std::collections::{BTreeMap, HashMap};

use ndarray::{Array2, ArrayD, Axis};

use super::partition::Partition;
use crate::error::Error;
use crate::grid::topology::{table_dims, Tables};
use crate::grid::zones::{DimZones, Zones};
use crate::grid::{Geometry, Grid, GridDim, GridKind};

/// Halo rows kept per dimension, as ICON's `HALO` and `HALO_LEVEL_2`.
pub const HALO_LEVELS: usize = 2;

/// One dimension of a rank's grid: where each local point lives globally and who owns it.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexMap {
    /// The global index of each local point.
    pub global: Vec<usize>,
    /// The rank owning each local point (this rank for the first `owned`).
    pub owner: Vec<u32>,
    /// Owned points: local indices `0..owned`.
    pub owned: usize,
    /// Points per halo level, after the owned ones.
    pub halo: [usize; HALO_LEVELS],
    local: HashMap<usize, usize>,
}

impl IndexMap {
    fn new(global: Vec<usize>, owner: Vec<u32>, owned: usize, halo: [usize; HALO_LEVELS]) -> Self {
        let local = global.iter().enumerate().map(|(l, &g)| (g, l)).collect();
        IndexMap {
            global,
            owner,
            owned,
            halo,
            local,
        }
    }

    /// The local index of a global point, if the rank holds it.
    pub fn local(&self, global: usize) -> Option<usize> {
        self.local.get(&global).copied()
    }

    /// Local points (owned and halo).
    pub fn len(&self) -> usize {
        self.global.len()
    }

    /// Whether the rank holds no point of this dimension.
    pub fn is_empty(&self) -> bool {
        self.global.is_empty()
    }

    /// The halo level of a local point: 0 for owned, 1 or 2 for the halo rows.
    pub fn level(&self, local: usize) -> usize {
        let mut end = self.owned;
        if local < end {
            return 0;
        }
        for (k, &n) in self.halo.iter().enumerate() {
            end += n;
            if local < end {
                return k + 1;
            }
        }
        HALO_LEVELS + 1
    }
}

/// A rank's grid and its maps to the global grid.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalGrid {
    /// This part's rank.
    pub rank: usize,
    /// The number of ranks.
    pub ranks: usize,
    /// Local tables, zones (owned zones plus `HALO`/`HALO_LEVEL_2`) and the global geometry's
    /// rows of the local points.
    pub grid: Grid,
    /// Local and global cell indices.
    pub cells: IndexMap,
    /// Local and global edge indices.
    pub edges: IndexMap,
    /// Local and global vertex indices.
    pub vertices: IndexMap,
}

impl LocalGrid {
    /// The index map of `dim`.
    pub fn map(&self, dim: GridDim) -> &IndexMap {
        match dim {
            GridDim::Cell => &self.cells,
            GridDim::Edge => &self.edges,
            GridDim::Vertex => &self.vertices,
        }
    }

    /// Cuts rank `rank`'s part out of `grid`.
    ///
    /// Halo rows, as ICON's: cell level 1 holds the cells sharing a vertex with an owned
    /// cell, level 2 those sharing a vertex with level 1. Edges and vertices of owned cells
    /// that another rank owns form their level 1, the remaining ones of level-1 cells their
    /// level 2. This is what the diffusion step reads from owned points: two rings of cells
    /// (∇⁴ of w, cold pools), the vertices and edges of the cells touching an owned one (RBF
    /// at vertices, the E2C2V stencils).
    pub fn of_rank(grid: &Grid, partition: &Partition, rank: usize) -> Result<LocalGrid, Error> {
        if rank >= partition.ranks {
            return Err(Error::Config(format!(
                "rank {rank} does not exist in a partition into {} ranks",
                partition.ranks
            )));
        }
        if partition.cell_rank.len() != grid.num_cells {
            return Err(Error::Config(format!(
                "the partition covers {} cells, the grid has {}",
                partition.cell_rank.len(),
                grid.num_cells
            )));
        }
        let me = rank as u32;
        let (c2v, v2c, c2e) = (grid.table("C2V")?, grid.table("V2C")?, grid.table("C2E")?);
        let owned_cells: Vec<usize> = (0..grid.num_cells)
            .filter(|&c| partition.cell_rank[c] == me)
            .collect();
        if owned_cells.is_empty() {
            return Err(Error::Config(format!(
                "rank {rank} of {} owns no cell",
                partition.ranks
            )));
        }
        // Cells sharing a vertex with `line`, not yet in `taken`.
        let next_line = |line: &[usize], taken: &mut Vec<bool>| -> Vec<usize> {
            let mut next = Vec::new();
            for &c in line {
                for &v in c2v.row(c).iter().filter(|&&v| v >= 0) {
                    for &n in v2c.row(v as usize).iter().filter(|&&n| n >= 0) {
                        let n = n as usize;
                        if !taken[n] {
                            taken[n] = true;
                            next.push(n);
                        }
                    }
                }
            }
            next.sort_unstable();
            next
        };
        let mut taken = vec![false; grid.num_cells];
        for &c in &owned_cells {
            taken[c] = true;
        }
        let halo1_cells = next_line(&owned_cells, &mut taken);
        let halo2_cells = next_line(&halo1_cells, &mut taken);

        let cell_map = IndexMap::new(
            [&owned_cells[..], &halo1_cells, &halo2_cells].concat(),
            [&owned_cells[..], &halo1_cells, &halo2_cells]
                .concat()
                .iter()
                .map(|&c| partition.cell_rank[c])
                .collect(),
            owned_cells.len(),
            [halo1_cells.len(), halo2_cells.len()],
        );
        let edge_map = points_of_cells(
            grid,
            partition,
            GridDim::Edge,
            &c2e,
            me,
            &owned_cells,
            &halo1_cells,
        )?;
        let vertex_map = points_of_cells(
            grid,
            partition,
            GridDim::Vertex,
            &c2v,
            me,
            &owned_cells,
            &halo1_cells,
        )?;

        let map_of = |d: GridDim| match d {
            GridDim::Cell => &cell_map,
            GridDim::Edge => &edge_map,
            GridDim::Vertex => &vertex_map,
        };
        let mut tables = Tables::new();
        for (name, global) in &grid.tables {
            let (from, to) = table_dims(name).ok_or_else(|| Error::Connectivity {
                offset: name.clone(),
                message: "not an ICON table name".into(),
            })?;
            let (rows, targets) = (map_of(from), map_of(to));
            let mut table = Array2::from_elem((rows.len(), global.ncols()), -1);
            for (r, &g) in rows.global.iter().enumerate() {
                for k in 0..global.ncols() {
                    let x = global[[g, k]];
                    if x >= 0 {
                        if let Some(l) = targets.local(x as usize) {
                            table[[r, k]] = l as i32;
                        }
                    }
                }
            }
            tables.insert(name.clone(), table);
        }

        let mut arrays = BTreeMap::new();
        for a in grid.geometry.arrays() {
            let data: ArrayD<f64> = a.data.select(Axis(0), &map_of(a.dim).global);
            arrays.insert(a.name.to_string(), data);
        }
        let geometry = Geometry::from_arrays(grid.geometry.surface, &mut arrays)?;
        let zones = Zones {
            cell: local_zones(grid, GridDim::Cell, &cell_map),
            edge: local_zones(grid, GridDim::Edge, &edge_map),
            vertex: local_zones(grid, GridDim::Vertex, &vertex_map),
        };
        let local = Grid {
            kind: GridKind::Part {
                parent: Box::new(grid.kind.clone()),
                rank,
                ranks: partition.ranks,
            },
            num_cells: cell_map.len(),
            num_edges: edge_map.len(),
            num_vertices: vertex_map.len(),
            tables,
            geometry,
            zones,
        };
        Ok(LocalGrid {
            rank,
            ranks: partition.ranks,
            grid: local,
            cells: cell_map,
            edges: edge_map,
            vertices: vertex_map,
        })
    }
}

/// Edges or vertices of a rank: those it owns, then the other ones of its owned cells (halo
/// level 1), then the remaining ones of its level-1 cells (level 2); each group by global
/// index, which on a limited-area grid is ICON's zone order.
fn points_of_cells(
    grid: &Grid,
    partition: &Partition,
    dim: GridDim,
    of_cell: &ndarray::ArrayView2<'_, i32>,
    me: u32,
    owned_cells: &[usize],
    halo1_cells: &[usize],
) -> Result<IndexMap, Error> {
    let owner = partition.owners(grid, dim)?;
    let mut seen = vec![false; grid.size(dim)];
    let mut collect = |cells: &[usize]| -> Vec<usize> {
        let mut points = Vec::new();
        for &c in cells {
            for &p in of_cell.row(c).iter().filter(|&&p| p >= 0) {
                let p = p as usize;
                if !seen[p] {
                    seen[p] = true;
                    points.push(p);
                }
            }
        }
        points.sort_unstable();
        points
    };
    let of_owned = collect(owned_cells);
    let of_halo1 = collect(halo1_cells);
    let (owned, halo1): (Vec<usize>, Vec<usize>) =
        of_owned.into_iter().partition(|&p| owner[p] == me);
    let global = [&owned[..], &halo1, &of_halo1].concat();
    let owners = global.iter().map(|&p| owner[p]).collect();
    if let Some(&stray) = of_halo1.iter().find(|&&p| owner[p] == me) {
        return Err(Error::Config(format!(
            "{} {stray} is owned by rank {me} but lies on none of its cells",
            dim.name()
        )));
    }
    Ok(IndexMap::new(
        global,
        owners,
        owned.len(),
        [halo1.len(), of_halo1.len()],
    ))
}

/// The zones of a rank: its owned points counted per zone of the global grid (they are in
/// global order, hence in zone order), then the halo levels.
fn local_zones(grid: &Grid, dim: GridDim, map: &IndexMap) -> DimZones {
    let global = grid.zones.of(dim);
    let levels = global.bounds.len().saturating_sub(1);
    let mut counts = vec![0usize; levels];
    for &g in &map.global[..map.owned] {
        // The zone level of g: the k with bounds[k] <= g < bounds[k+1]; interior otherwise.
        let k = global.bounds.partition_point(|&b| b <= g);
        if (1..=levels).contains(&k) {
            counts[k - 1] += 1;
        }
    }
    let mut zones = DimZones::from_counts(&counts, map.len());
    zones.halo = map.halo.to_vec();
    zones
}
