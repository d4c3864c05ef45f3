//! `gt4rs verify FILE.npz…`: runs each recorded program call (refs convention, see
//! `refs/icon4py/README.md`) and compares every output with the recorded one.

use crate::cli::stdout::outln;
use std::collections::BTreeMap;
use std::path::Path;

use gt4rs::__private::args::ScalarValue;
use gt4rs::__private::dynamic::{ArgSource, DynArray, DynField};
use gt4rs::{Backend, Connectivities, Error, Options, ScalarType};

use crate::icon::connectivities::{insert_by_name, target_dim};
use crate::programs;
use crate::reference_data::{RefArray, ReferenceData};

/// The comparison of one output.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputCheck {
    pub name: String,
    pub max_abs: f64,
    /// Largest `|got - want| / |want|` over the elements (`want = 0` counts as exact only when
    /// `got` is exactly 0).
    pub max_rel: f64,
    pub pass: bool,
}

/// What happened to one file.
#[derive(Debug)]
pub enum FileOutcome {
    Checked {
        program: String,
        outputs: Vec<OutputCheck>,
    },
    /// The file could not be run; the message says why.
    Unrunnable(String),
}

impl FileOutcome {
    pub fn passed(&self) -> bool {
        matches!(self, FileOutcome::Checked { outputs, .. } if outputs.iter().all(|o| o.pass))
    }
}

/// Verifies every file, printing a report; returns whether all passed.
pub fn run(files: &[String], backend: Backend, rtol: f64) -> bool {
    let mut all_passed = true;
    for file in files {
        let outcome = verify_file(Path::new(file), backend, rtol);
        print_outcome(file, &outcome, backend);
        all_passed &= outcome.passed();
    }
    all_passed
}

fn print_outcome(file: &str, outcome: &FileOutcome, backend: Backend) {
    match outcome {
        FileOutcome::Checked { program, outputs } => {
            let verdict = if outcome.passed() { "PASS" } else { "FAIL" };
            outln!("{verdict} {file} ({program}, {} backend)", backend.name());
            for o in outputs {
                outln!(
                    "  {:<4} {:<48} max abs err {:.3e}  max rel err {:.3e}",
                    if o.pass { "ok" } else { "FAIL" },
                    o.name,
                    o.max_abs,
                    o.max_rel
                );
            }
        }
        FileOutcome::Unrunnable(why) => outln!("FAIL {file}: cannot run: {why}"),
    }
}

/// Runs one file. Never panics: every problem becomes [`FileOutcome::Unrunnable`].
pub fn verify_file(path: &Path, backend: Backend, rtol: f64) -> FileOutcome {
    verify_file_with(path, &Options::new(backend), rtol)
}

/// [`verify_file`] with the program compiled with `options` (the file's neighbour tables are
/// added to them), e.g. the CUDA backend on a host emulator.
pub fn verify_file_with(path: &Path, options: &Options, rtol: f64) -> FileOutcome {
    match try_verify(path, options, rtol) {
        Ok(outcome) => outcome,
        Err(why) => FileOutcome::Unrunnable(why),
    }
}

/// The registry a file's program is looked up in: ICON4Py's `mixed` precision
/// ([`programs::MIXED`]) where its sidecar says `"precision": "mixed"`, else [`programs::ALL`].
fn registry_of(data: &ReferenceData) -> &'static [programs::ProgramEntry] {
    let precision = data
        .sidecar
        .as_ref()
        .and_then(|s| s.get("precision"))
        .and_then(|p| p.as_str());
    match precision {
        Some("mixed") => programs::MIXED,
        _ => programs::ALL,
    }
}

