//! The same-run figures of the benchmarks, on criterion.
//!
//! Each benchmark binary times its cases with criterion (warm-up, samples, outlier analysis,
//! confidence intervals; `--save-baseline`/`--baseline` compare two commits) and then reads back
//! the estimates criterion wrote during this run, to print the ratios the docs quote: a kernel
//! against the hand-written loop, GB/s against the STREAM triad measured in the same run. An
//! estimate left by an earlier run is never used (its file must be newer than this run's
//! start), so every ratio compares two timings of one process.
//!
//! Estimates are criterion's `new/estimates.json` under [`output_dir`], found through the
//! `new/benchmark.json` beside them (which names the group and the function), so the ids need
//! no escaping. Under `cargo test --benches` criterion runs each case once and writes no
//! estimates; the tables then say so instead of printing old figures.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use criterion::Criterion;
use serde_json::Value;

/// Where criterion keeps its estimates: `criterion/` in the workspace's target directory
/// (`CARGO_TARGET_DIR` where set), as `cargo bench` finds it by default.
pub fn output_dir() -> PathBuf {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .map_or_else(|| PathBuf::from("target"), |w| w.join("target")),
    };
    target.join("criterion")
}

/// One benchmark binary's run: its criterion, configured from the command line (filters,
/// `--save-baseline`, `--test`), and the time it started.
pub struct Run {
    /// The criterion the binary benchmarks with.
    pub criterion: Criterion,
    dir: PathBuf,
    started: SystemTime,
}

impl Run {
    /// Starts a run whose estimates go to [`output_dir`].
    pub fn start() -> Run {
        let dir = output_dir();
        Run {
            criterion: Criterion::default()
                .output_directory(&dir)
                .configure_from_args(),
            dir,
            started: SystemTime::now(),
        }
    }

    /// Ends the benchmarks (criterion's summary) and returns what they measured.
    pub fn finish(self) -> Estimates {
        self.criterion.final_summary();
        Estimates {
            dir: self.dir,
            started: self.started,
        }
    }
}

/// The estimates criterion wrote during one run.
pub struct Estimates {
    dir: PathBuf,
    started: SystemTime,
}

impl Estimates {
    /// The median time of one iteration of `function` in `group`, if this run measured it.
    pub fn median(&self, group: &str, function: &str) -> Option<Duration> {
        let new = find_new_dir(&self.dir, group, function)?;
        let path = new.join("estimates.json");
        let modified = fs::metadata(&path).and_then(|m| m.modified()).ok()?;
        if modified < self.started {
            return None;
        }
        let estimates: Value = serde_json::from_str(&fs::read_to_string(path).ok()?).ok()?;
        let nanos = estimates["median"]["point_estimate"].as_f64()?;
        (nanos.is_finite() && nanos > 0.0).then(|| Duration::from_secs_f64(nanos * 1e-9))
    }

    /// [`Estimates::median`] of every function named, or the names this run did not measure.
    pub fn medians<const N: usize>(
        &self,
        group: &str,
        functions: [&str; N],
    ) -> Result<[Duration; N], String> {
        let found = functions.map(|f| self.median(group, f));
        if found.iter().all(Option::is_some) {
            Ok(found.map(|d| d.unwrap_or_default()))
        } else {
            let missing: Vec<String> = functions
                .iter()
                .zip(&found)
                .filter(|(_, d)| d.is_none())
                .map(|(f, _)| format!("{group}/{f}"))
                .collect();
            Err(format!(
                "not measured in this run (filtered out, or `--test`): {}",
                missing.join(", ")
            ))
        }
    }
}

/// The `new/` folder of criterion's results for `group`/`function`: the one whose
/// `benchmark.json` names them.
fn find_new_dir(dir: &Path, group: &str, function: &str) -> Option<PathBuf> {
    for group_dir in fs::read_dir(dir).ok()?.flatten() {
        let Ok(functions) = fs::read_dir(group_dir.path()) else {
            continue;
        };
        for function_dir in functions.flatten() {
            let new = function_dir.path().join("new");
            let Ok(text) = fs::read_to_string(new.join("benchmark.json")) else {
                continue;
            };
            let Ok(id) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if id["group_id"].as_str() == Some(group)
                && id["function_id"].as_str() == Some(function)
            {
                return Some(new);
            }
        }
    }
    None
}

/// Effective bandwidth in GB/s (1e9 bytes) of moving `bytes` in `time`.
pub fn gbps(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / time.as_secs_f64() / 1e9
}
