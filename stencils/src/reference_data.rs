//! Loader for reference-data files in the refs convention (see `refs/icon4py/README.md`).
//!
//! One `NAME.npz` holds one complete program call: every parameter under its ICON4Py name with
//! its pre-call value, every output after the call as `out__<param>`, and every neighbour table
//! the program reads under its upper-case offset name. An optional `NAME.json` sidecar describes
//! the call; it is kept as parsed JSON.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use ndarray::{Array2, ArrayD, Ix2};
use ndarray_npy::{NpzReader, ReadNpzError};

/// Prefix that marks an expected output in a reference file.
pub const OUTPUT_PREFIX: &str = "out__";
/// Separator between a program name and its variant in a file stem.
pub const VARIANT_SEPARATOR: &str = "__";

/// Why a reference file or one of its entries could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceDataError {
    #[error("cannot open {path}: {source}")]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a readable .npz archive: {source}")]
    Archive { path: PathBuf, source: ReadNpzError },
    #[error("{path}: array `{name}` has a dtype other than float64, int32, int64 or bool")]
    UnsupportedDtype { path: PathBuf, name: String },
    #[error("{path}: array `{name}` holds int64 value {value} that does not fit in int32")]
    IntegerOutOfRange {
        path: PathBuf,
        name: String,
        value: i64,
    },
    #[error("{path}: file name has no program name")]
    NoProgramName { path: PathBuf },
    #[error("sidecar {path} is not valid JSON: {source}")]
    Sidecar {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("no array named `{name}`")]
    Missing { name: String },
    #[error("array `{name}` is {found}, expected {expected}")]
    WrongDtype {
        name: String,
        found: Dtype,
        expected: Dtype,
    },
    #[error("array `{name}` has shape {found:?}, expected {expected}")]
    WrongShape {
        name: String,
        found: Vec<usize>,
        expected: String,
    },
    #[error("neighbour table `{name}`: {problem}")]
    BadTable { name: String, problem: String },
    #[error("{path}: the sidecar disagrees with the arrays: {problem}")]
    SidecarMismatch { path: PathBuf, problem: String },
}

/// The element type of a stored array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    Float64,
    Int32,
    Bool,
}

impl std::fmt::Display for Dtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dtype::Float64 => "float64",
            Dtype::Int32 => "int32",
            Dtype::Bool => "bool",
        })
    }
}

/// One stored array; 0-d arrays are scalars.
#[derive(Clone, Debug, PartialEq)]
pub enum RefArray {
    Float64(ArrayD<f64>),
    Int32(ArrayD<i32>),
    Bool(ArrayD<bool>),
}

impl RefArray {
    pub fn dtype(&self) -> Dtype {
        match self {
            RefArray::Float64(_) => Dtype::Float64,
            RefArray::Int32(_) => Dtype::Int32,
            RefArray::Bool(_) => Dtype::Bool,
        }
    }

    pub fn shape(&self) -> &[usize] {
        match self {
            RefArray::Float64(a) => a.shape(),
            RefArray::Int32(a) => a.shape(),
            RefArray::Bool(a) => a.shape(),
        }
    }
}

/// A set of named arrays with typed, checked accessors. Used both for a program's parameters
/// and for its expected outputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArraySet {
    arrays: BTreeMap<String, RefArray>,
}

