//! Long fuzzing campaigns: `cargo run --release -p gt4rs-fuzz -- --seed S --count N
//! [--batch B] [--no-minimise]`.
//!
//! Generates the programs of seeds `S..S+N` into a scratch crate under `target/fuzz-scratch`
//! (one build per batch of `B` programs, default 200), runs each on every backend through
//! `gt4rs_tests::fuzz::check` and prints the seed of every disagreement. Each disagreement is
//! then minimised: the program's one-step-smaller variants (`Program::shrink_candidates`) are
//! built together and run with the same inputs; the smallest that still disagrees replaces it,
//! until none does. The minimised program's source is printed.

use std::path::{Path, PathBuf};
use std::process::Command;

use gt4rs_fuzz::{preamble, programs_source, Program};

struct Settings {
    seed: u64,
    count: u64,
    batch: u64,
    minimise: bool,
}

fn parse_args() -> Result<Settings, String> {
    let mut settings = Settings {
        seed: 1,
        count: 200,
        batch: 200,
        minimise: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match a.as_str() {
            "--seed" => settings.seed = number("--seed")?,
            "--count" => settings.count = number("--count")?,
            "--batch" => settings.batch = number("--batch")?.max(1),
            "--no-minimise" => settings.minimise = false,
            other => {
                return Err(format!(
                    "unknown argument `{other}` (usage: --seed S --count N [--batch B] [--no-minimise])"
                ))
            }
        }
    }
    Ok(settings)
}

/// The workspace root (this crate's parent folder).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The verdict of one program in a batch.
#[derive(Debug)]
enum Verdict {
    Agree,
    Disagree(String),
}

/// Writes `programs` into the scratch crate, builds it and runs it: one verdict per program,
/// in order, or the build's error.
fn run_batch(programs: &[Program]) -> Result<Vec<(u64, Verdict)>, String> {
    let root = workspace();
    let scratch = root.join("target/fuzz-scratch");
    let src = scratch.join("src");
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    let manifest = format!(
        "[package]\nname = \"gt4rs-fuzz-scratch\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\ngt4rs = {{ path = \"{r}/runtime\" }}\ngt4rs-tests = {{ path = \"{r}/tests\" }}\nndarray = \"0.17\"\n\n\
         [workspace]\n\n# The workspace's release profile, so the build reuses its dependencies.\n[profile.release]\ndebug = 1\n\n[profile.release.package.gt4rs-tests]\ndebug = false\n",
        r = root.display()
    );
    let write = |name: &str, text: &str| {
        std::fs::write(scratch.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    write("Cargo.toml", &manifest)?;
    // The workspace's versions, so the build reuses its dependencies.
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).map_err(|e| e.to_string())?;
    write("Cargo.lock", &lock)?;
    write("src/preamble.rs", &preamble())?;
    write(
        "src/programs.rs",
        &programs_source(
            programs.iter().cloned(),
            "// scratch programs of a campaign\n",
        ),
    )?;
    write(
        "src/main.rs",
        "use gt4rs::prelude::*;\nuse gt4rs_tests::fuzz::{check, Case};\n\ninclude!(\"preamble.rs\");\ninclude!(\"programs.rs\");\n\n\
         fn main() {\n    for case in CASES {\n        let verdict = std::panic::catch_unwind(|| check(case, connectivities))\n            .unwrap_or_else(|_| Err(format!(\"program {} (seed {}) panics\", case.name, case.seed)));\n        match verdict {\n            Ok(()) => println!(\"AGREE {}\", case.name),\n            Err(e) => println!(\"DISAGREE {} {}\", case.name, e.replace('\\n', \" \")),\n        }\n    }\n}\n",
    )?;
    let build = Command::new("cargo")
        .args(["build", "--release", "--quiet"])
        .current_dir(&scratch)
        .env("CARGO_TARGET_DIR", root.join("target"))
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !build.success() {
        return Err(format!(
            "the scratch crate does not build (a generator bug: see {})",
            src.join("programs.rs").display()
        ));
    }
    let out = Command::new(root.join("target/release/gt4rs-fuzz-scratch"))
        .output()
        .map_err(|e| format!("cannot run the scratch program: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut verdicts = Vec::new();
    for (p, line) in programs.iter().zip(stdout.lines()) {
        let verdict = match line.split_once(' ') {
            Some(("AGREE", _)) => Verdict::Agree,
            Some(("DISAGREE", rest)) => Verdict::Disagree(rest.to_string()),
            _ => Verdict::Disagree(format!("unreadable verdict `{line}`")),
        };
        verdicts.push((p.seed, verdict));
    }
    if verdicts.len() < programs.len() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: String = stderr
            .lines()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        return Err(format!(
            "the scratch program stopped after {} of {} programs ({}):\n{tail}",
            verdicts.len(),
            programs.len(),
            out.status
        ));
    }
    Ok(verdicts)
}

/// The smallest variant of `program` that still disagrees, and its message.
fn minimise(mut program: Program, mut message: String) -> (Program, String) {
    for round in 0..30 {
        let mut candidates = program.shrink_candidates();
        candidates.sort_by_key(Program::size);
        candidates.truncate(120);
        for (n, c) in candidates.iter_mut().enumerate() {
            c.tag = Some(round * 1000 + n);
        }
        let verdicts = match run_batch(&candidates) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("minimising stops: {e}");
                break;
            }
        };
        let smaller = candidates
            .into_iter()
            .zip(verdicts)
            .find_map(|(c, (_, v))| match v {
                Verdict::Disagree(m) => Some((c, m)),
                Verdict::Agree => None,
            });
        match smaller {
            Some((c, m)) => {
                eprintln!("  round {round}: size {} → {}", program.size(), c.size());
                program = c;
                message = m;
            }
            None => break,
        }
    }
    (program, message)
}

fn main() {
    let settings = match parse_args() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut disagreements = Vec::new();
    let end = settings.seed.saturating_add(settings.count);
    let mut start = settings.seed;
    while start < end {
        let stop = start.saturating_add(settings.batch).min(end);
        let programs: Vec<Program> = (start..stop).map(Program::generate).collect();
        eprintln!("seeds {start}..{stop}: building and running");
        match run_batch(&programs) {
            Ok(verdicts) => {
                for ((seed, verdict), program) in verdicts.into_iter().zip(programs) {
                    if let Verdict::Disagree(message) = verdict {
                        println!("disagreement: seed {seed}: {message}");
                        disagreements.push((program, message));
                    }
                }
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        start = stop;
    }
    println!(
        "{} programs, {} disagreements",
        settings.count,
        disagreements.len()
    );
    if settings.minimise {
        for (program, message) in disagreements {
            let seed = program.seed;
            eprintln!("minimising seed {seed}");
            let (small, message) = minimise(program, message);
            println!(
                "seed {seed}, minimised ({}): {message}\n{}",
                small.size(),
                small.source()
            );
        }
    }
}