fn try_verify(path: &Path, options: &Options, rtol: f64) -> Result<FileOutcome, String> {
    let data = ReferenceData::load(path).map_err(|e| e.to_string())?;
    let registry = registry_of(&data);
    let entry = registry
        .iter()
        .find(|p| p.name == data.program)
        .ok_or_else(|| {
            format!(
                "unknown program `{}` (gt4rs knows {} programs in this precision; see `gt4rs verify --list`)",
                data.program,
                registry.len()
            )
        })?;
    let options = options
        .clone()
        .with_connectivities(connectivities_of(&data)?);
    let program = (entry.compile)(&options).map_err(|e| e.to_string())?;
    let mut source = FileArgs::new(&data);
    program
        .call_dynamic(&mut source)
        .map_err(|e| e.to_string())?;
    let mut outputs = Vec::new();
    for name in data.output_names() {
        let want = data.expected.get(&name).map_err(|e| e.to_string())?;
        let got = source.outputs.get(&name).ok_or_else(|| {
            format!(
                "the file expects output `{name}`, which `{}` does not write",
                data.program
            )
        })?;
        outputs.push(compare(&name, got, want, rtol)?);
    }
    Ok(FileOutcome::Checked {
        program: data.program.clone(),
        outputs,
    })
}

/// The connectivities of every table in the file.
pub(crate) fn connectivities_of(data: &ReferenceData) -> Result<Connectivities, String> {
    let mut connectivities = Connectivities::new();
    for (name, table) in &data.tables {
        let target = target_size(data, name, &table.table)?;
        insert_by_name(&mut connectivities, name, table.table.clone(), target)
            .map_err(|e| format!("table `{name}`: {e}"))?;
    }
    Ok(connectivities)
}

/// The number of points a table's entries index: from the sidecar's grid sizes when present,
/// else one more than the largest entry.
fn target_size(
    data: &ReferenceData,
    offset: &str,
    table: &ndarray::Array2<i32>,
) -> Result<usize, String> {
    let from_sidecar = target_dim(offset).and_then(|dim| {
        let key = match dim {
            "Cell" => "num_cells",
            "Edge" => "num_edges",
            _ => "num_vertices",
        };
        data.sidecar.as_ref()?.get("grid_sizes")?.get(key)?.as_u64()
    });
    let from_entries = table.iter().copied().max().unwrap_or(-1) + 1;
    match from_sidecar {
        Some(n) if (n as i64) >= from_entries as i64 => Ok(n as usize),
        Some(n) => Err(format!(
            "table `{offset}` holds index {} but the grid has {n} points",
            from_entries - 1
        )),
        None => Ok(from_entries.max(0) as usize),
    }
}

fn compare(name: &str, got: &DynField, want: &RefArray, rtol: f64) -> Result<OutputCheck, String> {
    let (got, want): (Vec<f64>, Vec<f64>) = match (&got.data, want) {
        (DynArray::F64(g), RefArray::Float64(w)) if g.shape() == w.shape() => {
            (g.iter().copied().collect(), w.iter().copied().collect())
        }
        // An f32 output (ICON's mixed-precision vpfloat), widened exactly; the files store
        // every float as float64.
        (DynArray::F32(g), RefArray::Float64(w)) if g.shape() == w.shape() => (
            g.iter().map(|&v| f64::from(v)).collect(),
            w.iter().copied().collect(),
        ),
        (DynArray::I32(g), RefArray::Int32(w)) if g.shape() == w.shape() => (
            g.iter().map(|&v| v as f64).collect(),
            w.iter().map(|&v| v as f64).collect(),
        ),
        (g, w) => {
            return Err(format!(
                "output `{name}`: got {} of shape {:?}, the file holds {} of shape {:?}",
                g.dtype().rust_name(),
                g.shape(),
                w.dtype(),
                w.shape()
            ))
        }
    };
    let (mut max_abs, mut max_rel) = (0.0f64, 0.0f64);
    for (g, w) in got.iter().zip(&want) {
        if g.is_nan() && w.is_nan() {
            continue;
        }
        let abs = (g - w).abs();
        let rel = if abs == 0.0 {
            0.0
        } else if *w == 0.0 {
            f64::INFINITY
        } else {
            abs / w.abs()
        };
        max_abs = max_abs.max(if abs.is_nan() { f64::INFINITY } else { abs });
        max_rel = max_rel.max(if rel.is_nan() { f64::INFINITY } else { rel });
    }
    Ok(OutputCheck {
        name: name.to_string(),
        max_abs,
        max_rel,
        pass: max_rel <= rtol,
    })
}

