//! Build time against operator size: for each shape of `gt4rs_benches::sizes` (a chain of
//! `let`s each used twice, one long chain of operations, operators calling each other) at
//! doubling sizes, a crate holding the operators and a program that uses them is generated and
//! built (`cargo rustc --release`, its dependencies already built), and two times are kept:
//! rustc's own `macro_expand_crate` (from `-Z time-passes`, unlocked on a stable compiler by
//! `RUSTC_BOOTSTRAP=1`), the time of every gt4rs macro and the rest of expansion, and the
//! wall time of the whole build of that crate. A least-squares fit of log(time) against
//! log(size) per shape gives the exponent of the growth (1: linear); for the whole build, of the
//! time beyond that of a crate with an operator of three statements (cargo, rustc's start, the
//! link), which no operator size changes.
//!
//! `cargo bench -p gt4rs-benches --bench build_size` (a few minutes; `GT4RS_SIZE_QUICK=1` runs the
//! two smallest sizes of each shape only). The generated crates and their target directory are
//! under `target/build-size`. They build without debuginfo, as the figures before the CPU
//! emitter's one scope per block did (with it, LLVM overflowed its stack on kernels of several
//! thousand `let`s; docs/reliability.md), so that the figures stay comparable.
//!
//! Unlike the other benchmarks this one is not timed with criterion: each figure is one build
//! of a generated crate (seconds to minutes) and rustc's own account of it, while criterion
//! repeats a closure at least ten times per case and measures wall time only. What matters here
//! is the growth over doubling sizes, fitted across the sizes of one run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use gt4rs_benches::sizes::Shape;

/// A family of shapes: its label, its sizes and the shape of each size.
type Family = (&'static str, &'static [usize], fn(usize) -> Shape);

/// The shapes and the sizes each is built at.
fn cases(quick: bool) -> Vec<(&'static str, Vec<Shape>)> {
    let calls = |operators| Shape::Calls {
        operators,
        statements: 25,
    };
    let families: [Family; 3] = [
        ("lets", &[125, 250, 500, 1000, 2000], Shape::Lets),
        ("chain", &[250, 500, 1000, 2000, 4000], Shape::Chain),
        ("calls (x 25 statements)", &[12, 25, 50, 100], calls),
    ];
    let take = if quick { 2 } else { usize::MAX };
    families
        .into_iter()
        .map(|(label, sizes, shape)| {
            let shapes = sizes.iter().take(take).map(|&n| shape(n));
            (label, shapes.collect())
        })
        .collect()
}

struct Timing {
    size: usize,
    expansion_s: f64,
    build_s: f64,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Writes the crate of `shape` under `root` and returns its directory.
fn generate(root: &Path, shape: Shape) -> std::io::Result<PathBuf> {
    let name = format!("size-{}", shape.operator().replace('_', "-"));
    let dir = root.join(&name);
    std::fs::create_dir_all(dir.join("src"))?;
    let runtime = workspace().join("runtime");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\ngt4rs = {{ path = {runtime:?} }}\n\n\
             [profile.release]\ndebug = false\n\n[workspace]\n"
        ),
    )?;
    // The workspace's versions of every dependency, so they build once for all crates.
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock"))?;
    let source = format!(
        "#![allow(dead_code)]\nuse gt4rs::prelude::*;\n\ngt4rs::dimensions! {{ pub Edge: horizontal; pub K: vertical; }}\n\n{}",
        shape.source()
    );
    std::fs::write(dir.join("src/lib.rs"), source)?;
    Ok(dir)
}

/// Builds the crate in `dir` into `target`; (macro expansion, whole build) in seconds.
fn build(dir: &Path, target: &Path) -> Result<(f64, f64), String> {
    let started = Instant::now();
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("RUSTC_BOOTSTRAP", "1")
        .args([
            "rustc",
            "--release",
            "--offline",
            "--lib",
            "--",
            "-Z",
            "time-passes",
        ])
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    let build_s = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("{} failed:\n{stderr}", dir.display()));
    }
    let expansion_s = stderr
        .lines()
        .filter(|l| l.trim_end().ends_with("\tmacro_expand_crate"))
        .filter_map(|l| {
            l.strip_prefix("time:")?
                .split(';')
                .next()?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .next_back()
        .ok_or_else(|| format!("no macro_expand_crate time in:\n{stderr}"))?;
    Ok((expansion_s, build_s))
}

/// The slope of log(y) against log(x), least squares.
fn exponent(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let logs: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
    let (mx, my) = logs
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x / n, b + y / n));
    let sxy: f64 = logs.iter().map(|&(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = logs.iter().map(|&(x, _)| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

fn main() {
    let quick = std::env::var_os("GT4RS_SIZE_QUICK").is_some();
    let root = workspace().join("target/build-size");
    let target = root.join("target");
    // Builds gt4rs and its dependencies once, untimed.
    let warm = generate(&root, Shape::Lets(2))
        .map_err(|e| format!("cannot write the warm-up crate: {e}"))
        .and_then(|dir| build(&dir, &target));
    if let Err(e) = warm {
        panic!("{e}");
    }
    let baseline = generate(&root, Shape::Lets(3))
        .map_err(|e| e.to_string())
        .and_then(|dir| build(&dir, &target))
        .map_or_else(|e| panic!("{e}"), |(_, build_s)| build_s);
    println!("A crate with an operator of 3 statements builds in {baseline:.2} s.\n");
    println!("| shape | size | macro expansion (s) | whole build (s) |");
    println!("|---|---:|---:|---:|");
    let mut fits = Vec::new();
    for (label, shapes) in cases(quick) {
        let mut timings = Vec::new();
        for shape in shapes {
            let dir = generate(&root, shape).unwrap_or_else(|e| panic!("{e}"));
            let (expansion_s, build_s) = build(&dir, &target).unwrap_or_else(|e| panic!("{e}"));
            println!(
                "| {label} | {} | {expansion_s:.2} | {build_s:.2} |",
                shape.size()
            );
            timings.push(Timing {
                size: shape.size(),
                expansion_s,
                build_s,
            });
        }
        let expansion: Vec<(f64, f64)> = timings
            .iter()
            .map(|t| (t.size as f64, t.expansion_s))
            .collect();
        let whole: Vec<(f64, f64)> = timings
            .iter()
            .map(|t| (t.size as f64, (t.build_s - baseline).max(1e-3)))
            .collect();
        fits.push((label, exponent(&expansion), exponent(&whole)));
    }
    println!();
    println!(
        "| shape | exponent of macro expansion | exponent of whole build beyond 3 statements |"
    );
    println!("|---|---:|---:|");
    for (label, e, b) in fits {
        println!("| {label} | {e:.2} | {b:.2} |");
    }
}
