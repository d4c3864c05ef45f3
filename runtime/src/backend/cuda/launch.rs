//! The host side of a launch that needs no GPU: domain bounds from a call's scalars, the
//! parameter block of a kernel (its `#[repr(C)]` struct as bytes, filled by field role), NVRTC
//! options and the cache key. The device code in `device.rs` only adds pointers and calls.

use std::collections::BTreeMap;
use std::sync::Arc;

use gt4rs_ir::fieldview::{Program, ProgramParam};
use gt4rs_ir::kernel::{dtype_size, FieldRole, KernelInfo};
use gt4rs_ir::scalar;
use gt4rs_ir::stage::{Bound, Node, NodeId, Source, Stage, StageProgram};
use gt4rs_ir::{ScalarType, Type};

use crate::args::ScalarValue;
use crate::backend::cuda::source::Translation;
use crate::cache::CacheKey;
use crate::config::CudaOptions;
use crate::connectivity::ConnectivityTable;
use crate::error::Error;

/// Where a field argument lives on the device, and its index space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldMeta {
    /// Device address of the element at `origin`.
    pub address: u64,
    pub origin: Vec<i64>,
    pub shape: Vec<i64>,
    /// In elements.
    pub strides: Vec<i64>,
}

/// Evaluates a uniform node (over program scalars and literals) of `stage`, by the scalar rules
/// the kernels follow.
fn eval(stage: &Stage, id: NodeId, scalars: &[Option<ScalarValue>]) -> Result<ScalarValue, String> {
    let node = stage
        .nodes
        .get(id as usize)
        .ok_or_else(|| format!("bound node {id} does not exist"))?;
    let sub = |n: NodeId| eval(stage, n, scalars);
    let rule = |r: scalar::ScalarResult| r.map_err(|e| e.to_string());
    match node {
        Node::Scalar { param, .. } => scalars
            .get(*param as usize)
            .copied()
            .flatten()
            .ok_or_else(|| format!("parameter {param} is not a scalar")),
        Node::Literal { value, dtype } => Ok(ScalarValue::from_literal(*value, *dtype)),
        Node::Cast { arg, to } => Ok(sub(*arg)?.cast(*to)),
        Node::Unary { op, arg, .. } => rule(scalar::unary(*op, sub(*arg)?)),
        Node::Binary { op, lhs, rhs, .. } => rule(scalar::binary(*op, sub(*lhs)?, sub(*rhs)?)),
        Node::Compare { op, lhs, rhs } => rule(scalar::compare(*op, sub(*lhs)?, sub(*rhs)?)),
        Node::Select {
            cond,
            if_true,
            if_false,
            ..
        } => match sub(*cond)? {
            ScalarValue::Bool(true) => sub(*if_true),
            ScalarValue::Bool(false) => sub(*if_false),
            other => Err(format!("a select condition of type {:?}", other.dtype())),
        },
        Node::Math { fun, args, .. } => {
            let values = args
                .iter()
                .map(|a| sub(*a))
                .collect::<Result<Vec<_>, _>>()?;
            rule(scalar::math(*fun, &values))
        }
        other => Err(format!("a domain bound depends on {other:?}")),
    }
}

/// What a stage's domain bounds may refer to, for one call.
pub struct BoundInputs<'a> {
    /// Origin and shape of the stage's first output (for [`Bound::OutputFull`]).
    pub first_output: (&'a [i64], &'a [i64]),
    /// The program's parameters (a field's dimension names are in its type).
    pub params: &'a [ProgramParam],
    /// Per program parameter: the device field (None for scalars).
    pub fields: &'a [Option<&'a FieldMeta>],
    pub scalars: &'a [Option<ScalarValue>],
    /// Every connectivity by offset name (host copies: reach bounds are computed on the host).
    pub tables: &'a [NamedTable],
}

/// A connectivity table and the name of its offset.
pub type NamedTable = (String, Arc<ConnectivityTable>);

