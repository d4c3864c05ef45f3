//! The differential fuzzer's harness: runs a generated program (`gt4rs_fuzz`) on every
//! configuration of [`crate::backends`] with the same random inputs and tables, and checks
//! that all of them succeed with equal outputs or all fail with the same message.
//!
//! Equal means bit for bit (any NaN equals any NaN), except in programs that apply a
//! transcendental function (`Case::math`). The generator applies one only to an operator's
//! result, so its argument is bit-identical on every backend and the results differ only by
//! the math libraries' error: glibc documents at most 2 ulp for `sin cos exp atan tanh` on
//! x86-64, and CUDA's libdevice at most 2 ulp for them too, so two backends may differ by
//! [`MATH_ULPS`] = 4 ulp of the larger value, in its own type (`f32` or `f64`).

use std::collections::BTreeMap;

use gt4rs::__private::args::ScalarValue;
use gt4rs::__private::dynamic::{DynArray, DynField, DynProgram};
use gt4rs::__private::ir::fieldview::Role;
use gt4rs::{Connectivities, Error, Options, ParamKind, ScalarType};
use gt4rs_fuzz::mesh;
use ndarray::{Array2, ArrayD, IxDyn};
use rand::RngExt;

use crate::cuda_host::NamedArgs;
use crate::{TestRng, TestScalar};

/// The largest difference, in units in the last place, allowed in a program using math
/// functions (see the module's documentation).
pub const MATH_ULPS: f64 = 4.0;

/// A generated program, as the generated files list them.
pub struct Case {
    pub name: &'static str,
    pub seed: u64,
    /// Whether it applies a transcendental function (compared within [`MATH_ULPS`]).
    pub math: bool,
    pub compile: fn(&Options) -> Result<Box<dyn DynProgram>, Error>,
}

/// How a generated file binds tables to its offsets.
pub type Connect = fn(&Tables) -> Result<Connectivities, Error>;

/// Random neighbour tables of the fuzzer's mesh, by offset name: entries in range, -1 only in
/// the tables of offsets that may hold them (each row keeps at least two neighbours).
pub struct Tables {
    tables: BTreeMap<&'static str, (Array2<i32>, usize)>,
}

impl Tables {
    pub fn random(rng: &mut TestRng) -> Tables {
        let mut tables = BTreeMap::new();
        for (name, from, to, count, skips) in mesh::OFFSETS {
            let rows = mesh::extent(from).unwrap_or(0) as usize;
            let target = mesh::extent(to).unwrap_or(0);
            let count = count as usize;
            let mut table =
                Array2::from_shape_fn((rows, count), |_| rng.random_range(0..target) as i32);
            if skips {
                for mut row in table.rows_mut() {
                    for slot in 2..count {
                        if rng.random_range(0..3) == 0 {
                            row[slot] = -1;
                        }
                    }
                    // Not only trailing: the holes move around the row.
                    let turn = rng.random_range(0..count);
                    let mut v: Vec<i32> = row.to_vec();
                    v.rotate_left(turn);
                    row.assign(&ndarray::ArrayView1::from(&v));
                }
            }
            tables.insert(name, (table, target as usize));
        }
        Tables { tables }
    }

    /// Offset `name`'s table and the number of points its entries index.
    pub fn table(&self, name: &str) -> Result<(Array2<i32>, usize), Error> {
        self.tables
            .get(name)
            .cloned()
            .ok_or_else(|| Error::Connectivity {
                offset: name.to_string(),
                message: "the fuzzer's mesh has no such table".into(),
            })
    }
}

/// What one configuration made of a program: its outputs, or its error.
type Outcome = Result<BTreeMap<String, DynArray>, String>;

