//! Every ICON program of the registry (`gt4rs_stencils::programs::ALL` in `double`, `MIXED` in
//! `mixed` precision) against the machine's memory bandwidth, on generated global grids × 65
//! levels: milliseconds per call, effective GB/s and the fraction of a STREAM triad measured in
//! the same run, with every rayon thread and with one thread (against the one-thread triad);
//! then one diffusion step of the main job (mountains) over the bytes of all its programs.
//!
//! Bytes of a call: each field parameter's whole array once (twice for a field read and
//! written), each neighbour table the program uses once; scalars are not counted. A call whose
//! domain covers less than 95 % of its output says so (`[domain N%]`): it moves less than that
//! count, so its GB/s overstate. A call takes
//! ICON's domain on the grid (`gt4rs_stencils::icon::calls::icon_calls`, every value of each
//! static argument) with seeded random inputs, and its time is the median of `--calls` calls
//! after one warm-up call, its arguments converted once (`DynProgram::call_dynamic_timed`).
//!
//! `cargo bench -p gt4rs-benches --bench roofline [-- --grids r2b4,r2b5 --calls 20
//!  --precision double,mixed --programs NAME,… --setup N --no-step --step-only --stages]`;
//! `--stages` also prints how the all-threads calls' time splits over each program's stages
//! (`gt4rs::profiling::stages`); `--setup N` times only the Nth call of each program (its Nth
//! set of static values in `icon_calls`, from 0), to profile one copy of its kernels;
//! `--step-only` times the diffusion step alone (at R2B4, the grid it runs on), counting its
//! programs' bytes without timing them.

use std::collections::BTreeMap;
use std::time::Duration;

use gt4rs::debug::DebugChecks;
use gt4rs::grid::{Grid, IcosahedralGrid};
use gt4rs::profiling::Phase;
use gt4rs::{Backend, Options, ParamKind, ScalarType, Signature};
use gt4rs_benches::harness::{gbps, median_time};
use gt4rs_benches::stream::triad_gbps;
use gt4rs_stencils::diffusion::initial::{diffusion_over, jet_state_over, JetSpec};
use gt4rs_stencils::diffusion::{DiffusionConfig, RunOptions, Terrain, TerrainKind, VerticalGrid};
use gt4rs_stencils::icon::calls::{self, CallArgs, Setup};
use gt4rs_stencils::icon::reference::Call;
use gt4rs_stencils::programs::{ProgramEntry, ALL, MIXED};
use gt4rs_stencils::reference_data::RefArray;
use rayon::ThreadPool;

const LEVELS: usize = 65;
const TRIAD_ELEMENTS: usize = 1 << 25;
const DTIME: f64 = 300.0;

struct Settings {
    grids: Vec<(u32, u32)>,
    calls: usize,
    precisions: Vec<&'static str>,
    programs: Option<Vec<String>>,
    step: bool,
    /// Time only the step: the programs' bytes are counted, their calls not timed.
    step_only: bool,
    /// Also time each program's stages (with all threads) and print them per grid.
    stages: bool,
    /// Time only this one of each program's calls (the static values of `icon_calls`, in its
    /// order), as when profiling one copy of the kernels.
    setup: Option<usize>,
}

fn settings() -> Result<Settings, String> {
    let mut s = Settings {
        grids: vec![(2, 4), (2, 5)],
        calls: 20,
        precisions: vec!["double", "mixed"],
        programs: None,
        step: true,
        step_only: false,
        stages: false,
        setup: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--grids" => {
                s.grids = value("--grids")?
                    .split(',')
                    .map(parse_grid)
                    .collect::<Result<_, _>>()?
            }
            "--calls" => {
                s.calls = value("--calls")?
                    .parse()
                    .map_err(|e| format!("--calls: {e}"))?
            }
            "--precision" => {
                s.precisions = value("--precision")?
                    .split(',')
                    .map(|p| match p {
                        "double" => Ok("double"),
                        "mixed" => Ok("mixed"),
                        other => Err(format!("unknown precision `{other}` (double, mixed)")),
                    })
                    .collect::<Result<_, _>>()?
            }
            "--programs" => {
                s.programs = Some(
                    value("--programs")?
                        .split(',')
                        .map(str::to_string)
                        .collect(),
                )
            }
            "--setup" => {
                s.setup = Some(
                    value("--setup")?
                        .parse()
                        .map_err(|e| format!("--setup: {e}"))?,
                )
            }
            "--no-step" => s.step = false,
            "--step-only" => s.step_only = true,
            "--stages" => s.stages = true,
            // `cargo bench` passes `--bench` to every target.
            "--bench" => {}
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if s.step_only && (!s.step || s.programs.is_some()) {
        return Err("--step-only does not go with --no-step or --programs".to_string());
    }
    if s.step_only {
        // The step runs in double precision on R2B4.
        (s.grids, s.precisions) = (vec![(2, 4)], vec!["double"]);
    }
    if s.calls == 0 {
        return Err("--calls must be at least 1".to_string());
    }
    Ok(s)
}