/// Arguments from a reference file; outputs collected for comparison.
pub(crate) struct FileArgs<'a> {
    data: &'a ReferenceData,
    pub(crate) outputs: BTreeMap<String, DynField>,
}

impl<'a> FileArgs<'a> {
    pub(crate) fn new(data: &'a ReferenceData) -> Self {
        FileArgs {
            data,
            outputs: BTreeMap::new(),
        }
    }
}

impl ArgSource for FileArgs<'_> {
    fn field(&mut self, name: &str, dims: &[&str], dtype: ScalarType) -> Result<DynField, Error> {
        let bad = |message: String| Error::Argument {
            program: self.data.program.clone(),
            arg: name.to_string(),
            message,
        };
        let array = self.data.params.get(name).map_err(|e| bad(e.to_string()))?;
        if array.shape().len() != dims.len() {
            return Err(bad(format!(
                "the file holds shape {:?}, the program expects dimensions ({})",
                array.shape(),
                dims.join(", ")
            )));
        }
        let data = match (array, dtype) {
            (RefArray::Float64(a), ScalarType::F64) => DynArray::F64(a.clone()),
            (RefArray::Float64(a), ScalarType::F32) => DynArray::F32(a.mapv(|v| v as f32)),
            (RefArray::Int32(a), ScalarType::I32) => DynArray::I32(a.clone()),
            (RefArray::Int32(a), ScalarType::I64) => DynArray::I64(a.mapv(i64::from)),
            (RefArray::Bool(a), ScalarType::Bool) => DynArray::Bool(a.clone()),
            (a, t) => {
                return Err(bad(format!(
                    "the file holds {}, the program expects {}",
                    a.dtype(),
                    t.rust_name()
                )))
            }
        };
        Ok(DynField {
            data,
            origin: vec![0; dims.len()],
        })
    }

    fn scalar(&mut self, name: &str, dtype: ScalarType) -> Result<ScalarValue, Error> {
        let bad = |message: String| Error::Argument {
            program: self.data.program.clone(),
            arg: name.to_string(),
            message,
        };
        let array = self.data.params.get(name).map_err(|e| bad(e.to_string()))?;
        if !array.shape().is_empty() {
            return Err(bad(format!(
                "expected a 0-d scalar, the file holds shape {:?}",
                array.shape()
            )));
        }
        let first = |a: &RefArray| -> Option<f64> {
            match a {
                RefArray::Float64(a) => a.iter().next().copied(),
                RefArray::Int32(a) => a.iter().next().map(|&v| v as f64),
                RefArray::Bool(a) => a.iter().next().map(|&v| v as i32 as f64),
            }
        };
        Ok(match (array, dtype) {
            (RefArray::Float64(_), ScalarType::F64) => {
                ScalarValue::F64(first(array).unwrap_or_default())
            }
            (RefArray::Float64(_), ScalarType::F32) => {
                ScalarValue::F32(first(array).unwrap_or_default() as f32)
            }
            (RefArray::Int32(a), ScalarType::I32) => {
                ScalarValue::I32(a.iter().next().copied().unwrap_or_default())
            }
            (RefArray::Int32(a), ScalarType::I64) => {
                ScalarValue::I64(a.iter().next().copied().unwrap_or_default().into())
            }
            (RefArray::Bool(a), ScalarType::Bool) => {
                ScalarValue::Bool(a.iter().next().copied().unwrap_or_default())
            }
            (a, t) => {
                return Err(bad(format!(
                    "the file holds {}, the program expects {}",
                    a.dtype(),
                    t.rust_name()
                )))
            }
        })
    }

    fn output(&mut self, name: &str, value: DynField) -> Result<(), Error> {
        self.outputs.insert(name.to_string(), value);
        Ok(())
    }
}
