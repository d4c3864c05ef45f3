//! Stages of a kernel run tile by tile together (`gt4rs_ir::tile_groups`).
//!
//! Each stage's loop is a body over a tile of its horizontal points and levels. A stage alone
//! runs through [`for_tiles`]; consecutive stages that the lowering found may share tiles run
//! through [`for_tiles_of_stages`], every stage of the group over a tile of columns before the
//! next tile, so what a later stage reads of the earlier ones' outputs and of their inputs is
//! still in cache.

use rayon::prelude::*;

use super::for_tiles;
use crate::options::CpuOptions;

/// A stage's loop and where it runs, as the generated code builds it once the stage's checks
/// have passed.
#[derive(Debug)]
pub struct StageTiles<F> {
    /// Whether the stage has points to run (an empty domain runs nothing).
    pub active: bool,
    /// The stage's first index along its one horizontal dimension (`0` for a stage over
    /// several, which never shares tiles).
    pub start: i64,
    /// The stage's horizontal points and levels.
    pub n_outer: usize,
    /// The stage's levels (`1` without a vertical dimension).
    pub levels: usize,
    /// Whether its columns may be split into blocks of levels (see [`for_tiles`]).
    pub split_levels: bool,
    /// The loop over horizontal points `lo..hi` and levels `level_lo..level_hi`, both
    /// relative to the stage's first.
    pub body: F,
}

impl<F: Fn(usize, usize, usize, usize) + Sync> StageTiles<F> {
    /// Runs the stage alone over its whole domain. Its body is moved into the tile loop, as a
    /// stage's closure was before stages could share tiles: through a reference, a one-point
    /// call took 2-4 ns longer (`--bench call_overhead`, docs/performance.md).
    pub fn run(self, options: &CpuOptions)
    where
        F: Send,
    {
        if self.active {
            for_tiles(
                self.n_outer,
                self.levels,
                self.split_levels,
                options,
                self.body,
            );
        }
    }

    /// The stage as one of a group.
    pub fn in_group(&self) -> GroupStage<'_> {
        GroupStage {
            active: self.active && self.n_outer > 0 && self.levels > 0,
            start: self.start,
            n_outer: self.n_outer,
            levels: self.levels,
            split_levels: self.split_levels,
            body: &self.body,
        }
    }
}

/// One stage of a group passed to [`for_tiles_of_stages`].
pub struct GroupStage<'a> {
    active: bool,
    start: i64,
    n_outer: usize,
    levels: usize,
    split_levels: bool,
    body: &'a (dyn Fn(usize, usize, usize, usize) + Sync),
}

impl GroupStage<'_> {
    /// One past the stage's last horizontal index (its points were counted from its bounds,
    /// so the sum does not overflow).
    fn end(&self) -> i64 {
        self.start.saturating_add(self.n_outer as i64)
    }

    fn alone(&self, options: &CpuOptions) {
        for_tiles(
            self.n_outer,
            self.levels,
            self.split_levels,
            options,
            self.body,
        );
    }
}

