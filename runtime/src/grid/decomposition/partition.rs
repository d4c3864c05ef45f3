//! Cutting a grid's cells into parts along a Hilbert curve through their centres, and the
//! owner of every edge and vertex that follows from it.

use super::hilbert;
use crate::error::Error;
use crate::grid::{Grid, GridDim};

/// Which rank owns each cell of a grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// The number of ranks.
    pub ranks: usize,
    /// The owning rank of each cell, by global cell index.
    pub cell_rank: Vec<u32>,
}

/// How good a partition is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartitionQuality {
    /// Edges whose two cells lie on different ranks.
    pub edge_cut: usize,
    /// The fewest cells a rank owns.
    pub min_cells: usize,
    /// The most cells a rank owns.
    pub max_cells: usize,
    /// `max_cells / mean cells`: 1 is a perfect balance.
    pub imbalance: f64,
}

impl Partition {
    /// Sorts the cells by the Hilbert key of their centre and gives each rank one run of
    /// `cells / ranks` (or one more) consecutive cells. The curve keeps runs compact, so a
    /// part's boundary, and with it its halo, stays short; the balance is exact to one cell.
    pub fn hilbert(grid: &Grid, ranks: usize) -> Result<Partition, Error> {
        let cells = grid.num_cells;
        if ranks == 0 {
            return Err(Error::Config("a partition needs at least one rank".into()));
        }
        if ranks > cells {
            return Err(Error::Config(format!(
                "cannot partition {cells} cells among {ranks} ranks: every rank needs at least one cell"
            )));
        }
        let rank_count =
            u32::try_from(ranks).map_err(|_| Error::Config(format!("{ranks} ranks exceed u32")))?;
        let lattice = hilbert::lattice(grid.geometry.cell_center.view());
        let mut order: Vec<(u64, usize)> = lattice
            .into_iter()
            .enumerate()
            .map(|(c, axes)| (hilbert::key(axes), c))
            .collect();
        order.sort_unstable();
        let mut cell_rank = vec![0u32; cells];
        for (position, &(_, cell)) in order.iter().enumerate() {
            // Runs of equal length: position * ranks / cells rounds down to the run.
            cell_rank[cell] = (position * ranks / cells) as u32;
        }
        debug_assert!(cell_rank.iter().all(|&r| r < rank_count));
        Ok(Partition { ranks, cell_rank })
    }

    /// A partition given as one rank per cell (from METIS, a file, a test).
    pub fn from_cell_ranks(grid: &Grid, ranks: usize, cell_rank: Vec<u32>) -> Result<Self, Error> {
        if cell_rank.len() != grid.num_cells {
            return Err(Error::Config(format!(
                "the partition names a rank for {} cells, the grid has {}",
                cell_rank.len(),
                grid.num_cells
            )));
        }
        let mut cells_of = vec![0usize; ranks];
        for (cell, &rank) in cell_rank.iter().enumerate() {
            let slot = cells_of.get_mut(rank as usize).ok_or_else(|| {
                Error::Config(format!(
                    "cell {cell} is given to rank {rank}, but there are {ranks} ranks"
                ))
            })?;
            *slot += 1;
        }
        if let Some(empty) = cells_of.iter().position(|&n| n == 0) {
            return Err(Error::Config(format!(
                "rank {empty} of {ranks} owns no cell: this partition cannot serve {ranks} ranks"
            )));
        }
        Ok(Partition { ranks, cell_rank })
    }

    /// Cells per rank.
    pub fn cells_per_rank(&self) -> Vec<usize> {
        let mut count = vec![0usize; self.ranks];
        for &r in &self.cell_rank {
            count[r as usize] += 1;
        }
        count
    }

    /// Edge cut and balance.
    pub fn quality(&self, grid: &Grid) -> Result<PartitionQuality, Error> {
        let e2c = grid.table("E2C")?;
        let edge_cut = e2c
            .outer_iter()
            .filter(|cells| {
                let (a, b) = (cells[0], cells[1]);
                a >= 0 && b >= 0 && self.cell_rank[a as usize] != self.cell_rank[b as usize]
            })
            .count();
        let count = self.cells_per_rank();
        let min_cells = count.iter().copied().min().unwrap_or(0);
        let max_cells = count.iter().copied().max().unwrap_or(0);
        let mean = grid.num_cells as f64 / self.ranks.max(1) as f64;
        Ok(PartitionQuality {
            edge_cut,
            min_cells,
            max_cells,
            imbalance: max_cells as f64 / mean,
        })
    }

    /// The owner of every point of `dim`. Cells are owned as partitioned. An edge or vertex
    /// belongs to the highest rank among its cells (the convention of ICON's
    /// `mo_decomposition_tools`), so each point has exactly one owner, and that owner also
    /// owns one of the point's cells.
    pub fn owners(&self, grid: &Grid, dim: GridDim) -> Result<Vec<u32>, Error> {
        let cells_of = match dim {
            GridDim::Cell => return Ok(self.cell_rank.clone()),
            GridDim::Edge => grid.table("E2C")?,
            GridDim::Vertex => grid.table("V2C")?,
        };
        cells_of
            .outer_iter()
            .enumerate()
            .map(|(point, cells)| {
                cells
                    .iter()
                    .filter_map(|&c| usize::try_from(c).ok())
                    .map(|c| self.cell_rank[c])
                    .max()
                    .ok_or_else(|| Error::Config(format!("{} {point} has no cell", dim.name())))
            })
            .collect()
    }
}
