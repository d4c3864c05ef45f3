//! ICON grids: the icosahedral RnBk generator, every ICON neighbour table, geometry and
//! interpolation coefficients, limited-area cuts with ICON's zone ordering, a periodic torus,
//! and grid files. Plain data: tables are `Array2<i32>` with -1 for a missing neighbour,
//! geometry is `Array1/2<f64>`; [`Grid::connectivity`] turns a table into a typed
//! [`Connectivity`].

mod assemble;
pub(crate) mod check;
pub mod decomposition;
mod geometry;
mod icon_indices;
mod icosahedral;
mod interpolation;
#[cfg(feature = "netcdf")]
pub mod netcdf;
mod npz;
mod regional;
mod surface;
mod topology;
mod torus;
mod vec3;
mod zones;

use ndarray::{Array2, ArrayView2};
use serde::{Deserialize, Serialize};

pub use assemble::{GridParts, BASIC_TABLES};
pub use check::CheckReport;
pub use geometry::{Geometry, GeometryArray};
pub use icon_indices::{icon_level, icon_levels};
pub use icosahedral::{IcosahedralGrid, MAX_BISECTIONS};
pub use interpolation::RBF_SCALE_FACTOR;
pub use regional::RegionSpec;
pub use surface::{lat_lon, Surface, EARTH_RADIUS};
pub use topology::{Tables, TABLE_WIDTHS};
pub use zones::{DimZones, Zone, Zones, BOUNDARY_ROWS};

use crate::connectivity::Connectivity;
use crate::dims::{Dimension, Offset};
use crate::error::Error;

/// The three horizontal dimensions of an ICON grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GridDim {
    /// Cells (triangles).
    Cell,
    /// Edges.
    Edge,
    /// Vertices.
    Vertex,
}

impl GridDim {
    /// The three dimensions.
    pub const ALL: [GridDim; 3] = [GridDim::Cell, GridDim::Edge, GridDim::Vertex];
    /// The name, as the stencils' dimensions are named (`"Cell"`).
    pub fn name(self) -> &'static str {
        match self {
            GridDim::Cell => "Cell",
            GridDim::Edge => "Edge",
            GridDim::Vertex => "Vertex",
        }
    }
    /// Maps a dimension type's name (`Cell`, `Edge`, `Vertex`, any case) to the grid dimension.
    pub fn from_name(name: &str) -> Result<GridDim, Error> {
        GridDim::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::Config(format!(
                    "`{name}` is not a grid dimension (Cell, Edge, Vertex)"
                ))
            })
    }
}

/// How a grid was made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum GridKind {
    /// ICON's icosahedral grid `R{root}B{bisections}` (generated).
    Icosahedral {
        /// The root division `n` of each icosahedron edge.
        root: u32,
        /// The number of bisections `k` after it.
        bisections: u32,
    },
    /// A limited-area cut of another grid.
    Regional {
        /// The grid it was cut from.
        parent: Box<GridKind>,
        /// The region kept.
        region: RegionSpec,
    },
    /// A doubly periodic plane of equilateral triangles ([`Grid::torus`]).
    Torus {
        /// Rhombi along x.
        nx: usize,
        /// Rhombi along y.
        ny: usize,
        /// The triangles' side, metres.
        edge_length: f64,
    },
    /// Read from a file (ICON NetCDF or npz).
    File {
        /// The file's path.
        path: String,
    },
    /// One rank's part (owned points and halo) of a decomposed grid.
    Part {
        /// The whole grid.
        parent: Box<GridKind>,
        /// This part's rank.
        rank: usize,
        /// The number of ranks.
        ranks: usize,
    },
}

impl GridKind {
    /// A short name such as `R2B4`, `R2B4 regional` or `torus 8x8`.
    pub fn label(&self) -> String {
        match self {
            GridKind::Icosahedral { root, bisections } => format!("R{root}B{bisections}"),
            GridKind::Regional { parent, .. } => format!("{} regional", parent.label()),
            GridKind::Torus { nx, ny, .. } => format!("torus {nx}x{ny}"),
            GridKind::File { path } => path.clone(),
            GridKind::Part {
                parent,
                rank,
                ranks,
            } => format!("{}, rank {rank} of {ranks}", parent.label()),
        }
    }
}

