//! The CUDA kernels of every program of the registry (the ICON programs and the Cartesian
//! ones) executed on the host (`gt4rs_tests::cuda_host`) and compared with the CPU backend
//! over whole arrays, bit for bit. ICON programs run with the shared ICON test setup
//! (`support`): on a global R2B2 grid (pentagon rows hold a -1 in V2E, V2C and V2E2V) and on
//! a limited-area cut of R2B3 that keeps its boundary -1 entries, with ICON's calls and value
//! ranges, plus a call over every point for programs that only reduce over neighbours; each
//! call once with its static arguments passed at run time and once with them compiled in
//! (`GT4RS_STATIC_S<param>` defines), each with one of the tunings. Pure outputs are NaN
//! before the run. Skips where g++ is missing.

mod support;

use gt4rs::__private::args::ScalarValue;
use gt4rs::__private::cuda_source::Translation;
use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField};
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::__private::ir::Type;
use gt4rs::{Backend, Options, ParamKind, ScalarType, Signature};
use gt4rs_stencils::icon::reference::Call;
use gt4rs_stencils::programs::{self, ProgramEntry};
use gt4rs_tests::cuda_host::{check_against_cpu, gxx_available, NamedArgs, TUNINGS};
use ndarray::{ArrayD, IxDyn};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use support::{calls_on, connectivities_of, global_grid, limited_area_grid, random_call, TestGrid};

/// The CPU backend and the emulated kernels call the same libm for the same operations in
/// the same order; they agree bit for bit today.
const RTOL: f64 = 0.0;

/// The ICON programs run in this many tests, so that they run in parallel.
const ICON_PARTS: usize = 4;

fn skip() -> bool {
    if gxx_available() {
        return false;
    }
    eprintln!("skipped: no g++");
    true
}

/// Programs over the Cartesian dimensions I and J; all others are ICON's.
fn is_cartesian(t: &Translation) -> bool {
    t.program.params.iter().any(|p| match &p.ty {
        Type::Field { dims, .. } => dims.iter().any(|d| d == "I" || d == "J"),
        _ => false,
    })
}

/// The registry's ICON programs with their place in it (it seeds their inputs).
fn icon_programs() -> Vec<(usize, &'static ProgramEntry)> {
    programs::ALL
        .iter()
        .enumerate()
        .filter(|(_, p)| !is_cartesian(&(p.translation)()))
        .collect()
}

/// The arguments of `call` by name, as a program with `signature` takes them (f64 values
/// rounded for f32 parameters, as `support::CallArgs` hands them to `call_dynamic`).
fn named_args(signature: &Signature, call: &Call) -> NamedArgs {
    let program = signature.program.as_str();
    let mut source = support::CallArgs::new(program, call);
    let mut args = NamedArgs {
        program: program.to_string(),
        ..NamedArgs::default()
    };
    for p in &signature.params {
        let name = p.name.as_str();
        let dtype = p
            .dtype
            .unwrap_or_else(|| panic!("{program}: tuple parameter `{name}`"));
        match &p.kind {
            ParamKind::Field { dims } => {
                let dims: Vec<&str> = dims.iter().map(String::as_str).collect();
                let field = source
                    .field(name, &dims, dtype)
                    .unwrap_or_else(|e| panic!("{e}"));
                args.fields.insert(p.name.clone(), field);
            }
            ParamKind::Scalar => {
                let value = source.scalar(name, dtype).unwrap_or_else(|e| panic!("{e}"));
                args.scalars.insert(p.name.clone(), value);
            }
            ParamKind::Tuple(_) => panic!("{program}: tuple parameter `{name}`"),
        }
    }
    args
}

/// Part `part` of [`ICON_PARTS`] of [`icon_programs`].
fn icon_part(part: usize) -> Vec<(usize, &'static ProgramEntry)> {
    let icon = icon_programs();
    let per_part = icon.len().div_ceil(ICON_PARTS);
    icon.into_iter()
        .skip(part * per_part)
        .take(per_part)
        .collect()
}