impl ArraySet {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, name: impl Into<String>, array: RefArray) {
        self.arrays.insert(name.into(), array);
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.arrays.keys().map(String::as_str)
    }

    pub fn get(&self, name: &str) -> Result<&RefArray, ReferenceDataError> {
        self.arrays
            .get(name)
            .ok_or_else(|| ReferenceDataError::Missing { name: name.into() })
    }

    pub fn contains(&self, name: &str) -> bool {
        self.arrays.contains_key(name)
    }

    /// Removes and returns an array, e.g. an output that a reference is about to overwrite.
    pub fn take(&mut self, name: &str) -> Result<RefArray, ReferenceDataError> {
        self.arrays
            .remove(name)
            .ok_or_else(|| ReferenceDataError::Missing { name: name.into() })
    }

    /// A float64 array of exactly `ndim` dimensions (0 for a scalar).
    pub fn float64(&self, name: &str, ndim: usize) -> Result<&ArrayD<f64>, ReferenceDataError> {
        match self.get(name)? {
            RefArray::Float64(a) => check_ndim(name, a.shape(), ndim).map(|()| a),
            other => Err(wrong_dtype(name, other, Dtype::Float64)),
        }
    }

    /// An int32 array of exactly `ndim` dimensions.
    pub fn int32(&self, name: &str, ndim: usize) -> Result<&ArrayD<i32>, ReferenceDataError> {
        match self.get(name)? {
            RefArray::Int32(a) => check_ndim(name, a.shape(), ndim).map(|()| a),
            other => Err(wrong_dtype(name, other, Dtype::Int32)),
        }
    }

    pub fn float64_scalar(&self, name: &str) -> Result<f64, ReferenceDataError> {
        first(name, self.float64(name, 0)?)
    }

    pub fn int32_scalar(&self, name: &str) -> Result<i32, ReferenceDataError> {
        first(name, self.int32(name, 0)?)
    }

    pub fn bool_scalar(&self, name: &str) -> Result<bool, ReferenceDataError> {
        match self.get(name)? {
            RefArray::Bool(a) => check_ndim(name, a.shape(), 0).and_then(|()| first(name, a)),
            other => Err(wrong_dtype(name, other, Dtype::Bool)),
        }
    }

    /// Removes a float64 array of `ndim` dimensions so that it can be updated in place.
    pub fn take_float64(
        &mut self,
        name: &str,
        ndim: usize,
    ) -> Result<ArrayD<f64>, ReferenceDataError> {
        self.float64(name, ndim)?;
        match self.take(name)? {
            RefArray::Float64(a) => Ok(a),
            // `float64` above has already checked the dtype.
            other => Err(wrong_dtype(name, &other, Dtype::Float64)),
        }
    }
}

fn first<T: Copy>(name: &str, a: &ArrayD<T>) -> Result<T, ReferenceDataError> {
    a.first()
        .copied()
        .ok_or_else(|| ReferenceDataError::WrongShape {
            name: name.into(),
            found: a.shape().to_vec(),
            expected: "a scalar".into(),
        })
}

fn check_ndim(name: &str, shape: &[usize], ndim: usize) -> Result<(), ReferenceDataError> {
    if shape.len() == ndim {
        Ok(())
    } else {
        Err(ReferenceDataError::WrongShape {
            name: name.into(),
            found: shape.to_vec(),
            expected: format!("{ndim} dimension(s)"),
        })
    }
}

fn wrong_dtype(name: &str, found: &RefArray, expected: Dtype) -> ReferenceDataError {
    ReferenceDataError::WrongDtype {
        name: name.into(),
        found: found.dtype(),
        expected,
    }
}

/// A validated neighbour table: `[n_points, n_neighbours]`, every entry `-1` (skip) or an index.
#[derive(Clone, Debug, PartialEq)]
pub struct NeighborTable {
    pub offset: String,
    pub table: Array2<i32>,
}

impl NeighborTable {
    pub fn new(offset: impl Into<String>, table: Array2<i32>) -> Result<Self, ReferenceDataError> {
        let offset = offset.into();
        if let Some(bad) = table.iter().find(|&&x| x < -1) {
            return Err(ReferenceDataError::BadTable {
                name: offset,
                problem: format!("entry {bad} is neither -1 nor a valid index"),
            });
        }
        Ok(Self { offset, table })
    }

    pub fn width(&self) -> usize {
        self.table.ncols()
    }

    pub fn has_skip_values(&self) -> bool {
        self.table.iter().any(|&x| x == -1)
    }
}

/// One reference call: program name, pre-call parameters, expected outputs and tables.
#[derive(Clone, Debug)]
pub struct ReferenceData {
    pub path: PathBuf,
    /// Program name: the file stem without its `__VARIANT` suffix.
    pub program: String,
    /// The `__VARIANT` suffix of the file stem, if any.
    pub variant: Option<String>,
    /// Every program parameter with its value before the call.
    pub params: ArraySet,
    /// Every `out__<param>` array, stored under `<param>`.
    pub expected: ArraySet,
    /// Neighbour tables by upper-case offset name.
    pub tables: BTreeMap<String, NeighborTable>,
    /// The parsed `NAME.json` sidecar, when present.
    pub sidecar: Option<serde_json::Value>,
}

