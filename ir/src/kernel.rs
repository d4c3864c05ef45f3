//! The contract between a generated CUDA kernel and its launcher, defined once for both sides.
//!
//! The macro lowers a program once, emits CUDA C with one kernel per stage, and serialises a
//! [`KernelProgram`]: the stage program it lowered and, per kernel, the fields of its by-value
//! parameter struct (C type, byte offset, and the [`FieldRole`] that tells the host what to put
//! there), the failures it may record in its error record and the preconditions the host checks
//! before launching it. The runtime fills parameter blocks from it at each call and never lowers
//! again.

use serde::{Deserialize, Serialize};

use crate::failure::{Failure, FailureSite, Precondition};
use crate::stage::{Source, StageProgram};
use crate::types::ScalarType;

/// The C type of one parameter-struct field.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// `const T* __restrict__` (an input field).
    ConstPtr(ScalarType),
    /// `T* __restrict__` (an output field).
    MutPtr(ScalarType),
    /// `const int* __restrict__` (a connectivity table).
    Table,
    /// `long long*` (the kernel's error record, [`ERROR_RECORD_LEN`] words).
    ErrorSlot,
    /// A scalar passed by value (`double`, `int`, …).
    Scalar(ScalarType),
}

/// The C spelling of an element type.
pub fn c_type(t: ScalarType) -> &'static str {
    match t {
        ScalarType::Bool => "bool",
        ScalarType::I32 => "int",
        ScalarType::I64 => "long long",
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
    }
}

/// Bytes of an element of `t` on the device (and on the host: both are LP64).
pub fn dtype_size(t: ScalarType) -> usize {
    match t {
        ScalarType::Bool => 1,
        ScalarType::I32 | ScalarType::F32 => 4,
        ScalarType::I64 | ScalarType::F64 => 8,
    }
}

impl ParamType {
    /// The C declaration type, e.g. `const double* __restrict__`.
    pub fn c_decl(self) -> String {
        match self {
            ParamType::ConstPtr(t) => format!("const {}* __restrict__", c_type(t)),
            ParamType::MutPtr(t) => format!("{}* __restrict__", c_type(t)),
            ParamType::Table => "const int* __restrict__".into(),
            ParamType::ErrorSlot => "long long*".into(),
            ParamType::Scalar(t) => c_type(t).into(),
        }
    }

    /// Size and alignment in bytes (pointers are 8 bytes on every CUDA host and device).
    pub fn size(self) -> usize {
        match self {
            ParamType::Scalar(t) => dtype_size(t),
            _ => 8,
        }
    }
}

/// What a parameter-struct field holds, so the host can fill it from a call's arguments.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRole {
    /// Device pointer of the field.
    Data {
        /// The field whose data pointer it is.
        field: Source,
    },
    /// Origin, extent or stride (in elements) of the field along its dimension `dim`.
    Origin {
        /// The field.
        field: Source,
        /// The position of the dimension among the field's dimensions.
        dim: usize,
    },
    /// Number of points of the field along its dimension `dim`.
    Extent {
        /// The field.
        field: Source,
        /// The position of the dimension among the field's dimensions.
        dim: usize,
    },
    /// Distance in elements between neighbouring points along the field's dimension `dim`.
    Stride {
        /// The field.
        field: Source,
        /// The position of the dimension among the field's dimensions.
        dim: usize,
    },
    /// Connectivity table `index` (in `Program::used_offsets` order) and its row count.
    Table {
        /// The table's position in `Program::used_offsets`.
        index: usize,
    },
    /// Number of rows of connectivity table `index`.
    TableRows {
        /// The table's position in `Program::used_offsets`.
        index: usize,
    },
    /// Scalar program parameter `param`.
    Scalar {
        /// The program parameter's position.
        param: u32,
    },
    /// Start (`end == false`) or exclusive end of the stage's domain dimension `dim`.
    Bound {
        /// The position of the dimension in the stage's domain.
        dim: usize,
        /// `false` for the start, `true` for the exclusive end.
        end: bool,
    },
    /// The kernel's error record in device memory (see [`ERROR_RECORD_LEN`]).
    Error,
}

/// One field of a kernel's parameter struct, in declaration order.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ParamField {
    /// The field's name in the C struct.
    pub name: String,
    /// Its C type.
    pub ty: ParamType,
    /// Byte offset in the C struct (see [`KernelInfo::lay_out`]).
    pub offset: usize,
    /// What the host puts there.
    pub role: FieldRole,
}

/// Words (`long long`) of a kernel's error record: the code of the failure at the least point
/// its threads met (0: none; code `c` is [`KernelInfo::errors`]`[c - 1]`), then
/// [`ERROR_VALUES`] values of its message, then the coordinates of its point (at most
/// [`ERROR_COORDINATES`]), then, in the last three words, the first coordinate plus one, the
/// number of coordinates and the lock the failing threads take in turn (the CUDA prelude's
/// `gt4rs_fail`, which names these words by number).
pub const ERROR_RECORD_LEN: usize = 16;
/// Values of a failure's message in an error record (the most any [`Failure`] takes).
pub const ERROR_VALUES: usize = 3;
/// Coordinates of a failure's point an error record holds.
pub const ERROR_COORDINATES: usize = ERROR_RECORD_LEN - 4 - ERROR_VALUES;

