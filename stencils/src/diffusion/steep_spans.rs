//! Where the truly horizontal θ diffusion runs: runs of cells around the steep columns, each
//! over the levels its columns need. ICON loops over its list of steep points; one box around
//! all of them (the cells from the first steep column to the last, the levels of the deepest
//! and the highest) held over a hundred times as many points as the list on the main job's grid,
//! since the mountains' columns lie far apart in the cell numbering.

use super::state::MetricState;

/// Two steep columns at most this many cells apart share a span: a call's fixed cost is worth
/// a few dozen columns of the few levels a span covers, and fewer calls keep the GPU's launches
/// few.
pub const MERGE_GAP_CELLS: i32 = 64;

/// Cells `cells.0..cells.1` over levels `levels.0..levels.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SteepSpan {
    pub cells: (i32, i32),
    pub levels: (i32, i32),
}

impl SteepSpan {
    /// The points it covers.
    pub fn points(&self) -> usize {
        let len = |(start, end): (i32, i32)| usize::try_from(end - start).unwrap_or(0);
        len(self.cells) * len(self.levels)
    }
}

/// The spans of the cells in `cells` where the z-diffusion adds something (`zd_diffcoef != 0`,
/// or a steep point of `mask_hdiff`), in cell order: consecutive such columns at most
/// [`MERGE_GAP_CELLS`] apart share a span, over the least and greatest such level of its
/// columns. Outside them the program would add 0. Empty where there is no steep point.
pub fn steep_spans(metric: &MetricState, cells: (i32, i32)) -> Vec<SteepSpan> {
    let Some(zd) = &metric.zdiffusion else {
        return Vec::new();
    };
    let (mask, diffcoef) = (zd.mask_hdiff.as_array(), zd.zd_diffcoef.as_array());
    let (columns, levels) = (diffcoef.shape()[0], diffcoef.shape()[1]);
    let mut spans: Vec<SteepSpan> = Vec::new();
    let first = usize::try_from(cells.0).unwrap_or(0);
    let last = usize::try_from(cells.1).unwrap_or(0).min(columns);
    for c in first..last {
        let acts = |k: usize| {
            diffcoef[[c, k].as_slice()] != 0.0
                || mask.get([c, k].as_slice()).copied().unwrap_or(false)
        };
        let (Some(low), Some(high)) = (
            (0..levels).find(|&k| acts(k)),
            (0..levels).rfind(|&k| acts(k)),
        ) else {
            continue;
        };
        // Indices below `cells.1`, an i32.
        let (c, low, high) = (c as i32, low as i32, high as i32);
        match spans.last_mut() {
            Some(span) if c - (span.cells.1 - 1) <= MERGE_GAP_CELLS => {
                span.cells.1 = c + 1;
                span.levels = (span.levels.0.min(low), span.levels.1.max(high + 1));
            }
            _ => spans.push(SteepSpan {
                cells: (c, c + 1),
                levels: (low, high + 1),
            }),
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use gt4rs::Field;
    use ndarray::{Array2, Array3};

    use super::*;
    use crate::diffusion::state::ZDiffusionFields;

    /// A metric state over `cells` × `levels` whose `zd_diffcoef` is non-zero at `steep`.
    fn metric_with(
        cells: usize,
        levels: usize,
        steep: &[(usize, usize)],
        masked: &[(usize, usize)],
    ) -> MetricState {
        let mut coef = Array2::<f64>::zeros((cells, levels));
        for &(c, k) in steep {
            coef[[c, k]] = 0.5;
        }
        let mut mask = Array2::<bool>::from_elem((cells, levels), false);
        for &(c, k) in masked {
            mask[[c, k]] = true;
        }
        let field2 = |a: Array2<f64>| Field::from_array_zero_origin(a.into_dyn()).expect("a field");
        MetricState {
            wgtfac_c: field2(Array2::zeros((cells, levels + 1))),
            theta_ref_mc: field2(Array2::zeros((cells, levels))),
            zdiffusion: Some(ZDiffusionFields {
                mask_hdiff: Field::from_array_zero_origin(mask.into_dyn()).expect("a field"),
                zd_vertoffset: Field::from_array_zero_origin(
                    Array3::<i32>::zeros((cells, 3, levels)).into_dyn(),
                )
                .expect("a field"),
                zd_diffcoef: field2(coef),
                zd_intcoef: Field::from_array_zero_origin(
                    Array3::<f64>::zeros((cells, 3, levels)).into_dyn(),
                )
                .expect("a field"),
            }),
        }
    }

    #[test]
    fn near_columns_share_a_span_and_far_ones_do_not() {
        let far = 12 + MERGE_GAP_CELLS as usize + 1;
        let metric = metric_with(200, 8, &[(10, 5), (12, 2), (12, 3), (far, 7)], &[]);
        assert_eq!(
            steep_spans(&metric, (0, 200)),
            vec![
                SteepSpan {
                    cells: (10, 13),
                    levels: (2, 6)
                },
                SteepSpan {
                    cells: (far as i32, far as i32 + 1),
                    levels: (7, 8)
                },
            ]
        );
    }

    #[test]
    fn a_masked_point_counts_and_columns_outside_the_cells_do_not() {
        let metric = metric_with(100, 6, &[(3, 1), (50, 4)], &[(40, 0)]);
        let spans = steep_spans(&metric, (20, 100));
        assert_eq!(
            spans,
            vec![SteepSpan {
                cells: (40, 51),
                levels: (0, 5)
            }]
        );
        assert_eq!(spans[0].points(), 11 * 5);
    }

    #[test]
    fn no_steep_point_and_no_zdiffusion_give_no_span() {
        assert!(steep_spans(&metric_with(30, 4, &[], &[]), (0, 30)).is_empty());
        let mut flat = metric_with(30, 4, &[(1, 1)], &[]);
        flat.zdiffusion = None;
        assert!(steep_spans(&flat, (0, 30)).is_empty());
    }
}