impl ReferenceData {
    /// Reads `path` (a `.npz`) and its `.json` sidecar if one lies beside it.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ReferenceDataError> {
        let path = path.as_ref().to_path_buf();
        let (program, variant) = program_and_variant(&path)?;
        let file = File::open(&path).map_err(|source| ReferenceDataError::Open {
            path: path.clone(),
            source,
        })?;
        let archive_error = |source| ReferenceDataError::Archive {
            path: path.clone(),
            source,
        };
        let mut npz = NpzReader::new(BufReader::new(file)).map_err(archive_error)?;
        let mut params = ArraySet::new();
        let mut expected = ArraySet::new();
        let mut tables = BTreeMap::new();
        for name in npz.names().map_err(archive_error)? {
            let array = read_any(&mut npz, &path, &name)?;
            if let Some(output) = name.strip_prefix(OUTPUT_PREFIX) {
                expected.insert(output, array);
            } else if is_offset_name(&name) {
                let table = match array {
                    RefArray::Int32(t) => t.into_dimensionality::<Ix2>().map_err(|_| {
                        ReferenceDataError::BadTable {
                            name: name.clone(),
                            problem: "not two-dimensional".into(),
                        }
                    })?,
                    other => {
                        return Err(ReferenceDataError::BadTable {
                            problem: format!("dtype {} instead of int32", other.dtype()),
                            name,
                        })
                    }
                };
                tables.insert(name.clone(), NeighborTable::new(name, table)?);
            } else {
                params.insert(name, array);
            }
        }
        let sidecar = read_sidecar(&path.with_extension("json"))?;
        let data = Self {
            path,
            program,
            variant,
            params,
            expected,
            tables,
            sidecar,
        };
        data.check_sidecar()?;
        Ok(data)
    }

    /// Checks the arrays against the sidecar, when there is one: every listed parameter present
    /// with its dtype and shape (scalars 0-d), every listed output present as `out__<name>` with
    /// the parameter's shape, and every listed offset's table with its shape.
    pub fn check_sidecar(&self) -> Result<(), ReferenceDataError> {
        let Some(sidecar) = &self.sidecar else {
            return Ok(());
        };
        let mismatch = |problem: String| ReferenceDataError::SidecarMismatch {
            path: self.path.clone(),
            problem,
        };
        let params = sidecar["params"]
            .as_array()
            .ok_or_else(|| mismatch("no `params` list".into()))?;
        for param in params {
            let name = param["name"]
                .as_str()
                .ok_or_else(|| mismatch("a parameter without a name".into()))?;
            let array = self.params.get(name)?;
            let dtype = param["dtype"].as_str().unwrap_or_default();
            if dtype != array.dtype().to_string() {
                return Err(mismatch(format!(
                    "`{name}` is {} in the archive, {dtype} in the sidecar",
                    array.dtype()
                )));
            }
            let shape: Vec<usize> = match param["kind"].as_str() {
                Some("scalar") => Vec::new(),
                _ => json_shape(&param["shape"])
                    .ok_or_else(|| mismatch(format!("`{name}` has no valid `shape`")))?,
            };
            if array.shape() != shape.as_slice() {
                return Err(mismatch(format!(
                    "`{name}` has shape {:?}, the sidecar says {shape:?}",
                    array.shape()
                )));
            }
        }
        for output in sidecar["outputs"].as_array().into_iter().flatten() {
            let name = output.as_str().unwrap_or_default();
            let want = self.params.get(name)?.shape();
            let got = self
                .expected
                .get(name)
                .map_err(|_| mismatch(format!("output `{name}` has no `{OUTPUT_PREFIX}{name}`")))?
                .shape();
            if got != want {
                return Err(mismatch(format!(
                    "`{OUTPUT_PREFIX}{name}` has shape {got:?}, the parameter {want:?}"
                )));
            }
        }
        for (offset, shape) in sidecar["offsets"].as_object().into_iter().flatten() {
            let table = self.table(offset)?;
            let want = json_shape(shape)
                .ok_or_else(|| mismatch(format!("offset `{offset}` has no valid shape")))?;
            if table.table.shape() != want.as_slice() {
                return Err(mismatch(format!(
                    "table `{offset}` has shape {:?}, the sidecar says {want:?}",
                    table.table.shape()
                )));
            }
        }
        Ok(())
    }

    /// Names of the expected outputs (parameter names, without the `out__` prefix).
    pub fn output_names(&self) -> Vec<String> {
        self.expected.names().map(str::to_owned).collect()
    }

    pub fn table(&self, offset: &str) -> Result<&NeighborTable, ReferenceDataError> {
        self.tables
            .get(offset)
            .ok_or_else(|| ReferenceDataError::Missing {
                name: offset.into(),
            })
    }
}

