//! The Fortran driver (`fortran/driver/`) built with gfortran against the static library and
//! the generated Fortran module, then run: the granule's steps through the C ABI bit-identical
//! to the Rust run, the verification mode, the overhead of a 1-point call, the cost of
//! `diffusion_run` from Fortran, and bad input. Needs gfortran: feature `fortran` (run by
//! `.ci/run`), `cargo test --release -p gt4rs-icon --features fortran`.
#![cfg(feature = "fortran")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::Duration;

/// The folder holding `libgt4rs_icon.a` built from the code this test links.
///
/// `cargo test` builds the library with all its crate types for this test, the static library
/// beside the rlib, under a name without a hash in `deps/`: that file is this test's library as long as no
/// later build (other features) has replaced it, which would make it newer than this test's
/// executable (its entries would then disagree with the bindings this test writes). Only then is
/// it built again here, with the package's own features (which rebuilds the crates below it).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/<test>")
        .to_path_buf();
    // Cargo leaves the library it built for the test in `deps/` (it copies up to
    // `target/<profile>` only what a `cargo build` asked for).
    let deps = exe.parent().expect("target/<profile>/deps").to_path_buf();
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let built_for_this_test = modified(&deps.join("libgt4rs_icon.a"))
        .zip(modified(&exe))
        .is_some_and(|(lib, exe)| lib <= exe);
    if built_for_this_test {
        return deps;
    }
    let target_dir = profile_dir.parent().expect("target/<profile>");
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TARGET_DIR", target_dir)
        .args([
            "build",
            "-p",
            "gt4rs-icon",
            "--lib",
            "--features",
            "fortran",
        ]);
    if profile_dir.file_name().is_some_and(|p| p == "release") {
        build.arg("--release");
    }
    run(&mut build);
    assert!(
        profile_dir.join("libgt4rs_icon.a").exists(),
        "no libgt4rs_icon.a in {}",
        profile_dir.display()
    );
    profile_dir
}

/// Runs `command` to its end (at most `LIMIT`: a driver that hangs fails the test, it does not
/// hold up CI); its output, or a failure with it.
fn run(command: &mut Command) -> String {
    const LIMIT: Duration = Duration::from_secs(600);
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    let pid = child.id();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    let output = match finished.recv_timeout(LIMIT) {
        Ok(output) => output.unwrap_or_else(|e| panic!("{command:?}: {e}")),
        Err(_) => {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            panic!("{command:?} ran longer than {LIMIT:?} and was stopped");
        }
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{command:?} failed:\n{text}");
    text
}

/// The static library's folder and a folder holding the bindings written for it, made once per
/// test process.
fn prepared() -> &'static (PathBuf, PathBuf) {
    static PREPARED: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    PREPARED.get_or_init(|| {
        let lib = library_dir();
        let build = lib.join("fortran-driver");
        gt4rs_icon::gt4rs_icon::LIBRARY
            .write(&build, &lib, env!("CARGO_PKG_VERSION"))
            .expect("bindings written");
        (lib, build)
    })
}

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("driver")
}

/// Compiles the module and the driver with gfortran and links them with the static library,
/// once per test process; the driver's path.
fn driver() -> &'static Path {
    static DRIVER: OnceLock<PathBuf> = OnceLock::new();
    DRIVER.get_or_init(|| {
        let (lib, build) = prepared();
        let sources = sources();
        let mut compile = Command::new("gfortran");
        compile
            .current_dir(build)
            .args([
                "-O2",
                "-std=f2018",
                "-Wall",
                "-Werror",
                "-Wno-compare-reals",
                "-o",
                "driver",
            ])
            .arg(build.join("gt4rs_icon.f90"))
            .arg(sources.join("main_job_arrays.f90"))
            .arg(sources.join("icon_loops.f90"))
            .arg(sources.join("driver.f90"))
            .arg(lib.join("libgt4rs_icon.a"))
            .args(gt4rs::ffi::bindings::SYSTEM_LIBS.split_whitespace());
        run(&mut compile);
        build.join("driver")
    })
}

/// Runs the driver; one run at a time, so the timed modes have the machine to themselves.
fn driver_run(args: &[&str]) -> String {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let text = run(Command::new(driver()).args(args));
    println!("driver {}:\n{text}", args.join(" "));
    text
}