/// The value of a bound node when the given scalars determine it (`None` otherwise).
pub fn node_bound(stage: &Stage, bound: &Bound, scalars: &[Option<ScalarValue>]) -> Option<i64> {
    match bound {
        Bound::Node(id) => eval(stage, *id, scalars).ok()?.as_i64(),
        _ => None,
    }
}

/// A scalar as a C literal of its type (`None` for a non-finite float).
pub fn c_literal(value: ScalarValue) -> Option<String> {
    Some(match value {
        ScalarValue::Bool(b) => b.to_string(),
        ScalarValue::I32(v) => format!("({v})"),
        ScalarValue::I64(v) => format!("({v}LL)"),
        ScalarValue::F32(v) if v.is_finite() => format!("({v:e}f)"),
        ScalarValue::F64(v) if v.is_finite() => format!("({v:e})"),
        _ => return None,
    })
}

/// `-D` options fixing static arguments (`GT4RS_STATIC_S<param>`) and the domain bounds they
/// determine (`GT4RS_S<stage>_D<dim>_LO/HI`). `statics` holds a value per parameter index
/// that is static and known.
pub fn static_defines(stages: &[Stage], statics: &[Option<ScalarValue>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, v) in statics.iter().enumerate() {
        if let Some(lit) = v.and_then(c_literal) {
            out.push(format!("-DGT4RS_STATIC_S{i}={lit}"));
        }
    }
    for (si, stage) in stages.iter().enumerate() {
        for (j, r) in stage.domain.iter().enumerate() {
            let lo = node_bound(stage, &r.start, statics);
            let hi = node_bound(stage, &r.end, statics);
            if let Some(lo) = lo {
                out.push(format!("-DGT4RS_S{si}_D{j}_LO=({lo}LL)"));
                if let Some(hi) = hi {
                    out.push(format!("-DGT4RS_S{si}_D{j}_HI=({}LL)", hi.max(lo)));
                }
            }
        }
    }
    out
}

/// `(start, end)` per domain dimension of `stage` (an empty range when `end < start`).
pub fn stage_bounds(stage: &Stage, inputs: &BoundInputs<'_>) -> Result<Vec<(i64, i64)>, String> {
    let (origin, shape) = inputs.first_output;
    let mut out = Vec::with_capacity(stage.domain.len());
    for (j, r) in stage.domain.iter().enumerate() {
        let full = origin
            .get(j)
            .zip(shape.get(j))
            .map(|(o, n)| (*o, o + n))
            .ok_or_else(|| "the first output has fewer dimensions than the domain".to_string());
        let lo = bound_value(stage, &r.dim, &r.start, false, &full, inputs)?;
        let hi = bound_value(stage, &r.dim, &r.end, true, &full, inputs)?.max(lo);
        out.push((lo, hi));
    }
    Ok(out)
}

