//! What the macro emits about a program's CUDA translation (always built, with or without the
//! `cuda` feature): per kernel its name, how threads map to the domain, its parameter struct
//! field by field, and the messages of its error codes.

/// A field a kernel reads or writes: a program parameter or a temporary of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRef {
    Param(u32),
    Temporary(u32),
}

/// What a parameter-struct field holds, so the host can fill it from a call's arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRole {
    /// Device pointer of the field.
    Data {
        field: FieldRef,
    },
    /// Origin, extent or stride (in elements) of the field along its dimension `dim`.
    Origin {
        field: FieldRef,
        dim: usize,
    },
    Extent {
        field: FieldRef,
        dim: usize,
    },
    Stride {
        field: FieldRef,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamField {
    pub name: &'static str,
    /// The C declaration type, e.g. `const double* __restrict__`.
    pub c_type: &'static str,
    /// Byte offset in the Rust `#[repr(C)]` twin (the C struct must agree).
    pub offset: usize,
    pub role: FieldRole,
}

/// One kernel of a program's CUDA source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    pub name: &'static str,
    pub stage: usize,
    /// A scan: one thread per column walks every level; otherwise `blockIdx.y` picks a block
    /// of `GT4RS_K_BLOCK` levels.
    pub scan: bool,
    /// Domain dimensions linearised over threads (the last one fastest).
    pub outer_dims: &'static [usize],
    pub vertical_dim: Option<usize>,
    /// Size in bytes of the Rust `#[repr(C)]` parameter struct.
    pub size: usize,
    pub fields: &'static [ParamField],
    /// Message of error code `i + 1`.
    pub errors: &'static [&'static str],
}

impl KernelInfo {
    /// The message of an error code a launch recorded (`None` for 0 or an unknown code).
    pub fn error_message(&self, code: i32) -> Option<&'static str> {
        usize::try_from(code)
            .ok()
            .and_then(|c| c.checked_sub(1))
            .and_then(|c| self.errors.get(c).copied())
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

/// A program's CUDA translation as the macro emits it: what [`super::CudaProgram::compile`]
/// needs besides options and tables.
#[derive(Clone, Copy, Debug)]
pub struct Translation {
    pub name: &'static str,
    pub source: &'static str,
    pub kernels: &'static [KernelInfo],
    /// Why the program has no translation, if it has none.
    pub unsupported: Option<&'static str>,
    pub program: &'static gt4rs_ir::fieldview::Program,
}
