//! Run-time support for the fused CPU kernels that `#[program]` generates: the pointer wrapper
//! that lets a kernel's blocks share field buffers across threads, the error slot the blocks
//! report into, the parallel driver over horizontal blocks, and math the standard library lacks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::error::Error;
use crate::options::CpuOptions;

/// A field buffer pointer that a kernel's blocks share across threads.
#[derive(Clone, Copy, Debug)]
pub struct Ptr<T>(*mut T);

// SAFETY: a kernel reads its inputs concurrently (shared reads are sound) and each block writes
// only the output points of its own horizontal range, so writes through copies of one `Ptr` in
// different threads never touch the same element. The generated code keeps to that.
unsafe impl<T: Send> Send for Ptr<T> {}
// SAFETY: as for `Send`: concurrent use is reads, or writes to disjoint points.
unsafe impl<T: Sync> Sync for Ptr<T> {}

impl<T> Ptr<T> {
    pub fn of_const(p: *const T) -> Self {
        Ptr(p as *mut T)
    }
    pub fn of_mut(p: *mut T) -> Self {
        Ptr(p)
    }
    /// The pointer. A method (not field access) so that closures capture the whole `Ptr`.
    #[inline(always)]
    pub fn get(self) -> *mut T {
        self.0
    }
}

/// The first error any block of a kernel reports; later ones are dropped.
#[derive(Debug, Default)]
pub struct ErrorSlot {
    failed: AtomicBool,
    first: Mutex<Option<Error>>,
}

impl ErrorSlot {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the error `make` builds, unless one was recorded already. Cold: only failing
    /// points get here, so a kernel's fast path carries no formatting.
    #[cold]
    #[inline(never)]
    pub fn record(&self, make: impl FnOnce() -> Error) {
        if !self.failed.swap(true, Ordering::Relaxed) {
            let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
            *first = Some(make());
        }
    }

    /// `Err` with the first recorded error, if any.
    pub fn take(self) -> Result<(), Error> {
        if !self.failed.load(Ordering::Relaxed) {
            return Ok(());
        }
        match self.first.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Runs `body(lo, hi)` over `0..n_outer` horizontal points: on the calling thread when the stage
/// has fewer than `options.parallel_threshold` points (`n_outer * per_outer`), else over rayon
/// tasks of `options.chunk` horizontal points each.
pub fn for_blocks(
    n_outer: usize,
    per_outer: usize,
    options: &CpuOptions,
    body: impl Fn(usize, usize) + Sync + Send,
) {
    if n_outer == 0 {
        return;
    }
    let points = n_outer.saturating_mul(per_outer.max(1));
    if points < options.parallel_threshold {
        body(0, n_outer);
        return;
    }
    let chunk = options.chunk.max(1);
    let blocks = n_outer.div_ceil(chunk);
    (0..blocks).into_par_iter().for_each(|b| {
        let lo = b * chunk;
        body(lo, (lo + chunk).min(n_outer));
    });
}

/// The gamma function (Lanczos approximation, g = 7, n = 9; reflection below 0.5).
pub fn gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFS: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x.is_nan() {
        return f64::NAN;
    }
    if x == x.floor() && x <= 0.0 {
        return f64::NAN;
    }
    if x < 0.5 {
        return std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * gamma(1.0 - x));
    }
    if x > 171.7 {
        return f64::INFINITY;
    }
    let x = x - 1.0;
    let mut a = COEFFS[0];
    let t = x + G + 0.5;
    for (i, c) in COEFFS.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    (2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
}

/// `gamma` for `f32`.
pub fn gamma_f32(x: f32) -> f32 {
    gamma(x as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_matches_factorials() {
        let mut fact = 1.0;
        for n in 1..20 {
            let g = gamma(n as f64);
            assert!(
                (g - fact).abs() <= 1e-12 * fact,
                "gamma({n}) = {g}, expected {fact}"
            );
            fact *= n as f64;
        }
        assert!((gamma(0.5) - std::f64::consts::PI.sqrt()).abs() < 1e-12);
        assert!(gamma(-1.0).is_nan());
    }

    #[test]
    fn error_slot_keeps_the_first_error() {
        let slot = ErrorSlot::new();
        slot.record(|| Error::Config("first".into()));
        slot.record(|| Error::Config("second".into()));
        assert_eq!(slot.take(), Err(Error::Config("first".into())));
        assert_eq!(ErrorSlot::new().take(), Ok(()));
    }

    #[test]
    fn for_blocks_covers_every_point_once() {
        use std::sync::atomic::AtomicUsize;
        for threshold in [0, usize::MAX] {
            let hits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
            let options = CpuOptions {
                parallel_threshold: threshold,
                chunk: 7,
            };
            for_blocks(1000, 3, &options, |lo, hi| {
                for h in &hits[lo..hi] {
                    h.fetch_add(1, Ordering::Relaxed);
                }
            });
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }
}