/// `r2b4` → (2, 4).
fn parse_grid(name: &str) -> Result<(u32, u32), String> {
    let bad = || format!("grid `{name}` is not of the form rNbK");
    let rest = name.strip_prefix('r').ok_or_else(bad)?;
    let (n, k) = rest.split_once('b').ok_or_else(bad)?;
    Ok((n.parse().map_err(|_| bad())?, k.parse().map_err(|_| bad())?))
}

/// Bytes a call moves: each field parameter's array once, twice where it is read and written,
/// and each table the program uses once.
fn traffic(signature: &Signature, call: &Call) -> Result<usize, String> {
    let mut bytes = 0;
    for p in &signature.params {
        let ParamKind::Field { .. } = p.kind else {
            continue;
        };
        let array = call
            .params
            .get(&p.name)
            .map_err(|e| format!("{}: {e}", signature.program))?;
        let elements = match array {
            RefArray::Float64(a) => a.len(),
            RefArray::Int32(a) => a.len(),
            RefArray::Bool(a) => a.len(),
        };
        let size = match p.dtype {
            Some(ScalarType::F64 | ScalarType::I64) => 8,
            Some(ScalarType::F32 | ScalarType::I32) => 4,
            Some(ScalarType::Bool) => 1,
            None => return Err(format!("`{}` has no element type", p.name)),
        };
        let passes = match p.role {
            gt4rs::__private::ir::fieldview::Role::InOut => 2,
            _ => 1,
        };
        bytes += passes * elements * size;
    }
    for offset in &signature.offsets {
        let table = call
            .tables
            .get(offset)
            .ok_or_else(|| format!("{}: no table `{offset}`", signature.program))?;
        bytes += table.table.len() * std::mem::size_of::<i32>();
    }
    Ok(bytes)
}

/// The fraction of its first output's points a call's domain covers (levels, and the
/// horizontal range where the call has one).
fn coverage(signature: &Signature, grid: &Grid, setup: &Setup) -> f64 {
    let levels = (setup.vertical.1 - setup.vertical.0) as f64 / setup.nlev as f64;
    let horizontal_dim = signature
        .params
        .iter()
        .find_map(|p| match (&p.kind, p.role) {
            (ParamKind::Field { dims }, role)
                if role != gt4rs::__private::ir::fieldview::Role::In =>
            {
                dims.first().cloned()
            }
            _ => None,
        });
    let points = horizontal_dim.and_then(|d| calls::extent(grid, &d, setup.nlev).ok());
    let horizontal = match (setup.horizontal, points) {
        ((0, 0), _) | (_, None) => 1.0,
        ((start, end), Some(n)) => (end - start) as f64 / n as f64,
    };
    (levels * horizontal).min(1.0)
}