/// The start (`end == false`) or end of bound `b` of domain dimension `dim`; `full` is the
/// first output's range along it.
fn bound_value(
    stage: &Stage,
    dim: &str,
    b: &Bound,
    end: bool,
    full: &Result<(i64, i64), String>,
    inputs: &BoundInputs<'_>,
) -> Result<i64, String> {
    let field_bound = |param: u32, field_dim: &str, end: bool| -> Result<i64, String> {
        let no_field = || format!("domain bound of parameter {param}, which is no field");
        let meta = inputs
            .fields
            .get(param as usize)
            .copied()
            .flatten()
            .ok_or_else(no_field)?;
        let Some(Type::Field { dims, .. }) = inputs.params.get(param as usize).map(|p| &p.ty)
        else {
            return Err(no_field());
        };
        let d = dims
            .iter()
            .position(|x| x == field_dim)
            .ok_or_else(|| format!("parameter {param} has no dimension `{field_dim}`"))?;
        let (o, n) = (meta.origin[d], meta.shape[d]);
        Ok(if end { o + n } else { o })
    };
    let table = |offset: &str| {
        inputs
            .tables
            .iter()
            .find(|(o, _)| o == offset)
            .map(|(_, t)| t)
            .ok_or_else(|| format!("no connectivity for `{offset}`"))
    };
    match b {
        Bound::OutputFull => full.clone().map(|(lo, hi)| if end { hi } else { lo }),
        Bound::Node(id) => eval(stage, *id, inputs.scalars)?
            .as_i64()
            .ok_or_else(|| format!("the domain bound along {dim} is not an integer")),
        Bound::FieldStart { param, dim } => field_bound(*param, dim, false),
        Bound::FieldEnd { param, dim } => field_bound(*param, dim, true),
        Bound::TargetSize { offset } => Ok(table(offset)?.target_size() as i64),
        // A temporary read through a neighbour table covers the entries the reading rows
        // hold, as on the CPU (`ConnectivityTable::reach`): boundary rows outside them may hold -1
        // entries the temporary's own gathers would fail on. Their rows' own bounds see no
        // output range (as on the CPU).
        Bound::Reach {
            offset,
            rows_start,
            rows_end,
        } => {
            let t = table(offset)?;
            let no_full = Ok((0, 0));
            let lo = bound_value(stage, dim, rows_start, false, &no_full, inputs)?;
            let hi = bound_value(stage, dim, rows_end, true, &no_full, inputs)?;
            let (least, past) = t.reach(lo, hi);
            Ok(if end { past } else { least })
        }
    }
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
    pub bounds: &'a [(i64, i64)],
    /// Device address of this kernel's error slot.
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

/// The tuning constants as `-D` options (`GT4RS_BLOCK_SIZE`, `GT4RS_K_BLOCK`), the block size
/// being the one [`LaunchPlan::plan_call`] launches with.
pub fn tuning_defines(options: &CudaOptions) -> Vec<String> {
    vec![
        format!("-DGT4RS_BLOCK_SIZE={}", options.block_size.max(1)),
        format!("-DGT4RS_K_BLOCK={}", options.k_block.max(1)),
    ]
}

/// NVRTC options for `arch` (e.g. `sm_90`): the architecture through `options` (cudarc's
/// `arch` wants a `&'static str`), the tuning constants as macros.
pub fn nvrtc_options(arch: &str, options: &CudaOptions) -> Vec<String> {
    let mut out = vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".to_string(),
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
    Field { dtype: ScalarType, meta: FieldMeta },
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
    pub name: &'static str,
    pub program: &'static Program,
    pub stages: &'static StageProgram,
    pub kernels: &'static [KernelInfo],
    /// Static argument values compiled in (per parameter index).
    pub statics: Vec<Option<ScalarValue>>,
    /// Host copies of the connectivities, by offset name (for reach and target-size bounds).
    pub named_tables: Vec<NamedTable>,
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
    /// `error_base` is the address of kernel 0's error slot (kernel `i` uses
    /// `error_base + 4 i`). `temporary(t, bytes)` gives the address of a buffer of at least
    /// `bytes` for temporary `t`, which holds it row-major over the stage's domain.
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
                    Source::Param(p) => fields.get(p as usize).copied().flatten(),
                    Source::Temporary(t) => temp_meta.get(t as usize).and_then(Option::as_ref),
                })
                .map_or((&[][..], &[][..]), |f| {
                    (f.origin.as_slice(), f.shape.as_slice())
                });
            let bounds = stage_bounds(
                stage,
                &BoundInputs {
                    first_output: first,
                    params,
                    fields: &fields,
                    scalars: &scalars,
                    tables: &self.named_tables,
                },
            )
            .map_err(|m| Error::Domain {
                program: self.name.to_string(),
                message: m,
            })?;
            let outer: u64 = info
                .outer_dims
                .iter()
                .map(|&d| (bounds[d].1 - bounds[d].0) as u64)
                .product();
            let levels = info
                .vertical_dim
                .map(|d| (bounds[d].1 - bounds[d].0) as u64)
                .unwrap_or(1);
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
                let shape: Vec<usize> = bounds
                    .iter()
                    .zip(&stage.domain)
                    .map(|((lo, hi), r)| {
                        let n = (hi - lo) as usize;
                        if matches!(r.start, Bound::Reach { .. }) {
                            n.max(1)
                        } else {
                            n
                        }
                    })
                    .collect();
                let bytes = shape.iter().product::<usize>().max(1) * dtype_size(dtype);
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
            let inputs = LaunchInputs {
                temporaries: &temp_meta,
                fields: &fields,
                scalars: &scalars,
                tables,
                bounds: &bounds,
                error: error_base + 4 * i as u64,
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
}

