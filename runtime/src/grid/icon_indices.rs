//! ICON's `start_index`/`end_index` arrays: per dimension, the first and last point (1-based,
//! inclusive) of each zone, indexed by ICON's refinement level `rl` from `min_rl` to `max_rl`
//! (`mo_impl_constants.f90`): cells -8..=5, edges -13..=10, vertices -7..=5. A Fortran model
//! hands them over as it stores them (`p_patch%cells%start_index(min_rlcell:max_rlcell)`);
//! [`DimZones::from_icon_indices`] reads them and [`DimZones::icon_indices`] writes them.

use super::{DimZones, GridDim, Zone};
use crate::error::Error;

/// ICON's `(min_rl, max_rl)` of a dimension.
pub fn icon_levels(dim: GridDim) -> (i32, i32) {
    match dim {
        GridDim::Cell => (-8, 5),
        GridDim::Edge => (-13, 10),
        GridDim::Vertex => (-7, 5),
    }
}

/// The refinement level ICON indexes `zone` of `dim` by (`None` where ICON has no such zone).
pub fn icon_level(dim: GridDim, zone: Zone) -> Option<i32> {
    let (min_rl, max_rl) = icon_levels(dim);
    // ICON's min_rl*_int: the owned points (LOCAL); one and two below it the halo levels.
    let local = match dim {
        GridDim::Edge => -8,
        GridDim::Cell | GridDim::Vertex => -4,
    };
    let level = match zone {
        Zone::Interior => 0,
        Zone::Local => local,
        Zone::Halo => local - 1,
        Zone::HaloLevel2 => local - 2,
        Zone::End => min_rl,
        Zone::Nudging | Zone::NudgingLevel2 => {
            let (lateral, nudging) = Zone::levels(dim);
            let k = if zone == Zone::Nudging { 1 } else { 2 };
            if k > nudging || dim == GridDim::Vertex {
                return None;
            }
            (lateral + k) as i32
        }
        boundary => {
            let k = boundary.boundary_level()?;
            if k > Zone::levels(dim).0 {
                return None;
            }
            k as i32
        }
    };
    (min_rl..=max_rl).contains(&level).then_some(level)
}

impl DimZones {
    /// ICON's `start_index` and `end_index` arrays of `dim` (1-based, `end` inclusive, one
    /// entry per refinement level from `min_rl`). Levels naming no zone hold an empty range
    /// past the last point.
    pub fn icon_indices(&self, dim: GridDim) -> Result<(Vec<i32>, Vec<i32>), Error> {
        let (min_rl, max_rl) = icon_levels(dim);
        let size = i32::try_from(self.size).map_err(|_| {
            Error::Config(format!("{} points exceed ICON's 32-bit indices", self.size))
        })?;
        let count = (max_rl - min_rl + 1) as usize;
        let (mut start, mut end) = (vec![size + 1; count], vec![size; count]);
        for zone in Zone::ALL {
            let Some(level) = icon_level(dim, zone) else {
                continue;
            };
            let (lo, hi) = self.range(dim, zone)?;
            let at = (level - min_rl) as usize;
            start[at] = lo as i32 + 1;
            end[at] = hi as i32;
        }
        Ok((start, end))
    }

