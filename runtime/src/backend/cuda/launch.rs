//! The host side of a launch that needs no GPU: the launches of a call (domain bounds from
//! `bounds`, the preconditions the CPU kernels check before their loop, temporaries), the
//! parameter block of a kernel (its `#[repr(C)]` struct as bytes, filled by field role), the
//! error of a call from its kernels' error records, NVRTC options and the cache key. The device
//! code in `device.rs` only adds pointers and calls.

use std::collections::BTreeMap;
use std::sync::Arc;

use gt4rs_ir::failure::{Failure, Precondition};
use gt4rs_ir::fieldview::Program;
use gt4rs_ir::kernel::{dtype_size, FieldRole, KernelInfo, ERROR_RECORD_LEN};
use gt4rs_ir::stage::{Bound, Source, StageProgram};
use gt4rs_ir::{ScalarType, Type};

pub use super::bounds::{
    c_literal, node_bound, output_ranges, stage_bounds, static_defines, BoundError, BoundInputs,
    NamedTable,
};
use crate::args::ScalarValue;
use crate::backend::cuda::source::Translation;
use crate::backend::failure;
use crate::cache::CacheKey;
use crate::config::CudaOptions;
use crate::connectivity::ConnectivityTable;
use crate::error::Error;

/// Where a field argument lives on the device, and its index space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldMeta {
    /// Device address of the element at `origin`.
    pub address: u64,
    /// The index of the first element per dimension.
    pub origin: Vec<i64>,
    /// The number of points per dimension.
    pub shape: Vec<i64>,
    /// In elements.
    pub strides: Vec<i64>,
}

/// Everything a kernel's parameter block is made of, for one launch.
pub struct LaunchInputs<'a> {
    /// Per program parameter: the device field (None for scalars and unused fields).
    pub fields: &'a [Option<&'a FieldMeta>],
    /// Per temporary of the program: its device buffer, once allocated.
    pub temporaries: &'a [Option<FieldMeta>],
    /// Per program parameter: the scalar value (None for fields).
    pub scalars: &'a [Option<ScalarValue>],
    /// Device address and row count of each connectivity table (`used_offsets` order).
    pub tables: &'a [(u64, i64)],
    /// The stage's domain: `(start, end)` per dimension.
    pub bounds: &'a [(i64, i64)],
    /// Device address of this kernel's error record.
    pub error: u64,
}

/// The kernel's `#[repr(C)]` parameter struct as 8-byte words (so the block is aligned for
/// every field), filled field by field at the offsets the macro recorded.
pub fn param_block(info: &KernelInfo, inputs: &LaunchInputs<'_>) -> Result<Vec<u64>, String> {
    let mut bytes = vec![0u8; info.size.next_multiple_of(8)];
    for f in &info.fields {
        let missing = |what: &str| format!("kernel `{}`, field `{}`: {what}", info.name, f.name);
        let field = |f: Source| -> Result<&FieldMeta, String> {
            match f {
                Source::Param(p) => inputs.fields.get(p as usize).copied().flatten(),
                Source::Temporary(t) => inputs.temporaries.get(t as usize).and_then(Option::as_ref),
            }
            .ok_or_else(|| missing("no device buffer for this field"))
        };
        let dim_of = |v: &[i64], dim: usize| -> Result<i64, String> {
            v.get(dim)
                .copied()
                .ok_or_else(|| missing("the field has fewer dimensions"))
        };
        let value: Vec<u8> = match f.role {
            FieldRole::Data { field: f } => field(f)?.address.to_ne_bytes().to_vec(),
            FieldRole::Origin { field: f, dim } => {
                dim_of(&field(f)?.origin, dim)?.to_ne_bytes().to_vec()
            }
            FieldRole::Extent { field: f, dim } => {
                dim_of(&field(f)?.shape, dim)?.to_ne_bytes().to_vec()
            }
            FieldRole::Stride { field: f, dim } => {
                dim_of(&field(f)?.strides, dim)?.to_ne_bytes().to_vec()
            }
            FieldRole::Table { index } => inputs
                .tables
                .get(index)
                .ok_or_else(|| missing("no such connectivity"))?
                .0
                .to_ne_bytes()
                .to_vec(),
            FieldRole::TableRows { index } => inputs
                .tables
                .get(index)
                .ok_or_else(|| missing("no such connectivity"))?
                .1
                .to_ne_bytes()
                .to_vec(),
            FieldRole::Bound { dim, end } => {
                let (lo, hi) = inputs
                    .bounds
                    .get(dim)
                    .copied()
                    .ok_or_else(|| missing("no such domain dimension"))?;
                if end { hi } else { lo }.to_ne_bytes().to_vec()
            }
            FieldRole::Error => inputs.error.to_ne_bytes().to_vec(),
            FieldRole::Scalar { param } => {
                match inputs.scalars.get(param as usize).copied().flatten() {
                    Some(ScalarValue::Bool(b)) => vec![u8::from(b)],
                    Some(ScalarValue::I32(v)) => v.to_ne_bytes().to_vec(),
                    Some(ScalarValue::I64(v)) => v.to_ne_bytes().to_vec(),
                    Some(ScalarValue::F32(v)) => v.to_ne_bytes().to_vec(),
                    Some(ScalarValue::F64(v)) => v.to_ne_bytes().to_vec(),
                    None => return Err(missing("no scalar value for this parameter")),
                }
            }
        };
        let end = f.offset + value.len();
        let slot = bytes
            .get_mut(f.offset..end)
            .ok_or_else(|| missing("the field lies outside the struct"))?;
        slot.copy_from_slice(&value);
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            u64::from_ne_bytes(w)
        })
        .collect())
}