/// Runs every call of every ICON program of `part` on `g`: each call once with its static
/// arguments at run time and once with them compiled in, each with another tuning.
fn check_icon_programs(g: &TestGrid, part: usize) {
    let conns = connectivities_of(&g.grid);
    let cpu_options = Options::new(Backend::Cpu).with_connectivities(conns);
    let mut failures = Vec::new();
    for (i, entry) in icon_part(part) {
        let name = entry.name;
        let t = (entry.translation)();
        let signature = Signature::of(t.program);
        let cpu = (entry.compile)(&cpu_options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let statics: Vec<&str> = signature
            .params
            .iter()
            .filter(|p| p.is_static)
            .map(|p| p.name.as_str())
            .collect();
        for (variant, setup) in calls_on(name, g).iter().enumerate() {
            let call = random_call(&signature, &g.grid, setup, 100 * i as u64 + variant as u64);
            let args = named_args(&signature, &call);
            let tuning = TUNINGS[(i + variant) % TUNINGS.len()];
            let mut runs = vec![(cpu_options.clone(), tuning)];
            if !statics.is_empty() {
                let mut compiled_in = cpu_options.clone();
                for s in &statics {
                    compiled_in = match args.scalars[*s] {
                        ScalarValue::Bool(b) => compiled_in.with_static_arg(name, s, b),
                        ScalarValue::I32(v) => compiled_in.with_static_arg(name, s, v),
                        other => panic!("{name}: static `{s}` = {other:?}"),
                    };
                }
                runs.push((compiled_in, TUNINGS[(i + variant + 1) % TUNINGS.len()]));
            }
            for (options, tuning) in runs {
                match check_against_cpu(&*cpu, &entry.compile, &options, &args, &[tuning], RTOL) {
                    Ok(worst) => eprintln!(
                        "{name:<72} {} variant {variant}: agrees (max rel diff {worst:.1e})",
                        g.label
                    ),
                    Err(e) => failures.push(format!("{} variant {variant}: {e}", g.label)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn check_icon_part_on_both_grids(part: usize) {
    if skip() {
        return;
    }
    check_icon_programs(&global_grid(), part);
    check_icon_programs(&limited_area_grid(), part);
}

#[test]
fn the_parts_cover_every_icon_program_and_none_is_empty() {
    let parts: Vec<_> = (0..ICON_PARTS).map(icon_part).collect();
    assert!(parts.iter().all(|p| !p.is_empty()));
    let names = |programs: &[(usize, &ProgramEntry)]| -> Vec<&str> {
        programs.iter().map(|(_, p)| p.name).collect()
    };
    assert_eq!(names(&parts.concat()), names(&icon_programs()));
}

#[test]
fn icon_programs_part_1_agree_with_the_cpu_backend() {
    check_icon_part_on_both_grids(0);
}

#[test]
fn icon_programs_part_2_agree_with_the_cpu_backend() {
    check_icon_part_on_both_grids(1);
}

#[test]
fn icon_programs_part_3_agree_with_the_cpu_backend() {
    check_icon_part_on_both_grids(2);
}

#[test]
fn icon_programs_part_4_agree_with_the_cpu_backend() {
    check_icon_part_on_both_grids(3);
}

/// A Cartesian program on an `ni × nj (× nk)` box, with every tuning.
fn check_cartesian(entry: &ProgramEntry, seed: u64) {
    let name = entry.name;
    let t = (entry.translation)();
    let (ni, nj, nk) = (13usize, 11usize, 7usize);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut args = NamedArgs {
        program: name.to_string(),
        ..NamedArgs::default()
    };
    for p in &t.program.params {
        match (&p.ty, p.role) {
            (Type::Field { dims, .. }, role) => {
                // `vadv` reads `wcon` one point further in I than the domain (`wcon.at(I + 1)`).
                let extra_i = usize::from(name == "vadv" && p.name == "wcon");
                let shape: Vec<usize> = dims
                    .iter()
                    .map(|d| match d.as_str() {
                        "I" => ni + extra_i,
                        "J" => nj,
                        _ => nk,
                    })
                    .collect();
                let data = if role == Role::Out {
                    ArrayD::from_elem(IxDyn(&shape), f64::NAN)
                } else {
                    ArrayD::from_shape_fn(IxDyn(&shape), |_| rng.random_range(-1.0..1.0))
                };
                args.fields.insert(
                    p.name.clone(),
                    DynField {
                        data: DynArray::F64(data),
                        origin: vec![0; shape.len()],
                    },
                );
            }
            (Type::Scalar(ScalarType::I32), _) => {
                let v = match p.name.as_str() {
                    "ni" => ni,
                    "nj" => nj,
                    _ => nk,
                };
                args.scalars
                    .insert(p.name.clone(), ScalarValue::I32(v as i32));
            }
            (Type::Scalar(ScalarType::F64), _) => {
                args.scalars
                    .insert(p.name.clone(), ScalarValue::F64(rng.random_range(0.5..2.0)));
            }
            other => panic!("{name}: unexpected parameter {other:?}"),
        }
    }
    let options = Options::new(Backend::Cpu);
    let cpu = (entry.compile)(&options).unwrap_or_else(|e| panic!("{name}: {e}"));
    check_against_cpu(&*cpu, &entry.compile, &options, &args, &TUNINGS, RTOL)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn cartesian_programs_agree_with_the_cpu_backend() {
    if skip() {
        return;
    }
    let cartesian = programs::ALL
        .iter()
        .filter(|p| is_cartesian(&(p.translation)()));
    let mut checked = 0;
    for (i, entry) in cartesian.enumerate() {
        check_cartesian(entry, 50 + i as u64);
        checked += 1;
    }
    assert!(checked > 0, "no Cartesian program in the registry");
}