/// The static values of a setup, for the row's label (`flag=true`).
fn static_label(signature: &Signature, setup: &Setup) -> String {
    let values: Vec<String> = signature
        .params
        .iter()
        .filter(|p| p.is_static)
        .filter_map(|p| {
            let name = p.name.as_str();
            setup
                .flags
                .iter()
                .find(|f| f.0 == name)
                .map(|f| format!("{name}={}", f.1))
                .or_else(|| {
                    setup
                        .ints
                        .iter()
                        .find(|i| i.0 == name)
                        .map(|i| format!("{name}={}", i.1))
                })
        })
        .collect();
    values.join(",")
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median time of `calls` calls (after a warm-up call) of `entry` with `call`'s arguments.
fn time_program(entry: &ProgramEntry, options: &Options, call: &Call, calls: usize) -> Duration {
    let program = (entry.compile)(options).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
    let mut args = CallArgs::new(entry.name, call);
    let times = program
        .call_dynamic_timed(&mut args, calls + 1)
        .unwrap_or_else(|e| panic!("{}: {e}", entry.name));
    median(times[1..].to_vec())
}

struct Machine {
    one_thread: ThreadPool,
    triad_all: f64,
    triad_one: f64,
}

fn percent(gbps: f64, triad: f64) -> f64 {
    100.0 * gbps / triad
}

fn header() {
    println!(
        "{:<70} {:<7} {:>7} | {:>8} {:>7} {:>6} | {:>8} {:>7} {:>6}",
        "program", "prec", "MB", "all ms", "GB/s", "%triad", "1-thr ms", "GB/s", "%triad"
    );
}

fn row(label: &str, precision: &str, bytes: usize, all: Duration, one: Duration, m: &Machine) {
    let (g_all, g_one) = (gbps(bytes, all), gbps(bytes, one));
    println!(
        "{:<70} {:<7} {:>7.1} | {:>8.3} {:>7.2} {:>5.0}% | {:>8.3} {:>7.2} {:>5.0}%",
        label,
        precision,
        bytes as f64 / 1e6,
        all.as_secs_f64() * 1e3,
        g_all,
        percent(g_all, m.triad_all),
        one.as_secs_f64() * 1e3,
        g_one,
        percent(g_one, m.triad_one),
    );
}

/// Every selected program on `grid`; returns the bytes of each program's first call by name
/// (double precision), for the step.
fn programs_on(
    grid: &Grid,
    settings: &Settings,
    machine: &Machine,
) -> Result<BTreeMap<&'static str, usize>, String> {
    let connectivities = calls::connectivities(grid).map_err(|e| e.to_string())?;
    // An options file (`GT4RS_CONFIG`) may tune the CPU kernels, e.g. `cpu.stage_group_chunk`.
    let options = Options::new(Backend::Cpu)
        .with_config_from_env()
        .map_err(|e| e.to_string())?
        .with_connectivities(connectivities);
    let mut bytes_of = BTreeMap::new();
    for (precision, registry) in [("double", ALL), ("mixed", MIXED)] {
        if !settings.precisions.contains(&precision) {
            continue;
        }
        for entry in registry {
            if let Some(only) = &settings.programs {
                if !only.iter().any(|p| p == entry.name) {
                    continue;
                }
            }
            let setups = match calls::icon_calls(entry.name, grid, false, LEVELS) {
                Ok(setups) => setups,
                // The Cartesian programs do not run on an ICON grid.
                Err(calls::CallError::UnknownProgram(_)) => continue,
                Err(e) => return Err(e.to_string()),
            };
            let signature = (entry.compile)(&options)
                .map_err(|e| format!("{}: {e}", entry.name))?
                .signature();
            for (i, setup) in setups.iter().enumerate() {
                if settings.setup.is_some_and(|only| only != i) {
                    continue;
                }
                let call = calls::random_call(&signature, grid, setup, 7 + i as u64)
                    .map_err(|e| e.to_string())?;
                let bytes = traffic(&signature, &call)?;
                if precision == "double" {
                    bytes_of.entry(entry.name).or_insert(bytes);
                }
                if settings.step_only {
                    continue;
                }
                gt4rs::profiling::stages::enable(settings.stages);
                let all = time_program(entry, &options, &call, settings.calls);
                gt4rs::profiling::stages::enable(false);
                let one = machine
                    .one_thread
                    .install(|| time_program(entry, &options, &call, settings.calls));
                let statics = static_label(&signature, setup);
                let mut label = if statics.is_empty() {
                    entry.name.to_string()
                } else {
                    format!("{} ({statics})", entry.name)
                };
                let covered = coverage(&signature, grid, setup);
                if covered < 0.95 {
                    // Whole arrays are counted; the call moves less.
                    label = format!("{label} [domain {:.0}%]", 100.0 * covered);
                }
                row(&label, precision, bytes, all, one, machine);
            }
        }
    }
    Ok(bytes_of)
}

