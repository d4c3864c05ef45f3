//! How long each loop nest of a program takes on the CPU backend: which stage of a fused
//! program the time goes to.
//!
//! A program lowers to stages, one loop nest each (the temporaries a value gathers from, each
//! output domain of a call, docs/architecture.md), and a profile of the compiled code cannot
//! tell them apart (every stage is a closure of one function). Off by default; on where
//! [`enable`] says so or the environment has `GT4RS_STAGE_TIMES=1` when the first call asks.
//! Off, a stage costs one relaxed atomic load more; on, two clock reads and a short lock.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::Stats;

/// Not yet decided (the environment is read at the first call), off, on.
const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;

static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// The stages' times, keyed by the program's module path, static-argument variant and stage.
type Key = (&'static str, &'static str, u32);

struct Entry {
    program: &'static str,
    writes: &'static str,
    stats: Stats,
}

static TIMES: Mutex<BTreeMap<Key, Entry>> = Mutex::new(BTreeMap::new());

/// Turns the timing of CPU stages on or off for the whole process.
pub fn enable(on: bool) {
    STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
}

/// Whether CPU stages are timed (reading `GT4RS_STAGE_TIMES` if [`enable`] was not called).
pub fn enabled() -> bool {
    match STATE.load(Ordering::Relaxed) {
        ON => true,
        OFF => false,
        _ => {
            let on = std::env::var("GT4RS_STAGE_TIMES").is_ok_and(|v| v == "1");
            // A concurrent `enable` wins over the environment.
            let _ = STATE.compare_exchange(
                UNKNOWN,
                if on { ON } else { OFF },
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            STATE.load(Ordering::Relaxed) == ON
        }
    }
}

/// One stage's recorded calls.
#[derive(Clone, Debug, PartialEq)]
pub struct StageTime {
    /// The program's name.
    pub program: &'static str,
    /// The path of the program's module (the same program compiled in two modules, such as
    /// two precisions, is two programs here).
    pub module: &'static str,
    /// Its static arguments' values for this copy of the loops (`is_iau_active=true`), empty
    /// for a program without static arguments.
    pub variant: &'static str,
    /// The stage's position in the program's lowered stages; for stages run tile by tile
    /// together (`gt4rs_ir::tile_groups`), timed as one, the first's.
    pub stage: u32,
    /// The arguments the stage writes, or `temporaries`; for stages run tile by tile together,
    /// `stages A-B in tiles: ` and what they write.
    pub writes: &'static str,
    /// Its durations.
    pub stats: Stats,
}

/// Every stage timed so far, by program, variant and stage.
pub fn times() -> Vec<StageTime> {
    let times = TIMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    times
        .iter()
        .map(|(&(module, variant, stage), entry)| StageTime {
            program: entry.program,
            module,
            variant,
            stage,
            writes: entry.writes,
            stats: entry.stats,
        })
        .collect()
}

/// Forgets every recorded time.
pub fn reset() {
    TIMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clear();
}

/// A table of [`times`]: one row per stage, its calls, mean time and share of its program's
/// variant's time. A program is named with its module's parent (`double::…`).
pub fn table() -> String {
    let times = times();
    let mut totals: BTreeMap<(&str, &str), Duration> = BTreeMap::new();
    for t in &times {
        *totals.entry((t.module, t.variant)).or_default() += t.stats.total;
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<48} {:<40} {:>5} {:>7} {:>10} {:>6}  writes",
        "program", "variant", "stage", "calls", "mean ms", "share"
    );
    for t in &times {
        let total = totals[&(t.module, t.variant)].as_secs_f64();
        let share = if total > 0.0 {
            100.0 * t.stats.total.as_secs_f64() / total
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "{:<48} {:<40} {:>5} {:>7} {:>10.3} {:>5.1}%  {}",
            short_name(t.module, t.program),
            t.variant,
            t.stage,
            t.stats.calls,
            t.stats.mean().as_secs_f64() * 1e3,
            share,
            t.writes
        );
    }
    out
}

/// `program` with the module its own module lies in (`double::nabla4`), or alone.
fn short_name(module: &str, program: &str) -> String {
    let mut segments = module.rsplit("::");
    match (segments.next(), segments.next()) {
        (Some(own), Some(parent)) if own == program => format!("{parent}::{program}"),
        _ => program.to_string(),
    }
}

/// The clock at a stage's start where stages are timed (called by the generated CPU code).
#[doc(hidden)]
#[inline]
pub fn start() -> Option<Instant> {
    enabled().then(Instant::now)
}

/// Records a stage that started at `start` (called by the generated CPU code).
#[doc(hidden)]
#[inline]
pub fn finish(
    start: Option<Instant>,
    module: &'static str,
    program: &'static str,
    variant: &'static str,
    stage: u32,
    writes: &'static str,
) {
    if let Some(start) = start {
        record(start, module, program, variant, stage, writes);
    }
}

/// [`finish`]'s work where stages are timed: kept out of line, so an untimed call pays a
/// branch.
#[cold]
#[inline(never)]
fn record(
    start: Instant,
    module: &'static str,
    program: &'static str,
    variant: &'static str,
    stage: u32,
    writes: &'static str,
) {
    let elapsed = start.elapsed();
    let mut times = TIMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    times
        .entry((module, variant, stage))
        .or_insert(Entry {
            program,
            writes,
            stats: Stats::default(),
        })
        .stats
        .add(elapsed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_only_while_enabled_and_tabulates_shares() {
        reset();
        enable(false);
        finish(
            start(),
            "t::double::p_stages_test",
            "p_stages_test",
            "",
            0,
            "temporaries",
        );
        assert!(times().iter().all(|t| t.program != "p_stages_test"));
        enable(true);
        for stage in [0, 1, 1] {
            let t = start();
            assert!(t.is_some());
            finish(
                t,
                "t::double::p_stages_test",
                "p_stages_test",
                "flag=true",
                stage,
                "out",
            );
        }
        enable(false);
        let ours: Vec<StageTime> = times()
            .into_iter()
            .filter(|t| t.program == "p_stages_test")
            .collect();
        assert_eq!(ours.len(), 2);
        assert_eq!((ours[0].stage, ours[0].stats.calls), (0, 1));
        assert_eq!((ours[1].stage, ours[1].stats.calls), (1, 2));
        let table = table();
        let row = table
            .lines()
            .find(|l| l.starts_with("double::p_stages_test") && l.contains("  out"))
            .expect("a row per stage");
        assert!(row.contains("flag=true"), "{table}");
        assert!(row.contains('%'), "{table}");
    }
}