/// The tuning constants as `-D` options (`GT4RS_BLOCK_SIZE`, `GT4RS_K_BLOCK`,
/// `GT4RS_HOIST_COLUMN_WORK`), the block size being the one [`LaunchPlan::plan_call`]
/// launches with.
pub fn tuning_defines(options: &CudaOptions) -> Vec<String> {
    vec![
        format!("-DGT4RS_BLOCK_SIZE={}", options.block_size.max(1)),
        format!("-DGT4RS_K_BLOCK={}", options.k_block.max(1)),
        format!(
            "-DGT4RS_HOIST_COLUMN_WORK={}",
            u8::from(options.hoist_column_work)
        ),
    ]
}

/// NVRTC options for `arch` (e.g. `sm_90`): the architecture through `options` (cudarc's
/// `arch` wants a `&'static str`), the tuning constants as macros.
pub fn nvrtc_options(arch: &str, options: &CudaOptions) -> Vec<String> {
    let mut out = vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".to_string(),
        format!("--fmad={}", options.fma_contraction),
    ];
    out.extend(tuning_defines(options));
    if options.max_registers > 0 {
        out.push(format!("--maxrregcount={}", options.max_registers));
    }
    out
}

/// The static argument values of `static_args` (by name) per parameter index, each checked to
/// name a static parameter of the value's type.
pub fn resolve_statics(
    name: &str,
    program: &Program,
    static_args: Option<&BTreeMap<String, ScalarValue>>,
) -> Result<Vec<Option<ScalarValue>>, Error> {
    let mut statics: Vec<Option<ScalarValue>> = vec![None; program.params.len()];
    for (given, value) in static_args.into_iter().flatten() {
        let i = program
            .params
            .iter()
            .position(|p| &p.name == given && p.is_static)
            .ok_or_else(|| Error::Argument {
                program: name.to_string(),
                arg: given.clone(),
                message: "no static argument of this name".into(),
            })?;
        if program.params[i].ty != Type::Scalar(value.dtype()) {
            return Err(Error::Argument {
                program: name.to_string(),
                arg: given.clone(),
                message: format!("static value {value:?} is not a {}", program.params[i].ty),
            });
        }
        statics[i] = Some(*value);
    }
    Ok(statics)
}

/// Element strides of a dense row-major buffer of `shape` (how fields are uploaded and
/// temporaries allocated).
pub fn dense_strides(shape: &[usize]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1] as i64;
    }
    strides
}