/// The error of a call from its kernels' error slots (one code per kernel, 0 when the
/// kernel recorded nothing): the first recorded failure, with its message.
pub fn recorded_error(name: &str, kernels: &[KernelInfo], codes: &[i32]) -> Result<(), Error> {
    match codes.iter().enumerate().find(|(_, c)| **c != 0) {
        None => Ok(()),
        Some((i, &code)) => Err(Error::Execution {
            program: name.to_string(),
            message: kernels
                .get(i)
                .and_then(|k| k.error_message(code))
                .unwrap_or("a kernel reported an unknown error")
                .to_string(),
        }),
    }
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
    use gt4rs_ir::fieldview::{BinaryOp, Literal};
    use gt4rs_ir::kernel::{ParamField, ParamType};
    use gt4rs_ir::stage::StageRange;

    fn stage(nodes: Vec<Node>, domain: Vec<StageRange>) -> Stage {
        Stage {
            domain,
            nodes,
            outputs: vec![],
            scan: None,
        }
    }

    #[test]
    fn bounds_evaluate_scalars_literals_and_full_ranges() {
        let s = stage(
            vec![
                Node::Scalar {
                    param: 1,
                    dtype: ScalarType::I32,
                },
                Node::Literal {
                    value: Literal::Int(2),
                    dtype: ScalarType::I32,
                },
                Node::Binary {
                    op: BinaryOp::Sub,
                    lhs: 0,
                    rhs: 1,
                    dtype: ScalarType::I32,
                },
            ],
            vec![
                StageRange {
                    dim: "Edge".into(),
                    start: Bound::Node(1),
                    end: Bound::Node(2),
                },
                StageRange {
                    dim: "K".into(),
                    start: Bound::OutputFull,
                    end: Bound::OutputFull,
                },
            ],
        );
        let inputs = |scalars: &'static [Option<ScalarValue>]| BoundInputs {
            first_output: (&[0, 3], &[20, 5]),
            params: &[],
            fields: &[],
            scalars,
            tables: &[],
        };
        let b = stage_bounds(&s, &inputs(&[None, Some(ScalarValue::I32(17))])).expect("evaluates");
        assert_eq!(b, vec![(2, 15), (3, 8)]);
        // An empty range stays empty instead of going negative.
        let b = stage_bounds(&s, &inputs(&[None, Some(ScalarValue::I32(-4))])).expect("evaluates");
        assert_eq!(b[0], (2, 2));
        // A missing scalar is an error, not a panic.
        assert!(stage_bounds(&s, &inputs(&[])).is_err());
    }

    #[test]
    fn a_reach_bound_covers_the_entries_of_the_reading_rows_only() {
        use crate::connectivity::Connectivity;
        use crate::dims::{Dimension, Offset};
        use gt4rs_ir::DimKind;
        #[derive(Clone, Copy, Default, Debug)]
        struct Edge;
        #[derive(Clone, Copy, Default, Debug)]
        struct Cell;
        #[derive(Clone, Copy, Default, Debug)]
        struct E2C;
        impl Dimension for Edge {
            const NAME: &'static str = "Edge";
            const KIND: DimKind = DimKind::Horizontal;
        }
        impl Dimension for Cell {
            const NAME: &'static str = "Cell";
            const KIND: DimKind = DimKind::Horizontal;
        }
        impl Dimension for E2C {
            const NAME: &'static str = "E2C";
            const KIND: DimKind = DimKind::Local;
        }
        impl Offset for E2C {
            type From = Edge;
            type To = Cell;
            const COUNT: usize = 2;
        }
        // Row 0 (a boundary edge outside the reading rows) holds a -1 and cell 0.
        let table = ndarray::arr2(&[[-1, 0], [3, 5], [4, -1], [7, 2], [9, 8]]);
        let e2c = Connectivity::<E2C>::new(table, 10).expect("valid table");
        let tables: Vec<NamedTable> = vec![("E2C".into(), e2c.shared())];
        let lit = |v: i64| Node::Literal {
            value: Literal::Int(v),
            dtype: ScalarType::I32,
        };
        let reach = |lo: NodeId, hi: NodeId| Bound::Reach {
            offset: "E2C".into(),
            rows_start: Box::new(Bound::Node(lo)),
            rows_end: Box::new(Bound::Node(hi)),
        };
        let s = stage(
            vec![lit(1), lit(3), lit(4), lit(4)],
            vec![StageRange {
                dim: "Cell".into(),
                start: reach(0, 1),
                end: reach(0, 1),
            }],
        );
        let inputs = BoundInputs {
            first_output: (&[], &[]),
            params: &[],
            fields: &[],
            scalars: &[],
            tables: &tables,
        };
        // Rows 1..3 hold 3, 5, 4 (and a -1): cells 3..6, not the whole 0..10.
        assert_eq!(stage_bounds(&s, &inputs).expect("evaluates"), vec![(3, 6)]);
        // An empty range of rows reaches nothing.
        let empty = Stage {
            domain: vec![StageRange {
                dim: "Cell".into(),
                start: reach(2, 3),
                end: reach(2, 3),
            }],
            ..s
        };
        assert_eq!(
            stage_bounds(&empty, &inputs).expect("evaluates"),
            vec![(0, 0)]
        );
    }

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
    fn static_arguments_become_defines_with_the_bounds_they_fix() {
        let s = stage(
            vec![
                Node::Scalar {
                    param: 2,
                    dtype: ScalarType::I32,
                },
                Node::Literal {
                    value: Literal::Int(1),
                    dtype: ScalarType::I32,
                },
            ],
            vec![StageRange {
                dim: "K".into(),
                start: Bound::Node(1),
                end: Bound::Node(0),
            }],
        );
        let statics = [
            None,
            Some(ScalarValue::Bool(true)),
            Some(ScalarValue::I32(80)),
        ];
        let d = static_defines(std::slice::from_ref(&s), &statics);
        assert!(d.contains(&"-DGT4RS_STATIC_S1=true".to_string()), "{d:?}");
        assert!(d.contains(&"-DGT4RS_STATIC_S2=(80)".to_string()), "{d:?}");
        assert!(d.contains(&"-DGT4RS_S0_D0_LO=(1LL)".to_string()), "{d:?}");
        assert!(d.contains(&"-DGT4RS_S0_D0_HI=(80LL)".to_string()), "{d:?}");
        // Without the static value the end stays a run-time value.
        let d = static_defines(std::slice::from_ref(&s), &[None, None, None]);
        assert!(!d.iter().any(|x| x.contains("HI")), "{d:?}");
        assert_eq!(c_literal(ScalarValue::F64(f64::NAN)), None);
        assert_eq!(c_literal(ScalarValue::F64(0.1)), Some("(1e-1)".into()));
    }

    #[test]
    fn options_and_keys_follow_arch_and_tuning() {
        let o = nvrtc_options("sm_90", &CudaOptions::default());
        assert!(o.contains(&"--gpu-architecture=sm_90".to_string()));
        assert!(o.contains(&"-DGT4RS_K_BLOCK=8".to_string()));
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
