//! Run-time support for the fused CPU kernels that `#[program]` generates: the pointer wrapper
//! that lets a kernel's blocks share field buffers across threads, the error slot the blocks
//! report into and the parallel driver over tiles of points and levels.

use std::sync::Mutex;

use rayon::prelude::*;

mod stage_groups;

pub use stage_groups::{for_tiles_of_stages, GroupStage, StageTiles};

use crate::error::Error;
use crate::options::{CpuOptions, Vectors};

/// The widest vector instructions of [`Vectors`] this CPU has (the standard library caches
/// the detection).
pub fn widest_vectors_here() -> Vectors {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let avx2 = has!("avx2") && has!("fma");
        let avx512 = has!("avx512f")
            && has!("avx512vl")
            && has!("avx512bw")
            && has!("avx512dq")
            && has!("avx512cd");
        if avx2 && avx512 {
            Vectors::Avx512
        } else if avx2 {
            Vectors::Avx2
        } else {
            Vectors::Baseline
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    Vectors::Baseline
}

/// `options` as a program compiled on this machine keeps them: `vectors` lowered to what this
/// CPU has, so a call picks its kernels' copy from the one value it holds, without asking the
/// CPU (and the options shown for a compiled program name the copy that runs).
pub fn on_this_machine(options: CpuOptions) -> CpuOptions {
    options.with_vectors_at_most(widest_vectors_here())
}

/// A field buffer pointer that a kernel's blocks share across threads.
#[derive(Clone, Copy, Debug)]
pub struct Ptr<T>(*mut T);

// SAFETY: a kernel reads its inputs concurrently (shared reads are sound) and each tile writes
// only the output points of its own horizontal range and levels, so writes through copies of
// one `Ptr` in different threads never touch the same element. The generated code keeps to that.
unsafe impl<T: Send> Send for Ptr<T> {}
// SAFETY: as for `Send`: concurrent use is reads, or writes to disjoint points.
unsafe impl<T: Sync> Sync for Ptr<T> {}

impl<T> Ptr<T> {
    /// Wraps a pointer to an input buffer (never written through).
    pub fn of_const(p: *const T) -> Self {
        Ptr(p as *mut T)
    }
    /// Wraps a pointer to an output buffer.
    pub fn of_mut(p: *mut T) -> Self {
        Ptr(p)
    }
    /// The pointer. A method (not field access) so that closures capture the whole `Ptr`.
    #[inline(always)]
    pub fn get(self) -> *mut T {
        self.0
    }
}

/// The error a kernel's blocks report: of the failures they meet, the one at the least point
/// (its coordinates compared in order, the domain's dimensions and then the level; a column's
/// point, without a level, before its levels'), whichever thread meets it first. The CUDA
/// kernels keep the same one in their error record, so every backend names one point.
#[derive(Debug, Default)]
pub struct ErrorSlot {
    least: Mutex<Option<(Vec<i64>, Error)>>,
}

impl ErrorSlot {
    /// An empty slot.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the error `make` builds for a failure at `point`, unless one at a lesser or
    /// equal point was recorded already. Cold: only failing points get here, so a kernel's fast
    /// path carries no formatting.
    #[cold]
    #[inline(never)]
    pub fn record(&self, point: &[i64], make: impl FnOnce() -> Error) {
        let mut least = self.least.lock().unwrap_or_else(|e| e.into_inner());
        let lesser = match &*least {
            Some((recorded, _)) => point < recorded.as_slice(),
            None => true,
        };
        if lesser {
            *least = Some((point.to_vec(), make()));
        }
    }

    /// `Err` with the recorded error, if any.
    pub fn take(self) -> Result<(), Error> {
        match self.least.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }
}

/// How the note of [`stopped_after_writing`] begins: the failure itself is described before
/// it, in the words every backend uses.
pub const WROTE_IN_PLACE: &str = " (the cpu kernels write in place: ";

/// `error`, from a stage's loop, with what the call had written when it stopped: the outputs
/// of the stages before (`before`, written over their domains) and some points of the failing
/// stage's (`failing`; with `together`, the outputs of every stage of the failing one's group,
/// which ran tile by tile together). A failure inside a loop cannot be found before the loop
/// runs, and the kernels write in place; every check that can run before the first write does.
#[cold]
#[inline(never)]
pub fn stopped_after_writing(
    error: Error,
    before: &[&str],
    failing: &[&str],
    together: bool,
) -> Error {
    let quoted = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut written = Vec::new();
    if !before.is_empty() {
        written.push(format!(
            "{} over the earlier stages' domains",
            quoted(before)
        ));
    }
    if !failing.is_empty() {
        written.push(if together {
            format!(
                "any part of {} over the domains of the failing stage and of the stages run \
                 tile by tile with it",
                quoted(failing)
            )
        } else {
            format!(
                "any part of {} over the failing stage's domain",
                quoted(failing)
            )
        });
    }
    if written.is_empty() {
        return error;
    }
    let note = format!(
        "{WROTE_IN_PLACE}when the call stopped it had written {}; every other output is as it was)",
        written.join(", and ")
    );
    match error {
        Error::Domain { program, message } => Error::Domain {
            program,
            message: message + &note,
        },
        Error::Argument {
            program,
            arg,
            message,
        } => Error::Argument {
            program,
            arg,
            message: message + &note,
        },
        Error::Execution { program, message } => Error::Execution {
            program,
            message: message + &note,
        },
        other => other,
    }
}

/// Runs `body(lo, hi, level_lo, level_hi)` over tiles that cover `0..n_outer` horizontal
/// points × `0..levels` levels (relative to the stage's first level) once each: the whole stage
/// on the calling thread when it has fewer than `options.parallel_threshold` points, else one
/// rayon task per tile of `options.chunk` horizontal points and whole columns.
///
/// Columns are split only where the horizontal tiles alone would leave rayon threads idle (a
/// narrow range, such as a boundary zone) and `split_levels` allows it (a scan carries values
/// along its column): then into as many blocks as keep every thread busy, none shorter than
/// `options.k_block` levels (`0`: never split). Where every thread already has work, splitting
/// gains nothing (measured in docs/performance.md) and repeats each column's hoisted work
/// (neighbour indices, level-independent loads) once per block.
pub fn for_tiles(
    n_outer: usize,
    levels: usize,
    split_levels: bool,
    options: &CpuOptions,
    body: impl Fn(usize, usize, usize, usize) + Sync + Send,
) {
    if n_outer == 0 || levels == 0 {
        return;
    }
    if n_outer.saturating_mul(levels) < options.parallel_threshold {
        body(0, n_outer, 0, levels);
        return;
    }
    let chunk = options.chunk.max(1);
    let horizontal_tiles = n_outer.div_ceil(chunk);
    let threads = rayon::current_num_threads();
    let block = if split_levels && options.k_block > 0 && horizontal_tiles < threads {
        let blocks_wanted = threads.div_ceil(horizontal_tiles);
        levels
            .div_ceil(blocks_wanted)
            .max(options.k_block)
            .min(levels)
    } else {
        levels
    };
    let vertical_tiles = levels.div_ceil(block);
    (0..horizontal_tiles * vertical_tiles)
        .into_par_iter()
        .for_each(|tile| {
            let (lo, level_lo) = (
                (tile / vertical_tiles) * chunk,
                (tile % vertical_tiles) * block,
            );
            body(
                lo,
                (lo + chunk).min(n_outer),
                level_lo,
                (level_lo + block).min(levels),
            );
        });
}

/// Scratch buffers (a kernel's temporaries) that a compiled program keeps between calls, so a
/// repeated call allocates nothing. A call takes a set with [`ScratchPool::lease`] and gives it
/// back when the lease drops; calls running at once on several threads each get their own set
/// (a new one where none is free), so they never share a buffer.
#[derive(Debug, Default)]
pub struct ScratchPool<T> {
    free: Mutex<Vec<T>>,
}

impl<T: Default> ScratchPool<T> {
    /// A free set of buffers, or a new (empty) one where every set is in use.
    pub fn lease(&self) -> Lease<'_, T> {
        let reused = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        Lease {
            pool: self,
            scratch: Some(reused.unwrap_or_default()),
        }
    }
}