    /// The zones of `dim` from ICON's `start_index`/`end_index` arrays of a grid with `size`
    /// points (as [`icon_indices`](Self::icon_indices) writes them). The lateral-boundary and
    /// nudging levels must follow each other from the first point, the halo levels come
    /// after the owned points; anything else is an error naming the level.
    pub fn from_icon_indices(
        dim: GridDim,
        start: &[i32],
        end: &[i32],
        size: usize,
    ) -> Result<Self, Error> {
        let (min_rl, max_rl) = icon_levels(dim);
        let count = (max_rl - min_rl + 1) as usize;
        let name = dim.name();
        if start.len() != count || end.len() != count {
            return Err(Error::Shape(format!(
                "{name} start/end indices hold {} and {} levels; ICON has {count} ({min_rl}..={max_rl})",
                start.len(),
                end.len()
            )));
        }
        let range = |zone: Zone| -> Result<(usize, usize), Error> {
            let level = icon_level(dim, zone).ok_or_else(|| {
                Error::Config(format!("ICON has no level for {} of {name}", zone.name()))
            })?;
            let at = (level - min_rl) as usize;
            let (s, e) = (i64::from(start[at]) - 1, i64::from(end[at]));
            if s < 0 || e < s || e > size as i64 {
                return Err(Error::Config(format!(
                    "{name} zone {} (level {level}) runs from {} to {} (1-based, inclusive), not inside 1..={size}",
                    zone.name(),
                    start[at],
                    end[at]
                )));
            }
            Ok((s as usize, e as usize))
        };
        let (lateral, nudging) = Zone::levels(dim);
        let zoned: Vec<Zone> = Zone::ALL[..lateral]
            .iter()
            .copied()
            .chain(
                [Zone::Nudging, Zone::NudgingLevel2]
                    .into_iter()
                    .take(nudging),
            )
            .collect();
        let mut bounds = vec![0usize];
        for zone in zoned {
            // Vertices have no nudging level in ICON's arrays: empty, where the interior starts.
            let (lo, hi) = match icon_level(dim, zone) {
                Some(_) => range(zone)?,
                None => {
                    let at = *bounds.last().unwrap_or(&0);
                    (at, at)
                }
            };
            let at = *bounds.last().unwrap_or(&0);
            if lo != at && hi > lo {
                return Err(Error::Config(format!(
                    "{name} zone {} starts at point {} but the zone before it ends at {at}: ICON sorts points by zone",
                    zone.name(),
                    lo + 1
                )));
            }
            bounds.push(if hi > lo { hi } else { at });
        }
        let (_, local_end) = range(Zone::Local)?;
        let mut halo = Vec::new();
        let mut at = local_end;
        for zone in [Zone::Halo, Zone::HaloLevel2] {
            let (lo, hi) = range(zone)?;
            if hi > lo && lo != at {
                return Err(Error::Config(format!(
                    "{name} zone {} starts at point {} but should follow point {at}",
                    zone.name(),
                    lo + 1
                )));
            }
            let n = hi.saturating_sub(lo);
            if n > 0 {
                at = hi;
            }
            halo.push(n);
        }
        while halo.last() == Some(&0) {
            halo.pop();
        }
        if at != size {
            return Err(Error::Config(format!(
                "{name}: the owned points and halo end at {at}, but there are {size}"
            )));
        }
        Ok(DimZones { bounds, size, halo })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_survive_icons_index_arrays() {
        for dim in GridDim::ALL {
            let (lateral, nudging) = Zone::levels(dim);
            let counts: Vec<usize> = (0..lateral + nudging).map(|k| 3 + k).collect();
            let mut zones = DimZones::from_counts(&counts, 200);
            zones.halo = vec![7, 5];
            if dim == GridDim::Vertex {
                // ICON's vertex arrays have no nudging level: an empty one.
                let last = zones.bounds[lateral];
                zones.bounds[lateral + 1] = last;
            }
            let (start, end) = zones.icon_indices(dim).expect("indices");
            let back = DimZones::from_icon_indices(dim, &start, &end, 200).expect("zones");
            assert_eq!(back, zones, "{dim:?}");
            let global = DimZones::global(dim, 50);
            let (start, end) = global.icon_indices(dim).expect("indices");
            assert_eq!(
                DimZones::from_icon_indices(dim, &start, &end, 50).expect("zones"),
                global
            );
        }
    }

    #[test]
    fn icons_levels_are_its_constants() {
        assert_eq!(icon_level(GridDim::Cell, Zone::Nudging), Some(5));
        assert_eq!(icon_level(GridDim::Cell, Zone::NudgingLevel2), None);
        assert_eq!(icon_level(GridDim::Edge, Zone::NudgingLevel2), Some(10));
        assert_eq!(icon_level(GridDim::Edge, Zone::Local), Some(-8));
        assert_eq!(icon_level(GridDim::Vertex, Zone::End), Some(-7));
        assert_eq!(icon_level(GridDim::Cell, Zone::HaloLevel2), Some(-6));
    }

    #[test]
    fn disordered_or_outside_zones_are_errors() {
        let zones = DimZones::from_counts(&[2, 2, 2, 2, 2], 40);
        let (mut start, end) = zones.icon_indices(GridDim::Cell).expect("indices");
        let at =
            (icon_level(GridDim::Cell, Zone::LateralBoundaryLevel2).expect("level") + 8) as usize;
        start[at] += 1;
        let message = DimZones::from_icon_indices(GridDim::Cell, &start, &end, 40)
            .expect_err("a gap")
            .to_string();
        assert!(message.contains("LATERAL_BOUNDARY_LEVEL_2"), "{message}");
        let (start, end) = zones.icon_indices(GridDim::Cell).expect("indices");
        assert!(DimZones::from_icon_indices(GridDim::Cell, &start, &end, 30).is_err());
        assert!(DimZones::from_icon_indices(GridDim::Cell, &start[1..], &end, 40).is_err());
    }
}