/// Each table with its offset's name (`tables` in `used_offsets` order, as bound).
pub fn named_tables(program: &Program, tables: &[Arc<ConnectivityTable>]) -> Vec<NamedTable> {
    program
        .used_offsets()
        .into_iter()
        .zip(tables)
        .map(|(o, t)| (o.name.clone(), t.clone()))
        .collect()
}

/// One argument of a call as the launcher sees it: a field in device memory, or a scalar.
#[derive(Clone, Debug, PartialEq)]
pub enum CallArg {
    /// A field in device memory.
    Field {
        /// Its element type.
        dtype: ScalarType,
        /// Where it lives.
        meta: FieldMeta,
    },
    /// A scalar value.
    Scalar(ScalarValue),
}

/// One kernel launch of a call: which kernel, its parameter block, grid and block size.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelLaunch {
    /// Index into the program's kernels (= its stage).
    pub kernel: usize,
    /// The kernel's by-value parameter struct (see [`param_block`]).
    pub params: Vec<u64>,
    /// `(x, y)` blocks; `z` is 1.
    pub grid: (u32, u32),
    /// Threads per block (x; y and z are 1).
    pub block: u32,
}

/// What a program's launches depend on besides a call's arguments: fixed at `compile()`,
/// shared by the device launcher and its host emulation.
pub struct LaunchPlan {
    /// The program's name.
    pub name: &'static str,
    /// The checked fieldview program (parameters and roles).
    pub program: &'static Program,
    /// The stages the kernels run, one each.
    pub stages: &'static StageProgram,
    /// Launch metadata of each kernel, in stage order.
    pub kernels: &'static [KernelInfo],
    /// Static argument values compiled in (per parameter index).
    pub statics: Vec<Option<ScalarValue>>,
    /// Host copies of the connectivities, by offset name (for reach and target-size bounds).
    pub named_tables: Vec<NamedTable>,
    /// The tuning the kernels were compiled with.
    pub options: CudaOptions,
}

impl LaunchPlan {
    /// The plan of `translation` with the bound `tables` (`used_offsets` order), the static
    /// argument values `static_args` (by name) and the tuning `options`. The stages are the
    /// ones the macro lowered and emitted the kernels from: nothing is lowered here.
    pub fn new(
        translation: &Translation,
        tables: &[Arc<ConnectivityTable>],
        static_args: Option<&BTreeMap<String, ScalarValue>>,
        options: CudaOptions,
    ) -> Result<LaunchPlan, Error> {
        let Translation { name, program, .. } = *translation;
        let kernel_program = translation.kernel_program()?;
        Ok(LaunchPlan {
            name,
            program,
            statics: resolve_statics(name, program, static_args)?,
            named_tables: named_tables(program, tables),
            stages: &kernel_program.stages,
            kernels: &kernel_program.kernels,
            options,
        })
    }

    /// The `-D` options of the static argument values and the domain bounds they fix (see
    /// [`static_defines`]).
    pub fn static_defines(&self) -> Vec<String> {
        static_defines(&self.stages.stages, &self.statics)
    }

    fn arg_error(&self, arg: &str, message: String) -> Error {
        Error::Argument {
            program: self.name.to_string(),
            arg: arg.to_string(),
            message,
        }
    }

