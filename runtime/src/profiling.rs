//! Per-program timers (init and run kept apart) and a Chrome trace that opens in Perfetto.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::Error;

pub mod stages;

/// Durations of one program's calls of one phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// How many calls were recorded.
    pub calls: u64,
    /// Their summed duration.
    pub total: Duration,
    /// The shortest.
    pub min: Duration,
    /// The longest.
    pub max: Duration,
}

impl Stats {
    fn add(&mut self, d: Duration) {
        if self.calls == 0 || d < self.min {
            self.min = d;
        }
        self.max = self.max.max(d);
        self.calls += 1;
        self.total += d;
    }
    /// The mean duration ([`Duration::ZERO`] where there was no call).
    pub fn mean(&self) -> Duration {
        if self.calls == 0 {
            Duration::ZERO
        } else {
            self.total / self.calls as u32
        }
    }
}

/// Which part of a program's life a timing belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// Set-up: `compile()`, first uploads, initial steps.
    Init,
    /// Calls of a time step.
    Run,
}

struct TraceEvent {
    name: String,
    phase: Phase,
    start: Duration,
    duration: Duration,
}

#[derive(Default)]
struct Records {
    stats: BTreeMap<(String, Phase), Stats>,
    order: Vec<String>,
    trace: Vec<TraceEvent>,
}

/// Collects timings of named regions. Cheap: one `Instant::now()` pair and a short lock per
/// region; tracing keeps every event in memory until written.
pub struct Profiler {
    epoch: Instant,
    trace: bool,
    records: Mutex<Records>,
}

impl Profiler {
    /// `trace`: also keep every event for [`Profiler::write_chrome_trace`].
    pub fn new(trace: bool) -> Self {
        Profiler {
            epoch: Instant::now(),
            trace,
            records: Mutex::new(Records::default()),
        }
    }

    /// Runs `f` and records its duration under `name` and `phase`.
    pub fn time<R>(&self, name: &str, phase: Phase, f: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let result = f();
        self.record(name, phase, start, start.elapsed());
        result
    }

    /// Records a duration measured elsewhere that started at `start`.
    pub fn record(&self, name: &str, phase: Phase, start: Instant, duration: Duration) {
        let mut records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !records.order.iter().any(|n| n == name) {
            records.order.push(name.to_string());
        }
        records
            .stats
            .entry((name.to_string(), phase))
            .or_default()
            .add(duration);
        if self.trace {
            let event = TraceEvent {
                name: name.to_string(),
                phase,
                start: start.saturating_duration_since(self.epoch),
                duration,
            };
            records.trace.push(event);
        }
    }

    /// Every name recorded so far, in first-seen order.
    pub fn names(&self) -> Vec<String> {
        let records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        records.order.clone()
    }

    /// The durations recorded for `name` in `phase`, if any.
    pub fn stats(&self, name: &str, phase: Phase) -> Option<Stats> {
        let records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        records.stats.get(&(name.to_string(), phase)).copied()
    }

    /// A table with one row per name (in first-seen order): init time, then run calls, min, avg,
    /// max and total, in milliseconds.
    pub fn table(&self) -> String {
        let records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let width = records
            .order
            .iter()
            .map(|n| n.len())
            .max()
            .unwrap_or(7)
            .max(7);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<width$} {:>9} {:>7} {:>9} {:>9} {:>9} {:>10}",
            "program", "init ms", "calls", "min ms", "avg ms", "max ms", "total ms"
        );
        for name in &records.order {
            let init = records
                .stats
                .get(&(name.clone(), Phase::Init))
                .map(|s| ms(s.total));
            let run = records
                .stats
                .get(&(name.clone(), Phase::Run))
                .copied()
                .unwrap_or_default();
            let init = init
                .map(|v| format!("{v:.3}"))
                .unwrap_or_else(|| "-".into());
            let _ = writeln!(
                out,
                "{:<width$} {:>9} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>10.3}",
                name,
                init,
                run.calls,
                ms(run.min),
                ms(run.mean()),
                ms(run.max),
                ms(run.total)
            );
        }
        out
    }

    /// Writes the recorded events as a Chrome trace (JSON array of complete events), which
    /// Perfetto and chrome://tracing open.
    pub fn write_chrome_trace(&self, path: &Path) -> Result<(), Error> {
        let records = self
            .records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut json = String::from("[\n");
        for (i, e) in records.trace.iter().enumerate() {
            let cat = match e.phase {
                Phase::Init => "init",
                Phase::Run => "run",
            };
            let _ = write!(
                json,
                "{}{{\"name\":{},\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":1,\"tid\":{}}}",
                if i > 0 { ",\n" } else { "" },
                serde_json::Value::String(e.name.clone()),
                cat,
                e.start.as_secs_f64() * 1e6,
                e.duration.as_secs_f64() * 1e6,
                if e.phase == Phase::Init { 1 } else { 2 }
            );
        }
        json.push_str("\n]\n");
        std::fs::write(path, json).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_and_table_and_trace() {
        let p = Profiler::new(true);
        p.record("a", Phase::Init, Instant::now(), Duration::from_millis(3));
        for ms in [1, 4, 2] {
            p.record("a", Phase::Run, Instant::now(), Duration::from_millis(ms));
        }
        let s = p.stats("a", Phase::Run).expect("recorded");
        assert_eq!(s.calls, 3);
        assert_eq!(s.min, Duration::from_millis(1));
        assert_eq!(s.max, Duration::from_millis(4));
        assert_eq!(s.mean(), Duration::from_millis(7) / 3);
        let table = p.table();
        assert!(
            table.lines().nth(1).expect("row").starts_with("a "),
            "{table}"
        );
        let path = std::env::temp_dir().join(format!("gt4rs-trace-{}.json", std::process::id()));
        p.write_chrome_trace(&path).expect("writable temp dir");
        let text = std::fs::read_to_string(&path).expect("just written");
        let parsed: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(parsed.as_array().map(|a| a.len()), Some(4));
        assert_eq!(parsed[0]["ph"], "X");
        let _ = std::fs::remove_file(path);
    }
}