/// One kernel of a program's CUDA source: how threads map to its stage, its parameter struct,
/// the failures it may record and the conditions its launcher checks first.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct KernelInfo {
    /// The kernel's name in the CUDA source.
    pub name: String,
    /// The index of the stage it runs.
    pub stage: usize,
    /// A scan: one thread per column walks every level; otherwise `blockIdx.y` picks a block
    /// of `GT4RS_K_BLOCK` levels.
    pub scan: bool,
    /// Domain dimensions linearised over threads (the last one fastest).
    pub outer_dims: Vec<usize>,
    /// The position of the vertical dimension in the stage's domain, if it has one.
    pub vertical_dim: Option<usize>,
    /// Size in bytes of the C parameter struct.
    pub size: usize,
    /// The fields of the parameter struct, in declaration order.
    pub fields: Vec<ParamField>,
    /// The failure of error code `i + 1`.
    pub errors: Vec<FailureSite>,
    /// What the launcher checks on the host before any kernel of a call runs (in order: the
    /// first that fails is reported), as the CPU kernels check them before their loop.
    pub preconditions: Vec<Precondition>,
}

impl KernelInfo {
    /// Places `fields` (name, type, role) as a C compiler lays out a struct of them: each at
    /// the next multiple of its alignment, the struct padded to its largest alignment.
    pub fn lay_out(fields: Vec<(String, ParamType, FieldRole)>) -> (Vec<ParamField>, usize) {
        let mut offset = 0usize;
        let mut align = 1usize;
        let placed = fields
            .into_iter()
            .map(|(name, ty, role)| {
                let a = ty.size();
                align = align.max(a);
                offset = offset.next_multiple_of(a);
                let f = ParamField {
                    name,
                    ty,
                    offset,
                    role,
                };
                offset += a;
                f
            })
            .collect();
        (placed, offset.next_multiple_of(align))
    }

    /// The failure this kernel recorded in `record` (its error record) and its message; `None`
    /// when it recorded none, `Err` with the code when the code is none of this kernel's.
    pub fn recorded_failure(&self, record: &[i64]) -> Result<Option<(&Failure, String)>, i64> {
        let code = record.first().copied().unwrap_or(0);
        if code == 0 {
            return Ok(None);
        }
        let site = usize::try_from(code)
            .ok()
            .and_then(|c| c.checked_sub(1))
            .and_then(|c| self.errors.get(c))
            .ok_or(code)?;
        let values = record.get(1..1 + ERROR_VALUES).unwrap_or(&[]);
        let coordinates = record
            .get(1 + ERROR_VALUES..1 + ERROR_VALUES + ERROR_COORDINATES)
            .unwrap_or(&[]);
        let point: Vec<(&str, i64)> = site
            .point
            .iter()
            .map(String::as_str)
            .zip(coordinates.iter().copied())
            .collect();
        Ok(Some((&site.failure, site.failure.message(values, &point))))
    }

    /// Grid dimensions `(x, y)` for a domain with `outer_points` horizontal points and
    /// `levels` vertical levels.
    pub fn grid(
        &self,
        outer_points: u64,
        levels: u64,
        block_size: u32,
        k_block: u32,
    ) -> (u32, u32) {
        let block = u64::from(block_size.max(1));
        let x = outer_points.div_ceil(block).max(1);
        let y = if self.scan || self.vertical_dim.is_none() {
            1
        } else {
            levels.div_ceil(u64::from(k_block.max(1))).max(1)
        };
        (
            u32::try_from(x).unwrap_or(u32::MAX),
            u32::try_from(y).unwrap_or(u32::MAX),
        )
    }
}

/// A program as its CUDA kernels see it: the stages the macro lowered it into (one kernel
/// each, in order) and the kernels' launch metadata.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct KernelProgram {
    /// The lowered program, one stage per kernel.
    pub stages: StageProgram,
    /// Launch metadata of each kernel, in stage order.
    pub kernels: Vec<KernelInfo>,
}

impl KernelProgram {
    /// The JSON form embedded in a generated program.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("kernel programs serialise")
    }
    /// Reads the JSON form written by [`KernelProgram::to_json`].
    ///
    /// # Errors
    /// A JSON error where `s` is not such a document.
    pub fn from_json(s: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_laid_out_as_a_c_struct() {
        let (fields, size) = KernelInfo::lay_out(vec![
            (
                "p".into(),
                ParamType::ConstPtr(ScalarType::F64),
                FieldRole::Error,
            ),
            (
                "b".into(),
                ParamType::Scalar(ScalarType::Bool),
                FieldRole::Error,
            ),
            (
                "i".into(),
                ParamType::Scalar(ScalarType::I32),
                FieldRole::Error,
            ),
            (
                "c".into(),
                ParamType::Scalar(ScalarType::Bool),
                FieldRole::Error,
            ),
        ]);
        let offsets: Vec<usize> = fields.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, vec![0, 8, 12, 16]);
        assert_eq!(size, 24);
    }

    #[test]
    fn a_recorded_failure_reads_its_values_and_point() {
        use crate::failure::FieldName;
        let info = KernelInfo {
            name: "k".into(),
            stage: 0,
            scan: false,
            outer_dims: vec![0],
            vertical_dim: Some(1),
            size: 0,
            fields: vec![],
            errors: vec![FailureSite {
                failure: Failure::ReadOutside {
                    field: FieldName::Argument("a".into()),
                    dim: "Vertex".into(),
                },
                point: vec!["Edge".into(), "K".into()],
            }],
            preconditions: vec![],
        };
        let mut record = [0i64; ERROR_RECORD_LEN];
        assert_eq!(info.recorded_failure(&record), Ok(None));
        record[..6].copy_from_slice(&[1, 7, 0, 5, 3, 0]);
        let (_, message) = info
            .recorded_failure(&record)
            .expect("a known code")
            .expect("a failure");
        assert_eq!(
            message,
            "argument `a` is read at Vertex index 7 (from point Edge 3, K 0), outside its domain 0..5"
        );
        record[0] = 2;
        assert_eq!(info.recorded_failure(&record), Err(2));
    }
}
