//! Running a program: argument checks, evaluating each call and writing its value into the
//! target fields over the call's domain.

use std::rc::Rc;

use std::collections::HashMap;
use std::ops::Range;

use gt4rs_ir::failure::{Failure, FieldName};
use gt4rs_ir::fieldview::{
    DomainRange, ExprKind, Program, ProgramCall, ProgramParam, Role, Target,
};
use gt4rs_ir::{DimKind, ScalarType, Type};
use ndarray::{ArrayViewD, ArrayViewMutD, Slice};

use super::elem::Elem;
use super::eval::{Ctx, Scope};
use super::value::{for_each_point, Extent, FieldValue, Value};
use crate::args::{Arg, FieldView, FieldViewMut, ScalarValue};
use crate::connectivity::ConnectivityTable;
use crate::error::Error;

pub(crate) fn run(
    program: &Program,
    args: &mut [Arg<'_>],
    connectivities: &[&ConnectivityTable],
) -> Result<(), Error> {
    let ctx = Ctx {
        program,
        tables: bind_tables(program, connectivities)?,
        columns: Default::default(),
        reach: Default::default(),
        regions: Default::default(),
    };
    let mut values = check_args(program, args)?;
    // The arguments are written once every call has run: a call that fails leaves every
    // output as it was, as the CUDA backend's host calls do (the later calls read the earlier
    // ones' writes from `values`).
    let mut writes = Vec::new();
    for call in &program.calls {
        run_call(&ctx, call, args, &mut values, &mut writes)?;
    }
    for w in writes {
        apply(&mut args[w.param], &w.region, &w.data);
    }
    Ok(())
}

/// The region each call of `program` writes into each of its outputs, in call order, with
/// `args` as given: evaluates the calls' domains only (no value, no copy of a field), for
/// checks that look at what a call wrote.
pub(crate) fn written_regions(
    program: &Program,
    args: &[Arg<'_>],
) -> Result<Vec<super::WrittenRegion>, Error> {
    let ctx = Ctx {
        program,
        tables: HashMap::new(),
        columns: Default::default(),
        reach: Default::default(),
        regions: Default::default(),
    };
    // Fields by their extents alone: domains are scalar expressions of the parameters.
    let values: Vec<Value> = program
        .params
        .iter()
        .zip(args)
        .map(|(param, arg)| {
            Value::Field(match (arg, as_view(arg)) {
                (Arg::Scalar(s), _) => FieldValue::scalar(Elem::from(*s), s.dtype()),
                (_, Some(view)) => shape_of(&view, param.ty.dims().unwrap_or(&[])),
                (_, None) => FieldValue::scalar(Elem::Missing, ScalarType::Bool),
            })
        })
        .collect();
    let mut regions = Vec::new();
    for call in &program.calls {
        let mut leaves = Vec::new();
        target_leaves(&call.target, &mut leaves);
        for (param, domain) in leaves {
            let (_, _, region) = write_region(&ctx, param as usize, domain, &values)?;
            regions.push(super::WrittenRegion {
                param: param as usize,
                region,
            });
        }
    }
    Ok(regions)
}

/// The field targets of a (possibly tuple) target.
fn target_leaves<'t>(target: &'t Target, out: &mut Vec<(u32, &'t [DomainRange])>) {
    match target {
        Target::Field { param, domain } => out.push((*param, domain)),
        Target::Tuple(items) => items.iter().for_each(|t| target_leaves(t, out)),
    }
}

/// A field's dimensions and extents, without its data.
fn shape_of(view: &FieldView<'_>, dims: &[String]) -> FieldValue {
    fn extents<T>(a: &ArrayViewD<'_, T>, origin: &[i64]) -> Vec<Extent> {
        origin
            .iter()
            .zip(a.shape())
            .map(|(&o, &n)| Extent::range(o, o + n as i64))
            .collect()
    }
    let extents = match view {
        FieldView::Bool(a, o) => extents(a, o),
        FieldView::I32(a, o) => extents(a, o),
        FieldView::I64(a, o) => extents(a, o),
        FieldView::F32(a, o) => extents(a, o),
        FieldView::F64(a, o) => extents(a, o),
    };
    FieldValue {
        dims: dims.to_vec(),
        extents,
        dtype: view_dtype(view),
        data: Rc::new(Vec::new()),
    }
}

fn bind_tables<'p>(
    program: &'p Program,
    connectivities: &[&'p ConnectivityTable],
) -> Result<HashMap<&'p str, &'p ConnectivityTable>, Error> {
    let used = program.used_offsets();
    if used.len() != connectivities.len() {
        return Err(Error::Execution {
            program: program.name.clone(),
            message: format!(
                "the program uses {} offsets ({}), but {} tables were given",
                used.len(),
                used.iter()
                    .map(|o| o.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                connectivities.len()
            ),
        });
    }
    let mut tables = HashMap::new();
    for (info, table) in used.into_iter().zip(connectivities) {
        if table.offset() != info.name || table.count() != info.count as usize {
            return Err(Error::Connectivity {
                offset: info.name.clone(),
                message: format!(
                    "program `{}` expects the table of {} ({} neighbours), but got {} ({} neighbours)",
                    program.name,
                    info.name,
                    info.count,
                    table.offset(),
                    table.count()
                ),
            });
        }
        tables.insert(info.name.as_str(), *table);
    }
    Ok(tables)
}

fn arg_error(program: &Program, arg: &str, message: String) -> Error {
    Error::Argument {
        program: program.name.clone(),
        arg: arg.to_string(),
        message,
    }
}

fn view_dtype(view: &FieldView<'_>) -> ScalarType {
    match view {
        FieldView::Bool(..) => ScalarType::Bool,
        FieldView::I32(..) => ScalarType::I32,
        FieldView::I64(..) => ScalarType::I64,
        FieldView::F32(..) => ScalarType::F32,
        FieldView::F64(..) => ScalarType::F64,
    }
}

/// A read-only view of a field argument (mutable ones reborrowed).
fn as_view<'s>(arg: &'s Arg<'_>) -> Option<FieldView<'s>> {
    Some(match arg {
        Arg::Field(v) => match v {
            FieldView::Bool(a, o) => FieldView::Bool(a.view(), o),
            FieldView::I32(a, o) => FieldView::I32(a.view(), o),
            FieldView::I64(a, o) => FieldView::I64(a.view(), o),
            FieldView::F32(a, o) => FieldView::F32(a.view(), o),
            FieldView::F64(a, o) => FieldView::F64(a.view(), o),
        },
        Arg::FieldMut(v) => match v {
            FieldViewMut::Bool(a, o) => FieldView::Bool(a.view(), o),
            FieldViewMut::I32(a, o) => FieldView::I32(a.view(), o),
            FieldViewMut::I64(a, o) => FieldView::I64(a.view(), o),
            FieldViewMut::F32(a, o) => FieldView::F32(a.view(), o),
            FieldViewMut::F64(a, o) => FieldView::F64(a.view(), o),
        },
        Arg::Scalar(_) => return None,
    })
}

fn to_value(view: &FieldView<'_>, dims: &[String]) -> FieldValue {
    fn convert<T: Copy>(
        a: &ArrayViewD<'_, T>,
        origin: &[i64],
        dims: &[String],
        dtype: ScalarType,
        elem: impl Fn(T) -> Elem,
    ) -> FieldValue {
        FieldValue {
            dims: dims.to_vec(),
            extents: origin
                .iter()
                .zip(a.shape())
                .map(|(&o, &n)| Extent::range(o, o + n as i64))
                .collect(),
            dtype,
            data: Rc::new(a.iter().map(|&x| elem(x)).collect()),
        }
    }
    let dtype = view_dtype(view);
    match view {
        FieldView::Bool(a, o) => convert(a, o, dims, dtype, Elem::Bool),
        FieldView::I32(a, o) => convert(a, o, dims, dtype, Elem::I32),
        FieldView::I64(a, o) => convert(a, o, dims, dtype, Elem::I64),
        FieldView::F32(a, o) => convert(a, o, dims, dtype, Elem::F32),
        FieldView::F64(a, o) => convert(a, o, dims, dtype, Elem::F64),
    }
}

/// Checks every argument against its parameter and converts it to a value.
fn check_args(program: &Program, args: &[Arg<'_>]) -> Result<Vec<Value>, Error> {
    if args.len() != program.params.len() {
        return Err(Error::Execution {
            program: program.name.clone(),
            message: format!(
                "{} arguments were given for {} parameters",
                args.len(),
                program.params.len()
            ),
        });
    }
    let mut values = Vec::with_capacity(args.len());
    for (param, arg) in program.params.iter().zip(args) {
        let fail = |m: String| arg_error(program, &param.name, m);
        let value = match (&param.ty, arg) {
            (Type::Scalar(t), Arg::Scalar(s)) => {
                let e = Elem::from(*s);
                if e.dtype() != Some(*t) {
                    return Err(fail(format!(
                        "expected a {}, got {}",
                        t.rust_name(),
                        scalar_name(*s)
                    )));
                }
                FieldValue::scalar(e, *t)
            }
            (Type::Field { dims, dtype }, _) => {
                let view = as_view(arg).ok_or_else(|| {
                    fail(format!(
                        "expected a field of type {}, got a scalar",
                        param.ty
                    ))
                })?;
                if param.role != Role::In && !matches!(arg, Arg::FieldMut(_)) {
                    return Err(fail(
                        "it is written by the program, so it must be passed mutably".into(),
                    ));
                }
                let got = view_dtype(&view);
                if got != *dtype {
                    return Err(fail(format!(
                        "expected a field of {}, got a field of {}",
                        dtype.rust_name(),
                        got.rust_name()
                    )));
                }
                let (ndim, origin_len) = ranks(&view);
                if ndim != dims.len() || origin_len != ndim {
                    return Err(fail(format!(
                        "expected a field over ({}), got one with {ndim} dimensions and {origin_len} origin entries",
                        dims.join(", "),
                    )));
                }
                check_local_dims(program, param, &view, dims)?;
                to_value(&view, dims)
            }
            (Type::Scalar(t), _) => {
                return Err(fail(format!("expected a {}, got a field", t.rust_name())))
            }
            (Type::Tuple(_), _) => {
                return Err(fail(
                    "tuple parameters are not supported by the embedded backend".into(),
                ))
            }
        };
        values.push(Value::Field(value));
    }
    Ok(values)
}

/// A sparse field must hold exactly the offset's neighbours along its local dimension, as the
/// kernel backends require: read, a narrower one (or one with another origin) would drop
/// terms of a reduction or shift its slots; written, it would leave slots of the value out or
/// shift them.
fn check_local_dims(
    program: &Program,
    param: &ProgramParam,
    view: &FieldView<'_>,
    dims: &[String],
) -> Result<(), Error> {
    let FieldValue { extents, .. } = shape_of(view, dims);
    for (d, extent) in dims.iter().zip(extents) {
        let is_local = program.bundle.dim(d).map(|i| i.kind) == Some(DimKind::Local);
        let Some(offset) = program.bundle.offset(d).filter(|_| is_local) else {
            continue;
        };
        let count = offset.count;
        let (start, end) = match extent {
            Extent::Bounded { start, end } => (start, end),
            Extent::Unbounded => continue,
        };
        if start != 0 || end != i64::from(count) {
            let failure = Failure::LocalDimension {
                arg: param.name.clone(),
                dim: d.clone(),
                count,
            };
            return Err(arg_error(
                program,
                &param.name,
                failure.message(&[start, end], &[]),
            ));
        }
    }
    Ok(())
}

/// (array dimensions, origin entries)
fn ranks(view: &FieldView<'_>) -> (usize, usize) {
    match view {
        FieldView::Bool(a, o) => (a.ndim(), o.len()),
        FieldView::I32(a, o) => (a.ndim(), o.len()),
        FieldView::I64(a, o) => (a.ndim(), o.len()),
        FieldView::F32(a, o) => (a.ndim(), o.len()),
        FieldView::F64(a, o) => (a.ndim(), o.len()),
    }
}

fn scalar_name(s: ScalarValue) -> &'static str {
    Elem::from(s).dtype().map_or("?", |t| t.rust_name())
}

/// One checked write: the elements of `value` over `region` of parameter `param`.
struct Write {
    param: usize,
    region: Vec<Range<i64>>,
    data: Vec<Elem>,
}

fn run_call(
    ctx: &Ctx<'_>,
    call: &ProgramCall,
    args: &[Arg<'_>],
    values: &mut [Value],
    pending: &mut Vec<Write>,
) -> Result<(), Error> {
    let what = match &call.value.kind {
        ExprKind::Call { callee, .. } => ctx
            .program
            .bundle
            .operator(callee)
            .map_or(callee.as_str(), |o| o.name.as_str()),
        _ => "the value",
    };
    *ctx.columns.borrow_mut() = column_ranges(ctx, &call.target, values)?;
    *ctx.reach.borrow_mut() = reach(&ctx.columns.borrow(), values);
    // The whole value first, so a call that reads and writes one field reads its old values.
    let value = ctx.eval(&mut Scope::new(values, false), &call.value)?;
    let mut writes = Vec::new();
    plan_writes(ctx, what, &call.target, &value, values, &mut writes)?;
    if let Some(w) = writes
        .iter()
        .find(|w| !matches!(args[w.param], Arg::FieldMut(_)))
    {
        return Err(arg_error(
            ctx.program,
            &ctx.program.params[w.param].name,
            "it is written by the program, so it must be passed mutably".into(),
        ));
    }
    for w in writes {
        let Some(Value::Field(field)) = values.get_mut(w.param) else {
            return Err(ctx.err("a written argument is not a field"));
        };
        store(field, &w.region, &w.data);
        pending.push(w);
    }
    Ok(())
}

/// Writes `data` (row-major over `region`) into `field`'s elements, as [`apply`] writes it
/// into the argument: an element of another type (an undefined one) leaves the old value.
fn store(field: &mut FieldValue, region: &[Range<i64>], data: &[Elem]) {
    let strides = field.strides();
    let starts = field.starts();
    let dtype = field.dtype;
    let elements = Rc::make_mut(&mut field.data);
    let extents: Vec<Extent> = region
        .iter()
        .map(|r| Extent::range(r.start, r.end))
        .collect();
    let mut next = data.iter();
    let _ = for_each_point(&extents, |point| -> Result<(), ()> {
        let Some(&e) = next.next() else {
            return Err(());
        };
        if e.dtype() == Some(dtype) {
            let at: usize = point
                .iter()
                .zip(&starts)
                .zip(&strides)
                .map(|((&i, &s), &stride)| (i - s) as usize * stride)
                .sum();
            if let Some(slot) = elements.get_mut(at) {
                *slot = e;
            }
        }
        Ok(())
    });
}

fn plan_writes(
    ctx: &Ctx<'_>,
    what: &str,
    target: &Target,
    value: &Value,
    params: &[Value],
    writes: &mut Vec<Write>,
) -> Result<(), Error> {
    let program = &ctx.program.name;
    let domain_err = |message: String| Error::Domain {
        program: program.clone(),
        message,
    };
    match (target, value) {
        (Target::Tuple(targets), Value::Tuple(items)) if targets.len() == items.len() => {
            for (t, v) in targets.iter().zip(items) {
                plan_writes(ctx, what, t, v, params, writes)?;
            }
            Ok(())
        }
        (Target::Tuple(targets), _) => Err(ctx.err(format!(
            "{what} does not return a tuple of {} values for its tuple output",
            targets.len()
        ))),
        (Target::Field { param, domain }, Value::Field(v)) => {
            let index = *param as usize;
            let (out, field, region) = write_region(ctx, index, domain, params)?;
            if region.iter().any(|r| r.start >= r.end) {
                return Ok(());
            }
            for ((d, r), e) in field.dims.iter().zip(&region).zip(&field.extents) {
                if !e.covers(r.start, r.end) {
                    return Err(domain_err(format!(
                        "domain outside a field: output `{}` is written over {d} {}..{}, but the field covers {d} {e}",
                        out.name, r.start, r.end
                    )));
                }
            }
            if let Some(d) = v.dims.iter().find(|d| !field.dims.contains(d)) {
                return Err(domain_err(format!(
                    "{what} returns a value over ({}), which output `{}` over ({}) lacks: dimension {d}",
                    v.dims.join(", "),
                    out.name,
                    field.dims.join(", ")
                )));
            }
            for (d, r) in field.dims.iter().zip(&region) {
                if let Some(a) = v.axis(d) {
                    let e = v.extents[a];
                    if !e.covers(r.start, r.end) {
                        let missing = match e {
                            Extent::Bounded { start, .. } if start > r.start => {
                                r.start..start.min(r.end)
                            }
                            Extent::Bounded { end, .. } => end.max(r.start)..r.end,
                            Extent::Unbounded => r.clone(),
                        };
                        return Err(domain_err(format!(
                            "{what} is defined over {d} {e}, which does not cover the domain {}..{} written to output `{}`: {d} {}..{} is missing",
                            r.start, r.end, out.name, missing.start, missing.end
                        )));
                    }
                }
            }
            if v.dtype != field.dtype {
                return Err(ctx.err(format!(
                    "{what} returns {} values for output `{}` of {}",
                    v.dtype.rust_name(),
                    out.name,
                    field.dtype.rust_name()
                )));
            }
            let acc = v.accessor(&field.dims).map_err(|m| ctx.err(m))?;
            let extents: Vec<Extent> = region
                .iter()
                .map(|r| Extent::range(r.start, r.end))
                .collect();
            let mut data = Vec::with_capacity(super::value::storage_len(&extents));
            for_each_point(&extents, |point| {
                let e = v.data[acc.offset(point)];
                if e == Elem::Missing {
                    let named: Vec<(&str, i64)> = field
                        .dims
                        .iter()
                        .map(String::as_str)
                        .zip(point.iter().copied())
                        .collect();
                    let undefined = Failure::Undefined {
                        field: FieldName::Argument(out.name.clone()),
                    };
                    return Err(ctx.err(format!("{what}: {}", undefined.message(&[], &named))));
                }
                data.push(e);
                Ok(())
            })?;
            writes.push(Write {
                param: index,
                region,
                data,
            });
            Ok(())
        }
        (Target::Field { .. }, Value::Tuple(_)) => Err(ctx.err(format!(
            "{what} returns a tuple, but its output is a single field"
        ))),
    }
}

/// The output parameter `index`, its current value and the region a call writes: the listed
/// ranges, the field's whole range along the other dimensions.
fn write_region<'v>(
    ctx: &Ctx<'v>,
    index: usize,
    domain: &[DomainRange],
    params: &'v [Value],
) -> Result<(&'v ProgramParam, &'v FieldValue, Vec<Range<i64>>), Error> {
    let out = ctx.program.params.get(index).ok_or_else(|| {
        ctx.err(format!(
            "the output is parameter {index}, which does not exist"
        ))
    })?;
    let Some(Value::Field(field)) = params.get(index) else {
        return Err(ctx.err(format!("output `{}` is not a field", out.name)));
    };
    let mut region: Vec<Range<i64>> = field
        .extents
        .iter()
        .map(|e| match e {
            Extent::Bounded { start, end } => *start..*end,
            Extent::Unbounded => 0..0,
        })
        .collect();
    let mut scope = Scope::new(params, false);
    for range in domain {
        let axis = field.axis(&range.dim).ok_or_else(|| Error::Domain {
            program: ctx.program.name.clone(),
            message: format!(
                "output `{}` over ({}) has no dimension {} to write a domain of",
                out.name,
                field.dims.join(", "),
                range.dim
            ),
        })?;
        let start = ctx.eval_int(&mut scope, &range.start)?;
        let end = ctx.eval_int(&mut scope, &range.end)?;
        if end < start {
            let reversed = Failure::ReversedDomain {
                dim: range.dim.clone(),
            };
            return Err(Error::Domain {
                program: ctx.program.name.clone(),
                message: reversed.message(&[start, end], &[]),
            });
        }
        region[axis] = start..end;
    }
    Ok((out, field, region))
}

/// The ranges of the first field a call writes: scans run over its range along their axis
/// (GT4Py's column range), not over all the levels their arguments happen to cover.
fn column_ranges(
    ctx: &Ctx<'_>,
    target: &Target,
    params: &[Value],
) -> Result<Vec<(String, Range<i64>)>, Error> {
    match target {
        Target::Field { param, domain } => {
            let (_, field, region) = write_region(ctx, *param as usize, domain, params)?;
            Ok(field.dims.iter().cloned().zip(region).collect())
        }
        Target::Tuple(items) => match items.first() {
            Some(first) => column_ranges(ctx, first, params),
            None => Ok(Vec::new()),
        },
    }
}

/// The hull per dimension of `columns` and the ranges of the field arguments.
fn reach(columns: &[(String, Range<i64>)], params: &[Value]) -> Vec<(String, Range<i64>)> {
    let mut hull: Vec<(String, Range<i64>)> = Vec::new();
    let mut widen = |dim: &str, range: Range<i64>| {
        if range.start >= range.end {
            return;
        }
        match hull.iter_mut().find(|(d, _)| d == dim) {
            Some((_, r)) => *r = r.start.min(range.start)..r.end.max(range.end),
            None => hull.push((dim.to_string(), range)),
        }
    };
    for (d, r) in columns {
        widen(d, r.clone());
    }
    for param in params {
        if let Value::Field(f) = param {
            for (d, e) in f.dims.iter().zip(&f.extents) {
                if let Extent::Bounded { start, end } = *e {
                    widen(d, start..end);
                }
            }
        }
    }
    hull
}

/// Stores `data` (row-major over `region`) into the argument.
fn apply(arg: &mut Arg<'_>, region: &[Range<i64>], data: &[Elem]) {
    fn store<T>(
        a: &mut ArrayViewMutD<'_, T>,
        origin: &[i64],
        region: &[Range<i64>],
        data: &[Elem],
        convert: impl Fn(Elem) -> Option<T>,
    ) {
        let mut part = a.slice_each_axis_mut(|ax| {
            let r = &region[ax.axis.index()];
            let o = origin[ax.axis.index()];
            Slice::from((r.start - o) as usize..(r.end - o) as usize)
        });
        for (slot, e) in part.iter_mut().zip(data) {
            if let Some(x) = convert(*e) {
                *slot = x;
            }
        }
    }
    if let Arg::FieldMut(view) = arg {
        match view {
            FieldViewMut::Bool(a, o) => store(a, o, region, data, |e| match e {
                Elem::Bool(x) => Some(x),
                _ => None,
            }),
            FieldViewMut::I32(a, o) => store(a, o, region, data, |e| match e {
                Elem::I32(x) => Some(x),
                _ => None,
            }),
            FieldViewMut::I64(a, o) => store(a, o, region, data, |e| match e {
                Elem::I64(x) => Some(x),
                _ => None,
            }),
            FieldViewMut::F32(a, o) => store(a, o, region, data, |e| match e {
                Elem::F32(x) => Some(x),
                _ => None,
            }),
            FieldViewMut::F64(a, o) => store(a, o, region, data, |e| match e {
                Elem::F64(x) => Some(x),
                _ => None,
            }),
        }
    }
}
