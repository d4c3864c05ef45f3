//! The contract between a generated CUDA kernel and its launcher, defined once for both sides.
//!
//! The macro lowers a program once, emits CUDA C with one kernel per stage, and serialises a
//! [`KernelProgram`]: the stage program it lowered and, per kernel, the fields of its by-value
//! parameter struct (C type, byte offset, and the [`FieldRole`] that tells the host what to put
//! there). The runtime fills parameter blocks from it at each call and never lowers again.

use serde::{Deserialize, Serialize};

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
    /// `int*` (the launch's error slot).
    ErrorSlot,
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
            ParamType::ErrorSlot => "int*".into(),
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
        field: Source,
    },
    /// Origin, extent or stride (in elements) of the field along its dimension `dim`.
    Origin {
        field: Source,
        dim: usize,
    },
    Extent {
        field: Source,
        dim: usize,
    },
    Stride {
        field: Source,
        dim: usize,
    },
    /// Connectivity table `index` (in `Program::used_offsets` order) and its row count.
    Table {
        index: usize,
    },
    TableRows {
        index: usize,
    },
    /// Scalar program parameter `param`.
    Scalar {
        param: u32,
    },
    /// Start (`end == false`) or exclusive end of the stage's domain dimension `dim`.
    Bound {
        dim: usize,
        end: bool,
    },
    /// The launch's error slot (an `int` in device memory, 0 when nothing failed).
    Error,
}

/// One field of a kernel's parameter struct, in declaration order.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ParamField {
    pub name: String,
    pub ty: ParamType,
    /// Byte offset in the C struct (see [`KernelInfo::lay_out`]).
    pub offset: usize,
    pub role: FieldRole,
}

/// One kernel of a program's CUDA source: how threads map to its stage, its parameter struct
/// and the messages of its error codes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct KernelInfo {
    pub name: String,
    pub stage: usize,
    /// A scan: one thread per column walks every level; otherwise `blockIdx.y` picks a block
    /// of `GT4RS_K_BLOCK` levels.
    pub scan: bool,
    /// Domain dimensions linearised over threads (the last one fastest).
    pub outer_dims: Vec<usize>,
    pub vertical_dim: Option<usize>,
    /// Size in bytes of the C parameter struct.
    pub size: usize,
    pub fields: Vec<ParamField>,
    /// Message of error code `i + 1`.
    pub errors: Vec<String>,
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

    /// The message of an error code a launch recorded (`None` for 0 or an unknown code).
    pub fn error_message(&self, code: i32) -> Option<&str> {
        usize::try_from(code)
            .ok()
            .and_then(|c| c.checked_sub(1))
            .and_then(|c| self.errors.get(c))
            .map(String::as_str)
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
    pub stages: StageProgram,
    pub kernels: Vec<KernelInfo>,
}

impl KernelProgram {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("kernel programs serialise")
    }
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
}