fn random_array(rng: &mut TestRng, shape: &[usize], dtype: ScalarType) -> DynArray {
    let n: usize = shape.iter().product();
    let shape = IxDyn(shape);
    let build = |v| ArrayD::from_shape_vec(shape.clone(), v).expect("shape of n elements");
    match dtype {
        ScalarType::F64 => DynArray::F64(build((0..n).map(|_| f64::random(rng)).collect())),
        ScalarType::F32 => DynArray::F32(
            ArrayD::from_shape_vec(shape.clone(), (0..n).map(|_| f32::random(rng)).collect())
                .expect("shape of n elements"),
        ),
        ScalarType::I32 => DynArray::I32(
            ArrayD::from_shape_vec(shape.clone(), (0..n).map(|_| i32::random(rng)).collect())
                .expect("shape of n elements"),
        ),
        ScalarType::I64 => DynArray::I64(
            ArrayD::from_shape_vec(shape.clone(), (0..n).map(|_| i64::random(rng)).collect())
                .expect("shape of n elements"),
        ),
        ScalarType::Bool => DynArray::Bool(
            ArrayD::from_shape_vec(shape.clone(), (0..n).map(|_| bool::random(rng)).collect())
                .expect("shape of n elements"),
        ),
    }
}

fn poisoned_array(shape: &[usize], dtype: ScalarType) -> DynArray {
    let shape = IxDyn(shape);
    match dtype {
        ScalarType::F64 => DynArray::F64(ArrayD::from_elem(shape, f64::poison())),
        ScalarType::F32 => DynArray::F32(ArrayD::from_elem(shape, f32::poison())),
        ScalarType::I32 => DynArray::I32(ArrayD::from_elem(shape, i32::poison())),
        ScalarType::I64 => DynArray::I64(ArrayD::from_elem(shape, i64::poison())),
        ScalarType::Bool => DynArray::Bool(ArrayD::from_elem(shape, false)),
    }
}

/// Random arguments for `program`'s signature: inputs random and never zero, outputs poisoned.
fn arguments(program: &dyn DynProgram, rng: &mut TestRng) -> Result<NamedArgs, String> {
    let mut args = NamedArgs {
        program: program.name().to_string(),
        ..NamedArgs::default()
    };
    for p in program.signature().params {
        let dtype = p
            .dtype
            .ok_or_else(|| format!("parameter `{}` has no dtype", p.name))?;
        match p.kind {
            ParamKind::Field { dims } => {
                let shape = dims
                    .iter()
                    .map(|d| mesh::extent(d).map(|n| n as usize))
                    .collect::<Option<Vec<usize>>>()
                    .ok_or_else(|| format!("parameter `{}`: a dimension of no size", p.name))?;
                let data = if p.role == Role::In {
                    random_array(rng, &shape, dtype)
                } else {
                    poisoned_array(&shape, dtype)
                };
                let origin = vec![0; shape.len()];
                args.fields.insert(p.name, DynField { data, origin });
            }
            ParamKind::Scalar => {
                let value = match dtype {
                    ScalarType::F64 => ScalarValue::F64(f64::random(rng)),
                    ScalarType::F32 => ScalarValue::F32(f32::random(rng)),
                    ScalarType::I32 => ScalarValue::I32(i32::random(rng)),
                    other => return Err(format!("a scalar of type {other:?}")),
                };
                args.scalars.insert(p.name, value);
            }
            ParamKind::Tuple(_) => return Err(format!("tuple parameter `{}`", p.name)),
        }
    }
    Ok(args)
}

fn run(case: &Case, options: &Options, args: &NamedArgs) -> Outcome {
    let program = (case.compile)(options).map_err(|e| e.to_string())?;
    let mut got = args.clone();
    program.call_dynamic(&mut got).map_err(|e| e.to_string())?;
    let outputs = program
        .signature()
        .params
        .into_iter()
        .filter(|p| p.role != Role::In)
        .filter_map(|p| got.fields.remove(&p.name).map(|f| (p.name, f.data)))
        .collect();
    Ok(outputs)
}

/// Bitwise equality (any NaN equals any NaN), or within `ulps` units in the last place of a
/// type whose machine epsilon is `epsilon` and least normal value `least` (the values are
/// compared widened to f64).
fn same_float(a: f64, b: f64, ulps: f64, epsilon: f64, least: f64) -> bool {
    if a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) {
        return true;
    }
    if ulps == 0.0 || !a.is_finite() || !b.is_finite() {
        return false;
    }
    let scale = a.abs().max(b.abs()).max(least);
    (a - b).abs() <= ulps * epsilon * scale
}

