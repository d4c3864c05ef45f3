//! A fuzzer of the macro front end, in process: valid items of the corpus (`corpus`), mutated
//! (`mutate`: tokens deleted, swapped, inserted, duplicated, replaced), expanded through the
//! macros' own functions and the chain between them (`chain`). Every case must end in code
//! that parses as Rust, every error in it a `compile_error!` at a span of the input (or, for a
//! path the unit lacks, rustc's "cannot find macro" at the path), and never in a panic, a hang
//! or a stack overflow.
//!
//! A case is reproduced from the campaign's seed and its index alone. The CI test runs 2,000
//! cases from a fixed seed; a long campaign:
//!
//! ```text
//! GT4RS_FUZZ_CASES=100000 GT4RS_FUZZ_SEED=7 cargo test --release -p gt4rs-macros \
//!     fuzz::long_campaign -- --ignored --nocapture
//! ```
//!
//! and one case, with its mutated source: `GT4RS_FUZZ_SEED=7 GT4RS_FUZZ_CASE=1234` on the same
//! test. A case runs on a thread of its own named after it, so a stack overflow names it
//! before the process aborts. Each failure found becomes a test in `regressions`.

mod chain;
mod corpus;
mod mutate;
mod regressions;

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use proc_macro2::{Span, TokenStream, TokenTree};

use chain::{Outcome, Registry};
use corpus::{CorpusItem, Unit};
use mutate::Rng;

/// Longer than any case takes by a wide margin (a few milliseconds each): past it, a hang.
const TIME_LIMIT: Duration = Duration::from_secs(20);

/// A test thread's stack: the macros grow their own where the input decides the depth.
const CASE_STACK: usize = 2 * 1024 * 1024;

/// A unit with the payloads of its unmutated items.
struct PreparedUnit {
    unit: Unit,
    registry: Arc<Registry>,
}

/// Expands every item of `unit` the way rustc's fixpoint does (an item whose chain reaches a
/// definition not yet expanded waits for it) and records their definitions.
fn prepare(unit: Unit) -> Result<PreparedUnit, String> {
    let mut registry = Registry::new();
    let mut waiting: Vec<&CorpusItem> = unit.items.iter().collect();
    while !waiting.is_empty() {
        let mut still = Vec::new();
        for item in &waiting {
            let (attr, tokens) = lex(item)?;
            match chain::expand(item.kind, attr, tokens, &registry)? {
                Outcome::Code { code, .. } => {
                    if let Some(error) = first_error(&code) {
                        return Err(format!(
                            "{}: `{}` has an error: {error}",
                            unit.name, item.name
                        ));
                    }
                    chain::definitions(&code, &mut registry);
                }
                Outcome::Unresolved { .. } => still.push(*item),
            }
        }
        if still.len() == waiting.len() {
            let names: Vec<&str> = still.iter().map(|i| i.name.as_str()).collect();
            return Err(format!("{}: never resolved: {names:?}", unit.name));
        }
        waiting = still;
    }
    Ok(PreparedUnit {
        unit,
        registry: Arc::new(registry),
    })
}

fn lex(item: &CorpusItem) -> Result<(TokenStream, TokenStream), String> {
    let attr = item
        .attr
        .parse()
        .map_err(|e| format!("{}: {e}", item.name))?;
    let tokens = item
        .item
        .parse()
        .map_err(|e| format!("{}: {e}", item.name))?;
    Ok((attr, tokens))
}

/// The message of the first `compile_error!` in `code`.
fn first_error(code: &TokenStream) -> Option<String> {
    let mut errors = Vec::new();
    compile_errors(code, &mut errors);
    errors.into_iter().next().map(|(message, _)| message)
}

/// Every `compile_error! { "message" }` in `code`, with the span it is reported at.
fn compile_errors(code: &TokenStream, out: &mut Vec<(String, Span)>) {
    let tokens: Vec<TokenTree> = code.clone().into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == "compile_error" => {
                let message = tokens.get(i + 2).map(|g| g.to_string()).unwrap_or_default();
                out.push((message, id.span()));
            }
            TokenTree::Group(g) => compile_errors(&g.stream(), out),
            _ => {}
        }
    }
}

/// Whether `span` points into the input (not at the call site, which has no place in it).
fn located(span: Span) -> bool {
    span.byte_range() != (0..0)
}

/// One case: which item, how it was mutated, and what went wrong.
struct Failure {
    case: u64,
    unit: &'static str,
    item: String,
    mutations: Vec<String>,
    source: String,
    problem: String,
}

/// The mutated input of case `case` of campaign `seed` over `units`, with its mutations.
#[derive(Clone, Copy)]
struct Case {
    unit: usize,
    item: usize,
    mutate_attr: bool,
    count: usize,
    seed: u64,
}

