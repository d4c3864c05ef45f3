//! The metric fields of ICON's horizontal pressure gradient over steep terrain
//! (`igradp_method = 3`, ICON `mo_vertical_grid`, ICON4Py `compute_flat_max_idx`,
//! `compute_nflat_gradp`, `compute_pressure_gradient_downward_extrapolation_mask_distance` and
//! `compute_zdiff_gradp.py`): where an edge's full level does not lie between the same half
//! levels of both its cells, the gradient is taken between the levels of each cell that
//! bracket the edge's height, extrapolated by the height difference; below the higher cell's
//! ground (less 5 m) from that height downwards.

use gt4rs::Error;
use ndarray::{Array1, Array2, Array3};

/// ICON's `extrapol_dist` (m): how far below the higher cell's ground the gradient is taken
/// from where an edge's level lies deeper.
const EXTRAPOLATION_DISTANCE: f64 = 5.0;

/// Per edge, ICON's `flat_idx_max`: the deepest full level whose height at the edge lies
/// between the level's two half levels in both cells (0 where none does).
pub(crate) struct FlatEdgeLevels {
    pub(crate) flat_idx_max: Array1<usize>,
}

impl FlatEdgeLevels {
    /// From the edges' full-level heights `z_me` (`c_lin_e`-interpolated `z_mc`) and the
    /// cells' half-level heights.
    pub(crate) fn of(
        cells: &[[usize; 2]],
        z_me: &Array2<f64>,
        z_ifc: &Array2<f64>,
    ) -> Result<Self, Error> {
        let nlev = z_me.ncols();
        if z_ifc.ncols() != nlev + 1 || z_me.nrows() != cells.len() {
            return Err(Error::Shape(format!(
                "flat_idx_max: z_me has shape {:?}, z_ifc {:?}, for {} edges",
                z_me.dim(),
                z_ifc.dim(),
                cells.len()
            )));
        }
        let flat_idx_max = Array1::from_shape_fn(cells.len(), |e| {
            let [c0, c1] = cells[e];
            (0..nlev)
                .filter(|&k| {
                    let z = z_me[[e, k]];
                    z <= z_ifc[[c0, k]]
                        && z >= z_ifc[[c0, k + 1]]
                        && z <= z_ifc[[c1, k]]
                        && z >= z_ifc[[c1, k + 1]]
                })
                .max()
                .unwrap_or(0)
        });
        Ok(FlatEdgeLevels { flat_idx_max })
    }

    /// `nflat_gradp`: the least `flat_idx_max` of the owned edges `start..owned_end` (from
    /// lateral boundary level 2), at most `nlev`.
    pub(crate) fn nflat_gradp(&self, start: usize, owned_end: usize, nlev: usize) -> usize {
        (start..owned_end.min(self.flat_idx_max.len()))
            .map(|e| self.flat_idx_max[e])
            .fold(nlev, usize::min)
    }
}

/// `pg_exdist` (ICON4Py `pg_exdist_dsl`) on the edges from `start` (nudging level 2): on the
/// levels below `flat_idx_max`, how far (negative, m) the edge's level lies below the higher
/// cell's ground less 5 m, for the owned edges from `distance_start` (the nudging zone's end)
/// to `owned_end`; 0 elsewhere.
pub(crate) fn pg_exdist(
    cells: &[[usize; 2]],
    z_me: &Array2<f64>,
    topography: &Array1<f64>,
    flat: &FlatEdgeLevels,
    start: usize,
    distance_start: usize,
    owned_end: usize,
) -> Array2<f64> {
    let (ne, nlev) = z_me.dim();
    let mut exdist = Array2::zeros((ne, nlev));
    for e in start..ne {
        let [c0, c1] = cells[e];
        let distance = if (distance_start..owned_end).contains(&e) {
            f64::max(topography[c0], topography[c1]) - EXTRAPOLATION_DISTANCE
        } else {
            0.0
        };
        for k in 0..nlev {
            let z = z_me[[e, k]];
            if k > flat.flat_idx_max[e] && z < distance && e < owned_end {
                exdist[[e, k]] = z - distance;
            }
        }
    }
    exdist
}

/// `zdiff_gradp` and `vertoffset_gradp` (ICON4Py `compute_zdiff_gradp`), `[edge, 2, nlev]`:
/// from lateral boundary level 2 (`start`), the height of the edge's level above each cell's
/// level that the gradient reads, and that level's offset from the edge's. Below
/// `flat_idx_max` the level is the one whose half levels bracket the edge's height (the
/// lowest one where none does); from nudging level 2 (`start_below_ground`), where the edge's
/// level lies below the higher cell's ground less 5 m, the one that brackets that height.
#[allow(clippy::too_many_arguments)]
pub(crate) fn zdiff_gradp(
    cells: &[[usize; 2]],
    z_me: &Array2<f64>,
    z_mc: &Array2<f64>,
    z_ifc: &Array2<f64>,
    topography: &Array1<f64>,
    flat: &FlatEdgeLevels,
    start: usize,
    start_below_ground: usize,
) -> (Array3<f64>, Array3<i32>) {
    let (ne, nlev) = z_me.dim();
    let mut zdiff = Array3::zeros((ne, 2, nlev));
    let mut level = Array3::from_shape_fn((ne, 2, nlev), |(_, _, k)| k);
    let brackets = |c: usize, k: usize, z: f64| {
        k == nlev - 1 || (z <= z_ifc[[c, k]] && z >= z_ifc[[c, k + 1]])
    };
    for e in start..ne {
        for (j, &c) in cells[e].iter().enumerate() {
            for k in 0..nlev {
                zdiff[[e, j, k]] = z_me[[e, k]] - z_mc[[c, k]];
            }
        }
        let flat_k = flat.flat_idx_max[e];
        let [c0, c1] = cells[e];
        // The first cell's bracketing level is searched from the flat level for every level;
        // the second cell's from the previous level's (ICON4Py's two loops).
        for k in flat_k + 1..nlev {
            let z = z_me[[e, k]];
            if let Some(k1) = (flat_k..nlev).find(|&k1| brackets(c0, k1, z)) {
                level[[e, 0, k]] = k1;
                zdiff[[e, 0, k]] = z - z_mc[[c0, k1]];
            }
        }
        let mut from = flat_k;
        for k in flat_k + 1..nlev {
            let z = z_me[[e, k]];
            if let Some(k1) = (from..nlev).find(|&k1| brackets(c1, k1, z)) {
                level[[e, 1, k]] = k1;
                zdiff[[e, 1, k]] = z - z_mc[[c1, k1]];
                from = k1;
            }
        }
    }
    for e in start_below_ground..ne {
        let flat_k = flat.flat_idx_max[e];
        let ground =
            f64::max(topography[cells[e][0]], topography[cells[e][1]]) - EXTRAPOLATION_DISTANCE;
        for (j, &c) in cells[e].iter().enumerate() {
            let mut from = flat_k;
            for k in flat_k + 1..nlev {
                if z_me[[e, k]] >= ground {
                    continue;
                }
                if let Some(k1) = (from..nlev).find(|&k1| brackets(c, k1, ground)) {
                    level[[e, j, k]] = k1;
                    zdiff[[e, j, k]] = ground - z_mc[[c, k1]];
                    from = k1;
                }
            }
        }
    }
    let offset = Array3::from_shape_fn((ne, 2, nlev), |(e, j, k)| {
        level[[e, j, k]] as i32 - k as i32
    });
    (zdiff, offset)
}