/// Runs `stages` (consecutive stages over one horizontal dimension that may share tiles), in
/// order at every point, as if each ran over its whole domain before the next.
///
/// With `options.stage_group_chunk` points a tile, the tiles cover the union of the stages'
/// horizontal ranges (aligned on its first index) and each runs every stage over its part of
/// the tile, whole columns, before the next tile; tiles run in parallel. Each stage instead
/// runs alone, in order, where tiles would change how it runs: the option is `0`, or a stage
/// has too few points to run in parallel or few enough that [`for_tiles`] splits its columns
/// into blocks of levels.
pub fn for_tiles_of_stages(stages: &[GroupStage<'_>], options: &CpuOptions) {
    // Filtered where used, not collected: a call allocates nothing.
    let active = || stages.iter().filter(|s| s.active);
    let chunk = options.stage_group_chunk;
    let threads = rayon::current_num_threads();
    let runs_otherwise = |s: &&GroupStage<'_>| {
        s.n_outer.saturating_mul(s.levels) < options.parallel_threshold
            || (s.split_levels
                && options.k_block > 0
                && s.n_outer.div_ceil(options.chunk.max(1)) < threads)
    };
    if chunk == 0 || active().nth(1).is_none() || active().any(|s| runs_otherwise(&s)) {
        for s in active() {
            s.alone(options);
        }
        return;
    }
    let (Some(first), Some(end)) = (
        active().map(|s| s.start).min(),
        active().map(|s| s.end()).max(),
    ) else {
        return;
    };
    let span = end.saturating_sub(first) as u64 as usize;
    (0..span.div_ceil(chunk)).into_par_iter().for_each(|tile| {
        let lo = first.saturating_add((tile * chunk) as i64);
        let hi = lo.saturating_add(chunk as i64).min(end);
        for s in active() {
            let (from, to) = (lo.max(s.start), hi.min(s.end()));
            if from < to {
                (s.body)(
                    (from - s.start) as usize,
                    (to - s.start) as usize,
                    0,
                    s.levels,
                );
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    use super::*;

    type Body<'a> = Box<dyn Fn(usize, usize, usize, usize) + Sync + 'a>;

    /// Three stages over overlapping ranges record which tile ran them, in order: every point
    /// and level of each runs once, and at every point a stage runs after the ones before it.
    #[test]
    fn every_point_of_every_stage_runs_once_after_the_stages_before_it() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .expect("a pool");
        let levels = 5;
        let ranges: [(i64, usize); 3] = [(10, 40), (0, 35), (20, 3)];
        for (chunk, threshold, k_block, expect_tiles) in [
            (7, 0, 0, true),
            (0, 0, 0, false),
            // Too few points to run in parallel.
            (7, 1000, 0, false),
            // The third stage's three columns would be split into blocks of levels.
            (7, 0, 2, false),
        ] {
            let options = CpuOptions {
                parallel_threshold: threshold,
                chunk: 7,
                k_block,
                stage_group_chunk: chunk,
                vectors: crate::options::Vectors::Avx512,
            };
            let hits: Vec<Vec<AtomicUsize>> = ranges
                .iter()
                .map(|&(_, n)| (0..n * levels).map(|_| AtomicUsize::new(0)).collect())
                .collect();
            // Per absolute point, the stages in the order they ran there.
            let order: Mutex<Vec<Vec<usize>>> = Mutex::new(vec![Vec::new(); 60]);
            let tile_widths = Mutex::new(Vec::new());
            let bodies: Vec<Body<'_>> = (0..ranges.len())
                .map(|s| {
                    let (hits, order, widths) = (&hits, &order, &tile_widths);
                    let start = ranges[s].0;
                    Box::new(move |lo: usize, hi: usize, k0: usize, k1: usize| {
                        widths.lock().expect("not poisoned").push((s, hi - lo));
                        for p in lo..hi {
                            order.lock().expect("not poisoned")[start as usize + p].push(s);
                            for k in k0..k1 {
                                hits[s][p * levels + k].fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }) as Body<'_>
                })
                .collect();
            let stages: Vec<StageTiles<_>> = ranges
                .iter()
                .zip(&bodies)
                .map(|(&(start, n_outer), body)| StageTiles {
                    active: true,
                    start,
                    n_outer,
                    levels,
                    split_levels: true,
                    body: |lo, hi, k0, k1| body(lo, hi, k0, k1),
                })
                .collect();
            let group: Vec<GroupStage<'_>> = stages.iter().map(StageTiles::in_group).collect();
            pool.install(|| for_tiles_of_stages(&group, &options));
            for (s, h) in hits.iter().enumerate() {
                assert!(
                    h.iter().all(|x| x.load(Ordering::Relaxed) == 1),
                    "stage {s}, chunk {chunk}, threshold {threshold}, k_block {k_block}"
                );
            }
            for (p, ran) in order.lock().expect("not poisoned").iter().enumerate() {
                let mut sorted = ran.clone();
                sorted.sort_unstable();
                assert_eq!(*ran, sorted, "point {p}: stages in order");
            }
            let widths = tile_widths.lock().expect("not poisoned").clone();
            // In tiles, the second stage (0..35) gets tiles of the union 0..50 cut at 7s.
            let second: Vec<usize> = widths
                .iter()
                .filter(|(s, _)| *s == 1)
                .map(|&(_, w)| w)
                .collect();
            if expect_tiles {
                assert_eq!(second.len(), 5, "{widths:?}");
                assert!(second.iter().all(|&w| w == 7), "{widths:?}");
            } else {
                assert!(second.iter().sum::<usize>() == 35, "{widths:?}");
            }
        }
    }

    #[test]
    fn an_inactive_stage_runs_nothing() {
        let ran = AtomicUsize::new(0);
        let body = |_: usize, _: usize, _: usize, _: usize| {
            ran.fetch_add(1, Ordering::Relaxed);
        };
        let stages = [
            StageTiles {
                active: false,
                start: 0,
                n_outer: 10,
                levels: 3,
                split_levels: false,
                body,
            },
            StageTiles {
                active: true,
                start: 0,
                n_outer: 0,
                levels: 3,
                split_levels: false,
                body,
            },
        ];
        let group: Vec<GroupStage<'_>> = stages.iter().map(StageTiles::in_group).collect();
        for_tiles_of_stages(&group, &CpuOptions::default());
        let [alone, _] = stages;
        alone.run(&CpuOptions::default());
        assert_eq!(ran.load(Ordering::Relaxed), 0);
    }
}
