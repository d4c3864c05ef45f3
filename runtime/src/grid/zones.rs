//! ICON's horizontal zones: index ranges of the lateral-boundary rows, the nudging zone, the
//! interior and the halo, per dimension. The halo is empty on a whole grid; a rank's part of
//! a decomposed grid (`super::decomposition`) has its halo rows after its owned points.

use serde::{Deserialize, Serialize};

use super::GridDim;
use crate::error::Error;

/// Lateral-boundary rows (cells and vertices; edges have twice as many).
pub const BOUNDARY_ROWS: usize = 4;

/// ICON's zone names (`icon4py.model.common.grid.horizontal.Zone`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Zone {
    /// The outermost row of a limited area (on a global grid: empty at 0).
    LateralBoundaryLevel1,
    /// The second row from the boundary.
    LateralBoundaryLevel2,
    /// The third row from the boundary.
    LateralBoundaryLevel3,
    /// The fourth row from the boundary.
    LateralBoundaryLevel4,
    /// The fifth row of edges from the boundary (edges only).
    LateralBoundaryLevel5,
    /// The sixth row of edges from the boundary (edges only).
    LateralBoundaryLevel6,
    /// The seventh row of edges from the boundary (edges only).
    LateralBoundaryLevel7,
    /// The eighth row of edges from the boundary (edges only).
    LateralBoundaryLevel8,
    /// The nudging zone after the boundary rows.
    Nudging,
    /// The second row of the nudging zone (edges only).
    NudgingLevel2,
    /// The owned points after the boundary and nudging rows.
    Interior,
    /// The first halo row of a rank's part (empty on a whole grid).
    Halo,
    /// The second halo row of a rank's part (empty on a whole grid).
    HaloLevel2,
    /// Every owned point: `0..` the first halo point.
    Local,
    /// The empty range at the end of all points (its start is the number of points).
    End,
}

impl Zone {
    /// The lateral boundary rows, from the boundary inwards (ICON's refinement levels 1-8).
    pub const LATERAL_BOUNDARY: [Zone; 8] = [
        Zone::LateralBoundaryLevel1,
        Zone::LateralBoundaryLevel2,
        Zone::LateralBoundaryLevel3,
        Zone::LateralBoundaryLevel4,
        Zone::LateralBoundaryLevel5,
        Zone::LateralBoundaryLevel6,
        Zone::LateralBoundaryLevel7,
        Zone::LateralBoundaryLevel8,
    ];

    /// Every zone, in ICON's order.
    pub const ALL: [Zone; 15] = [
        Zone::LateralBoundaryLevel1,
        Zone::LateralBoundaryLevel2,
        Zone::LateralBoundaryLevel3,
        Zone::LateralBoundaryLevel4,
        Zone::LateralBoundaryLevel5,
        Zone::LateralBoundaryLevel6,
        Zone::LateralBoundaryLevel7,
        Zone::LateralBoundaryLevel8,
        Zone::Nudging,
        Zone::NudgingLevel2,
        Zone::Interior,
        Zone::Halo,
        Zone::HaloLevel2,
        Zone::Local,
        Zone::End,
    ];

    /// The ICON name, e.g. `LATERAL_BOUNDARY_LEVEL_5`.
    pub fn name(self) -> &'static str {
        match self {
            Zone::LateralBoundaryLevel1 => "LATERAL_BOUNDARY_LEVEL_1",
            Zone::LateralBoundaryLevel2 => "LATERAL_BOUNDARY_LEVEL_2",
            Zone::LateralBoundaryLevel3 => "LATERAL_BOUNDARY_LEVEL_3",
            Zone::LateralBoundaryLevel4 => "LATERAL_BOUNDARY_LEVEL_4",
            Zone::LateralBoundaryLevel5 => "LATERAL_BOUNDARY_LEVEL_5",
            Zone::LateralBoundaryLevel6 => "LATERAL_BOUNDARY_LEVEL_6",
            Zone::LateralBoundaryLevel7 => "LATERAL_BOUNDARY_LEVEL_7",
            Zone::LateralBoundaryLevel8 => "LATERAL_BOUNDARY_LEVEL_8",
            Zone::Nudging => "NUDGING",
            Zone::NudgingLevel2 => "NUDGING_LEVEL_2",
            Zone::Interior => "INTERIOR",
            Zone::Halo => "HALO",
            Zone::HaloLevel2 => "HALO_LEVEL_2",
            Zone::Local => "LOCAL",
            Zone::End => "END",
        }
    }

    /// Parses an ICON name (case-insensitive).
    pub fn from_name(name: &str) -> Result<Zone, Error> {
        Zone::ALL
            .into_iter()
            .find(|z| z.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::Config(format!("unknown zone `{name}`")))
    }

    /// The lateral-boundary level (1..=8), if this is one.
    pub fn boundary_level(self) -> Option<usize> {
        Zone::ALL[..8]
            .iter()
            .position(|&z| z == self)
            .map(|i| i + 1)
    }

    /// How many lateral-boundary levels (and nudging levels) `dim` has in ICON.
    pub fn levels(dim: GridDim) -> (usize, usize) {
        match dim {
            GridDim::Edge => (2 * BOUNDARY_ROWS, 2),
            GridDim::Cell | GridDim::Vertex => (BOUNDARY_ROWS, 1),
        }
    }
}