fn json_shape(value: &serde_json::Value) -> Option<Vec<usize>> {
    value
        .as_array()?
        .iter()
        .map(|n| n.as_u64().and_then(|n| usize::try_from(n).ok()))
        .collect()
}

/// Every `.npz` in `dir`, sorted by name.
pub fn reference_files(dir: impl AsRef<Path>) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "npz") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn program_and_variant(path: &Path) -> Result<(String, Option<String>), ReferenceDataError> {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ReferenceDataError::NoProgramName { path: path.into() })?;
    Ok(match stem.split_once(VARIANT_SEPARATOR) {
        Some((program, variant)) if !program.is_empty() => {
            (program.to_owned(), Some(variant.to_owned()))
        }
        _ => (stem.to_owned(), None),
    })
}

/// Offsets are spelled in upper case (`E2C2V`, `C2E2CO`); parameters never are.
fn is_offset_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn read_any(
    npz: &mut NpzReader<BufReader<File>>,
    path: &Path,
    name: &str,
) -> Result<RefArray, ReferenceDataError> {
    use ndarray_npy::ReadNpyError;
    // The .npy header names the dtype, but the reader only exposes it through a typed read, so
    // try each supported type in turn; a type mismatch is a `WrongDescriptor` error.
    fn attempt<T: ndarray_npy::ReadableElement>(
        npz: &mut NpzReader<BufReader<File>>,
        name: &str,
    ) -> Result<Option<ArrayD<T>>, ReadNpzError> {
        match npz.by_name::<ndarray::OwnedRepr<T>, ndarray::IxDyn>(name) {
            Ok(a) => Ok(Some(a)),
            Err(ReadNpzError::Npy(ReadNpyError::WrongDescriptor(_))) => Ok(None),
            Err(e) => Err(e),
        }
    }
    let archive_error = |source| ReferenceDataError::Archive {
        path: path.into(),
        source,
    };
    if let Some(a) = attempt::<f64>(npz, name).map_err(archive_error)? {
        return Ok(RefArray::Float64(a));
    }
    if let Some(a) = attempt::<i32>(npz, name).map_err(archive_error)? {
        return Ok(RefArray::Int32(a));
    }
    if let Some(a) = attempt::<bool>(npz, name).map_err(archive_error)? {
        return Ok(RefArray::Bool(a));
    }
    if let Some(a) = attempt::<i64>(npz, name).map_err(archive_error)? {
        // Index-like parameters may have been saved as int64; narrow them checked.
        if let Some(&value) = a.iter().find(|&&v| i32::try_from(v).is_err()) {
            return Err(ReferenceDataError::IntegerOutOfRange {
                path: path.into(),
                name: name.into(),
                value,
            });
        }
        return Ok(RefArray::Int32(a.mapv(|v| v as i32)));
    }
    Err(ReferenceDataError::UnsupportedDtype {
        path: path.into(),
        name: name.into(),
    })
}

fn read_sidecar(path: &Path) -> Result<Option<serde_json::Value>, ReferenceDataError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ReferenceDataError::Open {
                path: path.into(),
                source,
            })
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|source| ReferenceDataError::Sidecar {
            path: path.into(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_suffix_is_split_from_program_name() {
        let (p, v) = program_and_variant(Path::new("/x/apply_diffusion_to_vn__global.npz"))
            .expect("valid name");
        assert_eq!(p, "apply_diffusion_to_vn");
        assert_eq!(v.as_deref(), Some("global"));
        let (p, v) = program_and_variant(Path::new("calculate_nabla4.npz")).expect("valid name");
        assert_eq!((p.as_str(), v), ("calculate_nabla4", None));
    }

    #[test]
    fn offset_names_are_upper_case() {
        assert!(is_offset_name("E2C2V"));
        assert!(is_offset_name("C2E2CO"));
        assert!(!is_offset_name("vn"));
        assert!(!is_offset_name("out__vn"));
        assert!(!is_offset_name("horizontal_start"));
    }

    #[test]
    fn tables_reject_entries_below_minus_one() {
        let bad = Array2::from_shape_vec((1, 2), vec![0, -2]).expect("shape");
        assert!(NeighborTable::new("E2C", bad).is_err());
        let ok = Array2::from_shape_vec((1, 2), vec![3, -1]).expect("shape");
        assert!(NeighborTable::new("E2C", ok)
            .expect("valid")
            .has_skip_values());
    }
}