impl Case {
    fn new(units: &[PreparedUnit], seed: u64, case: u64) -> Case {
        let mut rng = Rng::new(seed ^ case.wrapping_mul(0x2545_f491_4f6c_dd1d));
        let unit = rng.below(units.len());
        let items = &units[unit].unit.items;
        let item = rng.below(items.len());
        let mutate_attr = !items[item].attr.is_empty() && rng.below(8) == 0;
        let count = 1 + rng.below(3);
        Case {
            unit,
            item,
            mutate_attr,
            count,
            seed: rng.next(),
        }
    }
}

/// Runs case `case` on a thread of its own: `Ok(())`, or what went wrong.
fn run_case(units: &[PreparedUnit], seed: u64, case: u64) -> Result<Ending, Failure> {
    let c = Case::new(units, seed, case);
    let prepared = &units[c.unit];
    let item = prepared.unit.items[c.item].clone();
    let registry = Arc::clone(&prepared.registry);
    let (send, receive) = mpsc::channel();
    let name = format!("fuzz case {case} of seed {seed}");
    let worker = std::thread::Builder::new()
        .name(name)
        .stack_size(CASE_STACK)
        .spawn(move || {
            let mut log = Vec::new();
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                expand_mutated(&item, &c, &registry, &mut log)
            }));
            let result = match result {
                Ok(Ok((source, verdict))) => (source, verdict),
                Ok(Err(e)) => (String::new(), Err(e)),
                Err(panic) => (
                    String::new(),
                    Err(format!("panic: {}", panic_message(&panic))),
                ),
            };
            let _ = send.send((log, result));
        });
    let failure = |mutations, source, problem| Failure {
        case,
        unit: prepared.unit.name,
        item: prepared.unit.items[c.item].name.clone(),
        mutations,
        source,
        problem,
    };
    if let Err(e) = worker {
        return Err(failure(
            Vec::new(),
            String::new(),
            format!("no thread: {e}"),
        ));
    }
    match receive.recv_timeout(TIME_LIMIT) {
        Ok((_, (_, Ok(ending)))) => Ok(ending),
        Ok((log, (source, Err(problem)))) => Err(failure(log, source, problem)),
        Err(_) => Err(failure(
            Vec::new(),
            String::new(),
            format!("no result within {TIME_LIMIT:?}: a hang"),
        )),
    }
}

/// Mutates and expands `item`; the mutated source and the verdict on its expansion.
fn expand_mutated(
    item: &CorpusItem,
    case: &Case,
    registry: &Registry,
    log: &mut Vec<String>,
) -> Result<(String, Result<Ending, String>), String> {
    let (mut attr, mut tokens) = lex(item)?;
    let mut rng = Rng::new(case.seed);
    if case.mutate_attr {
        attr = mutate::mutate(attr, case.count, &mut rng, log);
    } else {
        tokens = mutate::mutate(tokens, case.count, &mut rng, log);
    }
    let source = format!("attr: {attr}\nitem: {tokens}");
    let verdict =
        chain::expand(item.kind, attr, tokens, registry).and_then(|outcome| judge(&outcome));
    Ok((source, verdict))
}

/// Whether an expansion ended as it must.
fn judge(outcome: &Outcome) -> Result<Ending, String> {
    match outcome {
        Outcome::Unresolved { name, span } if !located(*span) => Err(format!(
            "a hop to `{name}`, which the unit lacks, at a span outside the input"
        )),
        Outcome::Unresolved { .. } => Ok(Ending::Unresolved),
        Outcome::Code { code, hops } => {
            if let Err(e) = syn::parse2::<syn::File>(code.clone()) {
                return Err(format!("the expansion is not Rust items: {e}"));
            }
            let mut errors = Vec::new();
            compile_errors(code, &mut errors);
            // Before any hop the call site is the user's macro call (rustc points there);
            // after one it is a `__collect!` inside another item's definition macro.
            if let Some((message, _)) = errors.iter().find(|(_, span)| *hops > 0 && !located(*span))
            {
                return Err(format!(
                    "an error at the call site of hop {hops}, not in the input: {message}"
                ));
            }
            Ok(match (errors.is_empty(), *hops) {
                (true, _) => Ending::Compiled,
                (false, 0) => Ending::RejectedBeforeChecking,
                (false, _) => Ending::RejectedByChecker,
            })
        }
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(not a string)".into())
}

/// How a case that went as it must ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// Code without errors: the mutation left a valid item.
    Compiled,
    /// Errors before any definition was collected (mostly syntax).
    RejectedBeforeChecking,
    /// Errors after collecting: the checker's (or the emitters').
    RejectedByChecker,
    /// A path the unit does not define: rustc's "cannot find macro".
    Unresolved,
}

/// What a campaign did.
struct Report {
    cases: u64,
    failures: Vec<Failure>,
    /// How many cases ended each way.
    endings: Vec<(Ending, u64)>,
    elapsed: Duration,
}