/// Item 4: N steps of `diffusion_run` from Fortran, on ICON-shaped arrays with `nproma`
/// padding, give every prognostic field bit for bit as the Rust run of the same job; the
/// padding rows stay untouched.
#[test]
fn diffusion_run_from_fortran_is_bit_identical_to_rust() {
    let text = driver_run(&["compare", "2", "2", "12", "4"]);
    for field in ["vn", "w", "theta_v", "exner"] {
        assert!(text.contains(&format!("{field}: bit-identical")), "{text}");
    }
    // The steps did something: the comparison is not of two untouched states.
    let change: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("vn changed by "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no change of vn reported:\n{text}"));
    assert!(change > 1e-3, "vn changed by {change} m/s only:\n{text}");
}

/// Item 5: ICON's own loops of `calculate_nabla4` and `apply_diffusion_to_vn` (both branches)
/// against the programs called from Fortran.
#[test]
fn verification_mode_agrees_with_icons_loops() {
    let text = driver_run(&["verify", "2", "2", "10"]);
    assert!(text.contains("verification passed"), "{text}");
    assert!(text.contains("on sections, bit-identical: T"), "{text}");
}

/// The `ns per call` figure of a line of the overhead report.
fn nanoseconds(text: &str, label: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` in:\n{text}"));
    line[label.len()..]
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no figure in `{line}`"))
}

/// Item 6: a 1-point program call from Fortran costs at most 1 µs more than the same arithmetic
/// as a Fortran subroutine (best of five rounds, both in the same run).
#[test]
fn a_one_point_call_costs_at_most_a_microsecond_more_than_fortran() {
    let text = driver_run(&["overhead", "200000"]);
    let overhead = nanoseconds(&text, "overhead:");
    assert!(overhead <= 1000.0, "{overhead} ns per call:\n{text}");
}

/// Item 6: `diffusion_run` from Fortran against the same steps run from Rust on the same
/// granule and arrays, alternating step by step (the figures of docs/performance.md come from
/// R2B4 x 65); on the small CI grid the median step from Fortran is within 2 % of the median
/// step from Rust.
#[test]
fn diffusion_run_from_fortran_costs_what_the_rust_step_costs() {
    let text = driver_run(&["timing", "2", "3", "20", "40"]);
    let ratio: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("Fortran / Rust (medians):"))
        .and_then(|t| t.trim().trim_end_matches('%').trim().parse().ok())
        .unwrap_or_else(|| panic!("no ratio in:\n{text}"));
    assert!(
        ratio <= 2.0,
        "diffusion_run from Fortran is {ratio} % slower than from Rust:\n{text}"
    );
}

/// Bad input from Fortran: a call before init, a 0-based table, a second init, a size that
/// disagrees, one array for two arguments, a program call before compile, a domain past the
/// output: each a status and a message, and the driver goes on.
#[test]
fn bad_input_from_fortran_is_a_status_and_a_message() {
    let text = driver_run(&["errors"]);
    for needle in [
        "diffusion_run before init: diffusion_run: called before grid_init and diffusion_init",
        "looks like a 0-based table",
        "a second diffusion_init: diffusion_init: the granule is initialised already",
        "`exner` has shape",
        "share memory",
        "calculate_nabla4 before compile:",
        "every bad input was refused with a status and a message",
    ] {
        assert!(text.contains(needle), "`{needle}` missing from:\n{text}");
    }
}

/// A C program includes the generated header, links the static library and calls
/// `calculate_nabla4` (its result bit for bit as the same formula in C), then a call the program
/// refuses (a status and a message).
#[test]
fn a_c_caller_uses_the_generated_header() {
    let (lib, build) = prepared();
    let mut compile = Command::new("cc");
    compile
        .current_dir(build)
        .args([
            "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", "c_driver",
        ])
        .arg("-I")
        .arg(build)
        .arg(sources().join("c_driver.c"))
        .arg(lib.join("libgt4rs_icon.a"))
        .args(gt4rs::ffi::bindings::SYSTEM_LIBS.split_whitespace());
    run(&mut compile);
    let text = run(&mut Command::new(build.join("c_driver")));
    println!("{text}");
    assert!(text.contains("agrees with C, bit for bit"), "{text}");
    assert!(text.contains("refused with status 8"), "{text}");
}

/// The Makefile of docs/fortran.md, as written there, builds a model against the static library
/// through pkg-config (needs make and pkg-config besides gfortran).
#[test]
fn the_documented_makefile_links_a_model() {
    let (lib, _) = prepared();
    let dir = lib.join("fortran-model");
    let _ = std::fs::remove_dir_all(&dir);
    gt4rs_icon::gt4rs_icon::LIBRARY
        .write(&dir.join("include"), lib, env!("CARGO_PKG_VERSION"))
        .expect("bindings written");
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/fortran.md"))
            .expect("docs/fortran.md");
    let makefile = doc
        .split("```make\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a make block in docs/fortran.md");
    std::fs::write(dir.join("Makefile"), makefile).expect("Makefile written");
    std::fs::copy(sources().join("model.f90"), dir.join("model.f90")).expect("model copied");
    run(Command::new("make").current_dir(&dir));
    let text = run(&mut Command::new(dir.join("model")));
    assert!(text.contains("options made: status 0"), "{text}");
    assert!(
        text.contains("backend 7: status 7: gt4rs_icon_options_new: backend 7"),
        "{text}"
    );
}