/// A horizontal grid: sizes, neighbour tables (by offset name), geometry and zones.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// How it was made.
    pub kind: GridKind,
    /// Cells (triangles).
    pub num_cells: usize,
    /// Edges.
    pub num_edges: usize,
    /// Vertices.
    pub num_vertices: usize,
    /// Every neighbour table of [`TABLE_WIDTHS`], by offset name, 0-based with -1 where a
    /// neighbour is missing (pentagons, the boundary of a limited area).
    pub tables: Tables,
    /// Coordinates, metric terms and interpolation coefficients.
    pub geometry: Geometry,
    /// ICON's horizontal zones per dimension.
    pub zones: Zones,
}

impl Grid {
    /// Builds a closed grid from vertex positions and counter-clockwise triangles.
    pub(crate) fn from_triangles(
        surface: Surface,
        points: Vec<[f64; 3]>,
        cells: &[[u32; 3]],
        kind: GridKind,
    ) -> Result<Grid, Error> {
        let topo = topology::build(cells, points.len())?;
        let positions =
            Array2::from_shape_vec((points.len(), 3), points.into_iter().flatten().collect())
                .map_err(|e| Error::Shape(e.to_string()))?;
        let geometry = Geometry::compute(surface, positions, &topo.tables)?;
        Ok(Grid {
            kind,
            zones: Zones::global(topo.num_cells, topo.num_edges, topo.num_vertices),
            num_cells: topo.num_cells,
            num_edges: topo.num_edges,
            num_vertices: topo.num_vertices,
            tables: topo.tables,
            geometry,
        })
    }

    /// A doubly periodic grid of `nx * ny` rhombi, each split into two equilateral triangles
    /// of side `edge_length` metres: `2 nx ny` cells, `3 nx ny` edges, `nx ny` vertices.
    pub fn torus(nx: usize, ny: usize, edge_length: f64) -> Result<Grid, Error> {
        torus::generate(nx, ny, edge_length)
    }

    /// The number of points of `dim`.
    pub fn size(&self, dim: GridDim) -> usize {
        match dim {
            GridDim::Cell => self.num_cells,
            GridDim::Edge => self.num_edges,
            GridDim::Vertex => self.num_vertices,
        }
    }

    /// The table of an offset (`"E2C2V"`, ...).
    pub fn table(&self, offset: &str) -> Result<ArrayView2<'_, i32>, Error> {
        self.tables
            .get(offset)
            .map(|t| t.view())
            .ok_or_else(|| Error::Connectivity {
                offset: offset.to_string(),
                message: format!(
                    "the grid has no such table (it has {})",
                    self.tables.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            })
    }

    /// The table of offset `O` as a validated [`Connectivity`], matched by `O::NAME` and
    /// checked against `O`'s dimensions (named `Cell`, `Edge`, `Vertex`).
    pub fn connectivity<O: Offset>(&self) -> Result<Connectivity<O>, Error> {
        let table = self.table(O::NAME)?;
        let (from, to) = topology::table_dims(O::NAME).ok_or_else(|| Error::Connectivity {
            offset: O::NAME.to_string(),
            message: "not an ICON table name".into(),
        })?;
        let (from_name, to_name) = (<O::From as Dimension>::NAME, <O::To as Dimension>::NAME);
        if GridDim::from_name(from_name)? != from || GridDim::from_name(to_name)? != to {
            return Err(Error::Connectivity {
                offset: O::NAME.to_string(),
                message: format!(
                    "declared {from_name} => {to_name}, but the grid's table maps {} => {}",
                    from.name(),
                    to.name()
                ),
            });
        }
        Connectivity::new(table.to_owned(), self.size(to))
    }

    /// First index of `zone` in `dim` (ICON's `start_index`).
    pub fn start(&self, dim: GridDim, zone: Zone) -> Result<usize, Error> {
        Ok(self.zones.of(dim).range(dim, zone)?.0)
    }

    /// One past the last index of `zone` in `dim` (ICON's `end_index`).
    pub fn end(&self, dim: GridDim, zone: Zone) -> Result<usize, Error> {
        Ok(self.zones.of(dim).range(dim, zone)?.1)
    }

    /// [`start`](Self::start) for a dimension type (`Cell`, `Edge`, `Vertex` by name), e.g.
    /// `grid.start_of::<Edge>(Zone::LateralBoundaryLevel5)`.
    pub fn start_of<D: Dimension>(&self, zone: Zone) -> Result<usize, Error> {
        self.start(GridDim::from_name(D::NAME)?, zone)
    }

    /// [`end`](Self::end) for a dimension type.
    pub fn end_of<D: Dimension>(&self, zone: Zone) -> Result<usize, Error> {
        self.end(GridDim::from_name(D::NAME)?, zone)
    }

    /// Checks sizes, tables and geometry against each other; see [`CheckReport`].
    pub fn check(&self) -> CheckReport {
        check::run(self)
    }
}