/// Where the zones of one dimension lie. Points are sorted by zone: lateral-boundary
/// levels, then nudging levels, then the interior (these are the owned points), then the
/// halo levels (empty on a whole grid).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DimZones {
    /// `bounds[k]..bounds[k+1]` is lateral level `k+1` for `k < boundary levels`, then the
    /// nudging levels; the interior runs from the last bound to the end of the owned points.
    pub bounds: Vec<usize>,
    /// All points, owned and halo.
    pub size: usize,
    /// Points per halo level (ICON's `HALO`, `HALO_LEVEL_2`) after the owned points.
    #[serde(default)]
    pub halo: Vec<usize>,
}

impl DimZones {
    /// A dimension without boundary: every zone before the interior is empty at 0.
    pub fn global(dim: GridDim, size: usize) -> Self {
        let (lateral, nudging) = Zone::levels(dim);
        DimZones {
            bounds: vec![0; lateral + nudging + 1],
            size,
            halo: Vec::new(),
        }
    }

    /// From the number of points in each lateral and nudging level.
    pub fn from_counts(counts: &[usize], size: usize) -> Self {
        let mut bounds = Vec::with_capacity(counts.len() + 1);
        let mut at = 0;
        bounds.push(0);
        for &n in counts {
            at += n;
            bounds.push(at);
        }
        DimZones {
            bounds,
            size,
            halo: Vec::new(),
        }
    }

    /// The points this rank owns (all points of a whole grid): `0..owned()`.
    pub fn owned(&self) -> usize {
        self.size.saturating_sub(self.halo.iter().sum::<usize>())
    }

    /// `[start, end)` of `zone`.
    pub fn range(&self, dim: GridDim, zone: Zone) -> Result<(usize, usize), Error> {
        let (lateral, nudging) = Zone::levels(dim);
        let interior_start = *self.bounds.last().unwrap_or(&0);
        let owned_end = self.owned();
        let halo_level = |k: usize| {
            let start = owned_end + self.halo[..k.min(self.halo.len())].iter().sum::<usize>();
            (start, start + self.halo.get(k).copied().unwrap_or(0))
        };
        let level = |k: usize| (self.bounds[k], self.bounds[k + 1]);
        let missing = || {
            Error::Config(format!(
                "zone {} does not exist for {} (it has {lateral} lateral-boundary and {nudging} nudging levels)",
                zone.name(),
                dim.name()
            ))
        };
        Ok(match zone {
            Zone::Nudging => level(lateral),
            Zone::NudgingLevel2 if nudging >= 2 => level(lateral + 1),
            Zone::NudgingLevel2 => return Err(missing()),
            Zone::Interior => (interior_start, owned_end),
            Zone::Halo => halo_level(0),
            Zone::HaloLevel2 => halo_level(1),
            Zone::End => (self.size, self.size),
            Zone::Local => (0, owned_end),
            boundary => {
                let k = boundary
                    .boundary_level()
                    .expect("the other zones are matched above");
                if k > lateral {
                    return Err(missing());
                }
                level(k - 1)
            }
        })
    }
}

/// Zones of all three dimensions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zones {
    /// The cells' zones.
    pub cell: DimZones,
    /// The edges' zones.
    pub edge: DimZones,
    /// The vertices' zones.
    pub vertex: DimZones,
}

impl Zones {
    /// The zones of a grid without boundary or halo: every zone before the interior is empty
    /// at 0, the interior is every point.
    pub fn global(num_cells: usize, num_edges: usize, num_vertices: usize) -> Self {
        Zones {
            cell: DimZones::global(GridDim::Cell, num_cells),
            edge: DimZones::global(GridDim::Edge, num_edges),
            vertex: DimZones::global(GridDim::Vertex, num_vertices),
        }
    }

    /// The zones of `dim`.
    pub fn of(&self, dim: GridDim) -> &DimZones {
        match dim {
            GridDim::Cell => &self.cell,
            GridDim::Edge => &self.edge,
            GridDim::Vertex => &self.vertex,
        }
    }
}