/// One diffusion step of the main job (mountains) with every thread and with one, over the sum
/// of the bytes of the programs it calls (the truly horizontal θ diffusion's scaled to the
/// spans of cells and levels it runs over).
fn step_on(
    grid: &Grid,
    bytes_of: &BTreeMap<&'static str, usize>,
    machine: &Machine,
) -> Result<(), String> {
    let vertical = VerticalGrid::default_for(LEVELS).map_err(|e| e.to_string())?;
    let terrain =
        Terrain::of_kind(TerrainKind::Mountains, grid, &vertical).map_err(|e| e.to_string())?;
    let run = || -> Result<(Duration, usize), String> {
        let options = RunOptions {
            backend: Backend::Cpu,
            debug: DebugChecks::off(),
            trace: false,
        };
        let (mut granule, mut diagnostic) = diffusion_over(
            grid,
            &vertical,
            &terrain,
            DiffusionConfig::default(),
            options,
        )
        .map_err(|e| e.to_string())?;
        let mut state = jet_state_over(grid, &vertical, &terrain, &JetSpec::default())
            .map_err(|e| e.to_string())?;
        granule
            .initial_run(DTIME, &mut state, &mut diagnostic)
            .map_err(|e| e.to_string())?;
        let before: BTreeMap<String, u64> = call_counts(&granule);
        granule
            .run(DTIME, &mut state, &mut diagnostic)
            .map_err(|e| e.to_string())?;
        let mut bytes = 0;
        let steep_points: usize = granule.zdiffusion_spans().iter().map(|s| s.points()).sum();
        let steep_fraction = steep_points as f64 / (grid.num_cells * LEVELS) as f64;
        for (name, calls) in call_counts(&granule) {
            let calls = calls - before.get(&name).copied().unwrap_or(0);
            if calls == 0 {
                continue;
            }
            let Some(&b) = bytes_of.get(name.as_str()) else {
                // `copy_field` (not in the registry) copies w: one half-level cell field read,
                // one written.
                if name == "copy_field" {
                    bytes += calls as usize * 2 * grid.num_cells * (LEVELS + 1) * 8;
                    continue;
                }
                return Err(format!("the step calls `{name}`, which has no byte count"));
            };
            let b = if name == "truly_horizontal_diffusion_nabla_of_theta_over_steep_points" {
                (b as f64 * steep_fraction) as usize
            } else {
                b
            };
            bytes += calls as usize * b;
        }
        let time = median_time(10, Duration::from_secs(3), || {
            granule
                .run(DTIME, &mut state, &mut diagnostic)
                .expect("step runs")
        });
        Ok((time, bytes))
    };
    let (all, bytes) = run()?;
    let (one, _) = machine.one_thread.install(run)?;
    row(
        "diffusion step (main job, mountains; its programs' bytes)",
        "double",
        bytes,
        all,
        one,
        machine,
    );
    Ok(())
}

/// Calls of each program the granule has made in its run phase.
fn call_counts(granule: &gt4rs_stencils::diffusion::Diffusion) -> BTreeMap<String, u64> {
    let profiler = granule.profiler();
    profiler
        .names()
        .into_iter()
        .filter_map(|name| {
            let calls = profiler.stats(&name, Phase::Run)?.calls;
            Some((name, calls))
        })
        // The step's total and the halo exchanges are timed under names with spaces.
        .filter(|(name, _)| !name.contains(' '))
        .collect()
}

fn main() {
    let settings = settings().unwrap_or_else(|e| {
        eprintln!("roofline: {e}");
        std::process::exit(2)
    });
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let triad_all = triad_gbps(TRIAD_ELEMENTS);
    let triad_one = one_thread.install(|| triad_gbps(TRIAD_ELEMENTS));
    let machine = Machine {
        one_thread,
        triad_all,
        triad_one,
    };
    println!(
        "STREAM triad (2^25 doubles): {:.1} GB/s with {} rayon threads, {:.1} GB/s with 1",
        machine.triad_all,
        rayon::current_num_threads(),
        machine.triad_one
    );
    for &(root, bisections) in &settings.grids {
        let grid = IcosahedralGrid::generate(root, bisections).unwrap_or_else(|e| {
            eprintln!("roofline: R{root}B{bisections:02}: {e}");
            std::process::exit(1)
        });
        println!(
            "\nR{root}B{bisections:02} ({} cells, {} edges, {} vertices) x {LEVELS} levels; median of {} calls",
            grid.num_cells, grid.num_edges, grid.num_vertices, settings.calls
        );
        header();
        let result = programs_on(&grid, &settings, &machine).and_then(|bytes_of| {
            let step_wanted = settings.step && settings.programs.is_none();
            if step_wanted
                && settings.precisions.contains(&"double")
                && (root, bisections) == (2, 4)
            {
                step_on(&grid, &bytes_of, &machine)
            } else {
                Ok(())
            }
        });
        if let Err(e) = result {
            eprintln!("roofline: {e}");
            std::process::exit(1)
        }
        if settings.stages {
            println!(
                "\nStages of the calls above with all threads (each call's warm-up included):\n{}",
                gt4rs::profiling::stages::table()
            );
            gt4rs::profiling::stages::reset();
        }
    }
}
