//! A STREAM triad (`a = b + s·c`) over rayon, the bandwidth ceiling of this machine.

use rayon::prelude::*;

use crate::harness::{gbps, median_time};

/// Measures the triad on arrays of `n` f64 and returns GB/s (3 arrays × 8 bytes × n per run:
/// two reads, one write, as STREAM counts it).
pub fn triad_gbps(n: usize) -> f64 {
    let b: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    let c: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 * 0.25).collect();
    let mut a = vec![0.0f64; n];
    let s = 3.0;
    let chunk = (n / (rayon::current_num_threads() * 8)).max(4096);
    let t = median_time(10, std::time::Duration::from_millis(500), || {
        a.par_chunks_mut(chunk)
            .zip(b.par_chunks(chunk))
            .zip(c.par_chunks(chunk))
            .for_each(|((a, b), c)| {
                for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
                    *a = b + s * c;
                }
            });
    });
    std::hint::black_box(&a);
    gbps(3 * 8 * n, t)
}