    /// The launches of one call, in stage order (stages with an empty domain launch nothing).
    /// Checks the arguments against the program's parameters and static values. `tables` are
    /// the device address and row count of each connectivity (`used_offsets` order);
    /// `error_base` is the address of kernel 0's error record (kernel `i` uses the
    /// [`ERROR_RECORD_LEN`] words from `error_base + 8 ERROR_RECORD_LEN i`). `temporary(t,
    /// bytes)` gives the address of a buffer of at least `bytes` for temporary `t`, which holds
    /// it row-major over the stage's domain. Every stage's preconditions are checked before
    /// the first launch, so a call that fails them runs nothing.
    pub fn plan_call(
        &self,
        args: &[CallArg],
        tables: &[(u64, i64)],
        error_base: u64,
        temporary: &mut dyn FnMut(usize, usize) -> Result<u64, Error>,
    ) -> Result<Vec<KernelLaunch>, Error> {
        let params = &self.program.params;
        if args.len() != params.len() {
            return Err(self.arg_error(
                "",
                format!("expected {} arguments, got {}", params.len(), args.len()),
            ));
        }
        let mut fields: Vec<Option<&FieldMeta>> = Vec::with_capacity(args.len());
        let mut scalars: Vec<Option<ScalarValue>> = Vec::with_capacity(args.len());
        for (i, (a, p)) in args.iter().zip(params).enumerate() {
            match (&p.ty, a) {
                (Type::Field { dims, dtype }, CallArg::Field { dtype: got, meta }) => {
                    if got != dtype || meta.shape.len() != dims.len() {
                        return Err(self.arg_error(
                            &p.name,
                            format!(
                                "expected {}, got a {}-d {:?} device field",
                                p.ty,
                                meta.shape.len(),
                                got
                            ),
                        ));
                    }
                    fields.push(Some(meta));
                    scalars.push(None);
                }
                (Type::Scalar(_), CallArg::Scalar(given)) => {
                    if let Some(compiled) = self.statics.get(i).copied().flatten() {
                        if compiled != *given {
                            return Err(self.arg_error(
                                &p.name,
                                format!(
                                    "compiled with the static value {compiled:?}, called with {given:?}"
                                ),
                            ));
                        }
                    }
                    fields.push(None);
                    scalars.push(Some(*given));
                }
                _ => {
                    return Err(self.arg_error(
                        &p.name,
                        "a field where a scalar is expected, or the reverse".into(),
                    ))
                }
            }
        }
        let mut temp_meta: Vec<Option<FieldMeta>> = vec![None; self.stages.temporaries.len()];
        let mut launches = Vec::with_capacity(self.kernels.len());
        for (i, (info, stage)) in self.kernels.iter().zip(&self.stages.stages).enumerate() {
            let first = stage
                .outputs
                .first()
                .and_then(|o| match o.target {
                    Source::Param(p) => {
                        let meta = fields.get(p as usize).copied().flatten()?;
                        Some((meta, params.get(p as usize)?.ty.dims()?))
                    }
                    Source::Temporary(t) => {
                        let meta = temp_meta.get(t as usize)?.as_ref()?;
                        Some((
                            meta,
                            self.stages.temporaries.get(t as usize)?.dims.as_slice(),
                        ))
                    }
                })
                .map_or_else(Vec::new, |(f, dims)| {
                    output_ranges(stage, dims, &f.origin, &f.shape)
                });
            let bounds = stage_bounds(
                stage,
                &BoundInputs {
                    first_output: &first,
                    params,
                    fields: &fields,
                    scalars: &scalars,
                    tables: &self.named_tables,
                },
            )
            .map_err(|e| match e {
                BoundError::DivisionByZero => {
                    failure::failed(self.name, &Failure::DivisionByZero, &[], &[])
                }
                BoundError::Invalid(message) => Error::Domain {
                    program: self.name.to_string(),
                    message,
                },
                BoundError::Reversed { dim, start, end } => failure::failed(
                    self.name,
                    &Failure::ReversedDomain { dim },
                    &[start, end],
                    &[],
                ),
            })?;
            // Counted exactly: a domain too large to count cannot lie inside its outputs,
            // which the preconditions below report.
            let points = |d: usize| {
                let (lo, hi) = bounds[d];
                u64::try_from(i128::from(hi) - i128::from(lo)).unwrap_or(u64::MAX)
            };
            let outer: u64 = info
                .outer_dims
                .iter()
                .map(|&d| points(d))
                .fold(1u64, u64::saturating_mul);
            let levels = info.vertical_dim.map(points).unwrap_or(1);
            // Temporaries this stage writes cover its domain, row-major. An empty reach (the
            // reading rows hold no neighbour) still spans one point at its origin: a reduction
            // reads a masked-out (-1) slot there and discards the value, and that read must
            // stay inside the temporary's extent. The stage itself launches nothing.
            for o in &stage.outputs {
                let Source::Temporary(t) = o.target else {
                    continue;
                };
                let t = t as usize;
                let dtype = self
                    .stages
                    .temporaries
                    .get(t)
                    .ok_or_else(|| self.arg_error("", "temporary out of range".into()))?
                    .dtype;
                let too_large = || Error::Domain {
                    program: self.name.to_string(),
                    message: format!(
                        "stage {i}: the domain {bounds:?} has too many points for temporary {t}"
                    ),
                };
                let mut shape: Vec<usize> = Vec::with_capacity(bounds.len());
                for ((lo, hi), r) in bounds.iter().zip(&stage.domain) {
                    let n = hi
                        .checked_sub(*lo)
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or_else(too_large)?;
                    shape.push(if matches!(r.start, Bound::Reach { .. }) {
                        n.max(1)
                    } else {
                        n
                    });
                }
                let bytes = shape
                    .iter()
                    .try_fold(1usize, |acc, &n| acc.checked_mul(n.max(1)))
                    .and_then(|n| n.checked_mul(dtype_size(dtype)))
                    .ok_or_else(too_large)?;
                temp_meta[t] = Some(FieldMeta {
                    address: temporary(t, bytes)?,
                    origin: bounds.iter().map(|(lo, _)| *lo).collect(),
                    strides: dense_strides(&shape),
                    shape: shape.iter().map(|&n| n as i64).collect(),
                });
            }
            if outer == 0 || levels == 0 {
                continue;
            }
            for p in &info.preconditions {
                self.check(p, &bounds, &fields, &temp_meta)?;
            }
            let inputs = LaunchInputs {
                temporaries: &temp_meta,
                fields: &fields,
                scalars: &scalars,
                tables,
                bounds: &bounds,
                error: error_base + (8 * ERROR_RECORD_LEN * i) as u64,
            };
            let params = param_block(info, &inputs).map_err(|m| Error::Execution {
                program: self.name.to_string(),
                message: m,
            })?;
            launches.push(KernelLaunch {
                kernel: i,
                params,
                grid: info.grid(outer, levels, self.options.block_size, self.options.k_block),
                block: self.options.block_size.max(1),
            });
        }
        Ok(launches)
    }