/// A set of scratch buffers taken from a [`ScratchPool`]; returned to it on drop.
#[derive(Debug)]
pub struct Lease<'a, T> {
    pool: &'a ScratchPool<T>,
    scratch: Option<T>,
}

impl<T> std::ops::Deref for Lease<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.scratch
            .as_ref()
            .expect("a lease holds its scratch until it drops")
    }
}

impl<T> std::ops::DerefMut for Lease<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.scratch
            .as_mut()
            .expect("a lease holds its scratch until it drops")
    }
}

impl<T> Drop for Lease<'_, T> {
    fn drop(&mut self) {
        if let Some(scratch) = self.scratch.take() {
            self.pool
                .free
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(scratch);
        }
    }
}

/// Makes `buffer` hold at least `len` elements, growing it only when it is shorter: points a
/// stage does not write keep stale values, which no stage reads (a temporary is written over
/// its whole extent before it is read).
pub fn ensure_len<T: Default + Clone>(buffer: &mut Vec<T>, len: usize) {
    if buffer.len() < len {
        buffer.resize(len, T::default());
    }
}

/// The row-major strides and element count of a temporary with `extents` points per
/// dimension (at least one along each, where a masked-out slot reads), or `None` where they
/// do not fit in memory's index types.
pub fn dense_layout<const R: usize>(extents: [i64; R]) -> Option<([isize; R], usize)> {
    let mut strides = [0isize; R];
    let mut len: usize = 1;
    for d in (0..R).rev() {
        strides[d] = isize::try_from(len).ok()?;
        len = len.checked_mul(usize::try_from(extents[d].max(1)).ok()?)?;
    }
    isize::try_from(len).ok()?;
    Some((strides, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_lowered_to_what_this_cpu_has() {
        let here = widest_vectors_here();
        for asked in [Vectors::Baseline, Vectors::Avx2, Vectors::Avx512] {
            let options = CpuOptions {
                vectors: asked,
                ..CpuOptions::default()
            };
            let kept = on_this_machine(options);
            assert_eq!(kept.vectors, asked.min(here));
            assert_eq!(
                CpuOptions {
                    vectors: asked,
                    ..kept
                },
                options
            );
        }
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            here >= Vectors::Avx2,
            is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
        );
    }

    #[test]
    fn dense_layouts_are_counted_exactly() {
        assert_eq!(dense_layout([3, 4]), Some(([4, 1], 12)));
        assert_eq!(dense_layout([0, 4]), Some(([4, 1], 4)));
        assert_eq!(dense_layout([1 << 40, 1 << 40]), None);
        assert_eq!(dense_layout([i64::MAX, 2]), None);
    }

    #[test]
    fn error_slot_keeps_the_error_at_the_least_point() {
        let slot = ErrorSlot::new();
        slot.record(&[3, 1], || Error::Config("I 3, K 1".into()));
        slot.record(&[0, 4], || Error::Config("I 0, K 4".into()));
        slot.record(&[0, 5], || Error::Config("I 0, K 5".into()));
        slot.record(&[0, 4], || Error::Config("I 0, K 4 again".into()));
        assert_eq!(slot.take(), Err(Error::Config("I 0, K 4".into())));
        // A column's point comes before the points of its levels.
        let slot = ErrorSlot::new();
        slot.record(&[2, 0], || Error::Config("level".into()));
        slot.record(&[2], || Error::Config("column".into()));
        assert_eq!(slot.take(), Err(Error::Config("column".into())));
        assert_eq!(ErrorSlot::new().take(), Ok(()));
    }

    #[test]
    fn scratch_pool_reuses_and_never_shares_a_set() {
        let pool: ScratchPool<Vec<f64>> = ScratchPool::default();
        let first_ptr = {
            let mut a = pool.lease();
            ensure_len(&mut a, 100);
            // A lease taken while `a` is held is another set.
            let b = pool.lease();
            assert!(b.is_empty());
            a.as_ptr()
        };
        // Both sets are free again; growing within a set's length keeps its buffer.
        let mut reused = Vec::new();
        for _ in 0..2 {
            reused.push(pool.lease());
        }
        let with_buffer = reused.iter_mut().find(|l| l.len() == 100);
        let with_buffer = with_buffer.expect("the grown set came back to the pool");
        ensure_len(with_buffer, 50);
        assert_eq!(with_buffer.as_ptr(), first_ptr);
        assert_eq!(with_buffer.len(), 100);
    }

    #[test]
    fn tiles_cover_every_point_and_level_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .expect("a pool of 4 threads");
        let levels = 13;
        // (points, threshold, k_block, split_levels) → expected tile heights, tallest first.
        let cases: [(usize, usize, usize, bool, &[usize]); 7] = [
            // Enough horizontal tiles for 4 threads: whole columns.
            (1000, 0, 2, true, &[13; 143]),
            // One horizontal tile: split into 4 blocks of ceil(13 / 4) levels.
            (5, 0, 2, true, &[4, 4, 4, 1]),
            // ... but no block shorter than k_block.
            (5, 0, 10, true, &[10, 3]),
            (5, 0, 0, true, &[13]),
            (5, 0, 2, false, &[13]),
            // Two horizontal tiles: 2 blocks each.
            (10, 0, 2, true, &[7, 7, 6, 6]),
            // Below the threshold: one call on this thread.
            (5, usize::MAX, 2, true, &[13]),
        ];
        for (n_outer, threshold, k_block, split_levels, heights) in cases {
            let hits: Vec<AtomicUsize> =
                (0..n_outer * levels).map(|_| AtomicUsize::new(0)).collect();
            let seen = Mutex::new(Vec::new());
            let options = CpuOptions {
                parallel_threshold: threshold,
                chunk: 7,
                k_block,
                stage_group_chunk: 0,
                vectors: Vectors::Avx512,
            };
            pool.install(|| {
                for_tiles(n_outer, levels, split_levels, &options, |lo, hi, k0, k1| {
                    seen.lock().expect("not poisoned").push(k1 - k0);
                    for p in lo..hi {
                        for k in k0..k1 {
                            hits[p * levels + k].fetch_add(1, Ordering::Relaxed);
                        }
                    }
                })
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            let mut seen = seen.into_inner().expect("not poisoned");
            seen.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(
                seen, heights,
                "{n_outer} points, k_block {k_block}, split {split_levels}"
            );
        }
    }
}
