//! Timing: warm up, then the median of repeated runs.

use std::time::{Duration, Instant};

/// Runs `f` until `min_time` has passed (at least `min_reps` times) after one warm-up call and
/// returns the median duration of one call.
pub fn median_time(min_reps: usize, min_time: Duration, mut f: impl FnMut()) -> Duration {
    f();
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < min_reps || start.elapsed() < min_time {
        let t = Instant::now();
        f();
        samples.push(t.elapsed());
        if samples.len() > 10_000 {
            break;
        }
    }
    samples.sort();
    samples[samples.len() / 2]
}

/// Effective bandwidth in GB/s (1e9 bytes) of moving `bytes` in `time`.
pub fn gbps(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / time.as_secs_f64() / 1e9
}

/// One row of a comparison table.
pub struct Row {
    pub case: String,
    pub generated: Duration,
    pub hand_written: Duration,
    pub bytes: usize,
}

/// Prints rows with the ratio generated/hand-written and bandwidths against `triad_gbps`.
pub fn print_table(rows: &[Row], triad_gbps: f64) {
    println!(
        "{:<44} {:>10} {:>10} {:>7} {:>9} {:>9} {:>8}",
        "case", "gt4rs ms", "hand ms", "ratio", "gt4rs GB/s", "hand GB/s", "% triad"
    );
    for r in rows {
        let g = gbps(r.bytes, r.generated);
        let h = gbps(r.bytes, r.hand_written);
        println!(
            "{:<44} {:>10.3} {:>10.3} {:>7.3} {:>9.2} {:>9.2} {:>7.1}%",
            r.case,
            r.generated.as_secs_f64() * 1e3,
            r.hand_written.as_secs_f64() * 1e3,
            r.generated.as_secs_f64() / r.hand_written.as_secs_f64(),
            g,
            h,
            100.0 * g / triad_gbps
        );
    }
}