    /// `Err` with the failure of precondition `p` where the stage's `bounds` and its fields
    /// (`fields` by parameter, `temporaries`) do not meet it.
    fn check(
        &self,
        p: &Precondition,
        bounds: &[(i64, i64)],
        fields: &[Option<&FieldMeta>],
        temporaries: &[Option<FieldMeta>],
    ) -> Result<(), Error> {
        let meta = match p.field {
            Source::Param(i) => fields.get(i as usize).copied().flatten(),
            Source::Temporary(t) => temporaries.get(t as usize).and_then(Option::as_ref),
        };
        let (origin, extent) = meta
            .and_then(|m| m.origin.get(p.dim).zip(m.shape.get(p.dim)))
            .ok_or_else(|| self.arg_error("", format!("no field for the check of {p:?}")))?;
        match p.violation(bounds, *origin, *extent) {
            Some(values) => Err(failure::failed(self.name, &p.failure, &values, &[])),
            None => Ok(()),
        }
    }
}

/// The error of a call from its kernels' error records (see [`ERROR_RECORD_LEN`]; all zero
/// where a kernel recorded nothing): the failure of the first kernel that recorded one.
pub fn recorded_error(name: &str, kernels: &[KernelInfo], records: &[i64]) -> Result<(), Error> {
    for (kernel, record) in kernels.iter().zip(records.chunks(ERROR_RECORD_LEN)) {
        match kernel.recorded_failure(record) {
            Ok(None) => {}
            Ok(Some((f, message))) => return Err(failure::error(name, f, message)),
            Err(code) => {
                return Err(Error::Execution {
                    program: name.to_string(),
                    message: format!("kernel `{}` recorded the unknown error {code}", kernel.name),
                })
            }
        }
    }
    Ok(())
}