/// Runs `cases` cases of campaign `seed` (or only case `only`) on every core.
fn campaign(seed: u64, cases: u64, only: Option<u64>) -> Report {
    let started = Instant::now();
    let units: Vec<PreparedUnit> =
        match corpus::units().and_then(|u| u.into_iter().map(prepare).collect()) {
            Ok(units) => units,
            Err(e) => panic!("the corpus does not expand cleanly: {e}"),
        };
    let indices: Vec<u64> = match only {
        Some(case) => vec![case],
        None => (0..cases).collect(),
    };
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let units = &units;
    let results = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|job| {
                let mine: Vec<u64> = indices.iter().copied().skip(job).step_by(jobs).collect();
                scope.spawn(move || {
                    mine.into_iter()
                        .map(|case| run_case(units, seed, case))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect::<Vec<_>>()
    });
    let mut endings: Vec<(Ending, u64)> = Vec::new();
    let mut failures = Vec::new();
    for result in results {
        match result {
            Ok(ending) => match endings.iter_mut().find(|(e, _)| *e == ending) {
                Some((_, n)) => *n += 1,
                None => endings.push((ending, 1)),
            },
            Err(failure) => failures.push(failure),
        }
    }
    Report {
        cases: indices.len() as u64,
        failures,
        endings,
        elapsed: started.elapsed(),
    }
}

/// Panics with every failure of `report`, each with how to reproduce it.
fn assert_clean(report: &Report, seed: u64) {
    let mut text = String::new();
    for f in &report.failures {
        text.push_str(&format!(
            "\ncase {} of seed {seed} (GT4RS_FUZZ_SEED={seed} GT4RS_FUZZ_CASE={}): `{}` of unit `{}`\n  \
             mutations: {}\n  problem: {}\n  source: {}\n",
            f.case,
            f.case,
            f.item,
            f.unit,
            f.mutations.join("; "),
            f.problem,
            f.source
        ));
    }
    assert!(
        report.failures.is_empty(),
        "{} of {} cases failed:{text}",
        report.failures.len(),
        report.cases
    );
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

#[test]
fn the_corpus_expands_without_errors() {
    let units = corpus::units().unwrap_or_else(|e| panic!("{e}"));
    let items: usize = units.iter().map(|u| u.items.len()).sum();
    eprintln!("{items} items in {} units", units.len());
    assert!(items > 100, "only {items} items in the corpus");
    for unit in units {
        if let Err(e) = prepare(unit) {
            panic!("{e}");
        }
    }
}

#[test]
fn the_corpus_holds_every_source_file() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (dir, listed) in corpus::files() {
        let mut present: Vec<String> = std::fs::read_dir(workspace.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().into_string().ok()?;
                Some(name.strip_suffix(".rs")?.to_string())
            })
            .filter(|name| name != "common")
            .collect();
        present.sort();
        let mut listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
        listed.sort();
        assert_eq!(
            present, listed,
            "the fuzz corpus lists other files than {dir} holds"
        );
    }
}

#[test]
fn the_front_end_survives_2000_mutations() {
    let seed = 20_250_601;
    let report = campaign(seed, 2000, None);
    eprintln!(
        "{} cases in {:?}: {:?}",
        report.cases, report.elapsed, report.endings
    );
    assert_clean(&report, seed);
}

#[test]
#[ignore = "a long campaign: GT4RS_FUZZ_CASES (100000), GT4RS_FUZZ_SEED, GT4RS_FUZZ_CASE"]
fn long_campaign() {
    let seed = env_u64("GT4RS_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs())
    });
    let cases = env_u64("GT4RS_FUZZ_CASES").unwrap_or(100_000);
    let only = env_u64("GT4RS_FUZZ_CASE");
    eprintln!("seed {seed}: {cases} cases");
    let report = campaign(seed, cases, only);
    eprintln!(
        "seed {seed}: {} cases in {:?}, {} failed; the others ended {:?}",
        report.cases,
        report.elapsed,
        report.failures.len(),
        report.endings
    );
    if only.is_some() {
        // One case: show what it expanded, failed or not.
        let units: Vec<PreparedUnit> = corpus::units()
            .and_then(|u| u.into_iter().map(prepare).collect())
            .unwrap_or_else(|e| panic!("{e}"));
        let case = Case::new(&units, seed, only.unwrap_or_default());
        let item = &units[case.unit].unit.items[case.item];
        let mut log = Vec::new();
        if let Ok((source, verdict)) =
            expand_mutated(item, &case, &units[case.unit].registry, &mut log)
        {
            eprintln!(
                "`{}` ({:?})\n{}\n{source}\n{verdict:?}",
                item.name, log, units[case.unit].unit.name
            );
        }
    }
    assert_clean(&report, seed);
}