/// The first point where two outputs differ, or `None`.
fn first_difference(a: &DynArray, b: &DynArray, ulps: f64) -> Option<String> {
    fn first<T: Copy + std::fmt::Debug>(
        a: &ArrayD<T>,
        b: &ArrayD<T>,
        same: impl Fn(T, T) -> bool,
    ) -> Option<String> {
        if a.shape() != b.shape() {
            return Some(format!("shapes {:?} and {:?}", a.shape(), b.shape()));
        }
        a.indexed_iter().zip(b.iter()).find_map(|((ix, &x), &y)| {
            (!same(x, y))
                .then(|| format!("at {:?}: {x:?} and {y:?}", ndarray::Dimension::slice(&ix)))
        })
    }
    match (a, b) {
        (DynArray::F64(a), DynArray::F64(b)) => first(a, b, |x, y| {
            same_float(x, y, ulps, f64::EPSILON, f64::MIN_POSITIVE)
        }),
        (DynArray::F32(a), DynArray::F32(b)) => first(a, b, |x, y| {
            let (x, y) = (f64::from(x), f64::from(y));
            same_float(
                x,
                y,
                ulps,
                f64::from(f32::EPSILON),
                f64::from(f32::MIN_POSITIVE),
            )
        }),
        (DynArray::I32(a), DynArray::I32(b)) => first(a, b, |x, y| x == y),
        (DynArray::I64(a), DynArray::I64(b)) => first(a, b, |x, y| x == y),
        (DynArray::Bool(a), DynArray::Bool(b)) => first(a, b, |x, y| x == y),
        _ => Some("different dtypes".into()),
    }
}

/// Runs `case` on every configuration and compares each with the first (embedded). The error
/// names the program, its seed, the configuration and the first difference.
pub fn check(case: &Case, connect: Connect) -> Result<(), String> {
    let mut rng = crate::rng(case.seed);
    let tables = Tables::random(&mut rng);
    let connectivities = connect(&tables).map_err(|e| format!("{}: tables: {e}", case.name))?;
    let configurations = crate::backends();
    let reference = configurations[0];
    let reference_options = reference.options_with(connectivities.clone());
    // Arguments from the reference's signature (compiling gives it on every backend).
    let args = match (case.compile)(&reference_options) {
        Ok(p) => arguments(p.as_ref(), &mut rng)?,
        Err(_) => NamedArgs::default(),
    };
    let ulps = if case.math { MATH_ULPS } else { 0.0 };
    let want = run(case, &reference_options, &args);
    let context = |config: &str| {
        format!(
            "program {} (seed {}): {config} disagrees with {}",
            case.name,
            case.seed,
            reference.name()
        )
    };
    for config in &configurations[1..] {
        let got = run(case, &config.options_with(connectivities.clone()), &args);
        match (&want, &got) {
            (Err(a), Err(b)) if a == b => {}
            (Err(a), Err(b)) => {
                return Err(format!(
                    "{}: errors `{a}` and `{b}`",
                    context(&config.name())
                ))
            }
            (Err(a), Ok(_)) => {
                return Err(format!(
                    "{}: the reference fails (`{a}`), it succeeds",
                    context(&config.name())
                ))
            }
            (Ok(_), Err(b)) => {
                return Err(format!(
                    "{}: it fails (`{b}`), the reference succeeds",
                    context(&config.name())
                ))
            }
            (Ok(a), Ok(b)) => {
                for (name, x) in a {
                    let y = b.get(name).ok_or_else(|| {
                        format!("{}: no output `{name}`", context(&config.name()))
                    })?;
                    if let Some(d) = first_difference(x, y, ulps) {
                        return Err(format!(
                            "{}: output `{name}` differs {d}",
                            context(&config.name())
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks every case (in parallel, each on one thread) and panics listing every
/// disagreement with its seed. The seeds in `open` are known disagreements (docs/reliability.md,
/// *Open disagreements*): they must still disagree, so that a fix shows here and the program
/// joins the agreeing ones.
pub fn check_all(cases: &[Case], connect: Connect, open: &[u64]) {
    use rayon::prelude::*;
    let failures: Vec<String> = cases
        .par_iter()
        .filter_map(|c| match (check(c, connect), open.contains(&c.seed)) {
            (Err(e), false) => Some(e),
            (Ok(()), true) => Some(format!(
                "program {} (seed {}) is listed as an open disagreement but agrees now: remove it \
                 from the list and from docs/reliability.md",
                c.name, c.seed
            )),
            _ => None,
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} programs disagree:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
