//! A STREAM triad (`a = b + s·c`) over rayon, the bandwidth ceiling of this machine.
//!
//! [`Triad`] is one pass, for a benchmark to time next to its kernels (the criterion benches
//! do, so their GB/s compare with a triad of the same run); [`triad_gbps`] times it alone.

use rayon::prelude::*;

use crate::harness::{gbps, median_time};

/// The arrays of a triad over `n` f64 each.
pub struct Triad {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    chunk: usize,
}

impl Triad {
    /// Arrays of `n` f64 (`b` and `c` hold distinct non-zero values).
    pub fn new(n: usize) -> Triad {
        Triad {
            a: vec![0.0; n],
            b: (0..n).map(|i| i as f64 * 0.5).collect(),
            c: (0..n).map(|i| 1.0 + i as f64 * 0.25).collect(),
            chunk: (n / (rayon::current_num_threads() * 8)).max(4096),
        }
    }

    /// One pass: `a = b + 3·c`, in parallel chunks.
    pub fn run(&mut self) {
        let (s, chunk) = (3.0, self.chunk);
        self.a
            .par_chunks_mut(chunk)
            .zip(self.b.par_chunks(chunk))
            .zip(self.c.par_chunks(chunk))
            .for_each(|((a, b), c)| {
                for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
                    *a = b + s * c;
                }
            });
        std::hint::black_box(&self.a);
    }

    /// Bytes one pass moves as STREAM counts them: two arrays read, one written.
    pub fn bytes(&self) -> usize {
        3 * 8 * self.a.len()
    }
}

/// Measures the triad on arrays of `n` f64 and returns GB/s (3 arrays × 8 bytes × n per run:
/// two reads, one write, as STREAM counts it).
pub fn triad_gbps(n: usize) -> f64 {
    let mut triad = Triad::new(n);
    let t = median_time(10, std::time::Duration::from_millis(500), || triad.run());
    gbps(triad.bytes(), t)
}