/// The cache key of a compiled module: source, options, architecture and driver version.
pub fn cache_key(source: &str, options: &[String], arch: &str, driver_version: i32) -> CacheKey {
    CacheKey::of(&[
        source.as_bytes(),
        options.join("\n").as_bytes(),
        arch.as_bytes(),
        &driver_version.to_le_bytes(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use gt4rs_ir::kernel::{ParamField, ParamType};

    #[test]
    fn param_block_places_every_field_at_its_offset() {
        let field = |name: &str, ty: ParamType, offset: usize, role: FieldRole| ParamField {
            name: name.into(),
            ty,
            offset,
            role,
        };
        let long = ParamType::Scalar(ScalarType::I64);
        let info = KernelInfo {
            name: "k".into(),
            stage: 0,
            scan: false,
            outer_dims: vec![0],
            vertical_dim: None,
            size: 40,
            fields: vec![
                field(
                    "f0",
                    ParamType::ConstPtr(ScalarType::F64),
                    0,
                    FieldRole::Data {
                        field: Source::Param(0),
                    },
                ),
                field("error", ParamType::ErrorSlot, 8, FieldRole::Error),
                field(
                    "f0_s1",
                    long,
                    16,
                    FieldRole::Stride {
                        field: Source::Param(0),
                        dim: 1,
                    },
                ),
                field("d0_hi", long, 24, FieldRole::Bound { dim: 0, end: true }),
                field(
                    "s1",
                    ParamType::Scalar(ScalarType::I32),
                    32,
                    FieldRole::Scalar { param: 1 },
                ),
            ],
            errors: vec![],
            preconditions: vec![],
        };
        let meta = FieldMeta {
            address: 0xdead_0000,
            origin: vec![0, 0],
            shape: vec![4, 5],
            strides: vec![5, 1],
        };
        let fields = [Some(&meta), None];
        let inputs = LaunchInputs {
            fields: &fields,
            scalars: &[None, Some(ScalarValue::I32(-7))],
            temporaries: &[],
            tables: &[],
            bounds: &[(1, 3)],
            error: 0xbeef,
        };
        let block = param_block(&info, &inputs).expect("fills");
        assert_eq!(block.len(), 5);
        assert_eq!(block[0], 0xdead_0000);
        assert_eq!(block[1], 0xbeef);
        assert_eq!(block[2], 1);
        assert_eq!(block[3], 3);
        assert_eq!(block[4] as u32 as i32, -7);
        let no_scalar = LaunchInputs {
            scalars: &[],
            ..inputs
        };
        assert!(param_block(&info, &no_scalar).is_err());
    }

    #[test]
    fn options_and_keys_follow_arch_and_tuning() {
        let o = nvrtc_options("sm_90", &CudaOptions::default());
        assert!(o.contains(&"--gpu-architecture=sm_90".to_string()));
        assert!(o.contains(&"-DGT4RS_K_BLOCK=8".to_string()));
        assert!(o.contains(&"--fmad=false".to_string()), "{o:?}");
        let contracting = CudaOptions {
            fma_contraction: true,
            ..CudaOptions::default()
        };
        assert!(nvrtc_options("sm_90", &contracting).contains(&"--fmad=true".to_string()));
        assert!(
            o.contains(&"-DGT4RS_HOIST_COLUMN_WORK=0".to_string()),
            "{o:?}"
        );
        let hoisting = CudaOptions {
            hoist_column_work: true,
            ..CudaOptions::default()
        };
        let oh = nvrtc_options("sm_90", &hoisting);
        assert!(oh.contains(&"-DGT4RS_HOIST_COLUMN_WORK=1".to_string()));
        assert_ne!(
            cache_key("src", &o, "sm_90", 13000),
            cache_key("src", &oh, "sm_90", 13000)
        );
        let k1 = cache_key("src", &o, "sm_90", 13000);
        assert_eq!(k1, cache_key("src", &o, "sm_90", 13000));
        assert_ne!(k1, cache_key("src", &o, "sm_80", 13000));
        assert_ne!(k1, cache_key("src", &o, "sm_90", 12080));
        assert_ne!(k1, cache_key("src2", &o, "sm_90", 13000));
        let o4 = nvrtc_options(
            "sm_90",
            &CudaOptions {
                k_block: 4,
                ..CudaOptions::default()
            },
        );
        assert_ne!(k1, cache_key("src", &o4, "sm_90", 13000));
    }
}
