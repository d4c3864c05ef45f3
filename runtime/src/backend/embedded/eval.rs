//! Evaluation of fieldview expressions to whole values, one IR node at a time.

use std::rc::Rc;

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use gt4rs_ir::fieldview::{Expr, MathFun};
use gt4rs_ir::fieldview::{ExprKind, OperatorKind, Program, ReduceOp};
use gt4rs_ir::scalar::ScalarError;
use gt4rs_ir::types::canonical_order;
use gt4rs_ir::{OffsetInfo, ScalarType, Type};

use super::concat::{concat_where, Cond};
use super::elem::{self, common_dtype, Elem};
use super::ops::{failure_at, take_index, zip_map, zip_map_over};
use super::scan::scan;
use super::value::{for_each_point, storage_len, Extent, FieldValue, Value};
use crate::connectivity::ConnectivityTable;
use crate::error::Error;

/// What every evaluation of one program run shares.
pub(crate) struct Ctx<'p> {
    pub program: &'p Program,
    /// Neighbour tables by offset name.
    pub tables: HashMap<&'p str, &'p ConnectivityTable>,
    /// The index range per dimension of the field the current program call writes; a scan
    /// runs along its axis over this range (within its arguments' range).
    pub columns: RefCell<Vec<(String, Range<i64>)>>,
    /// Per dimension, the hull of the current call's write range and its field arguments'
    /// ranges: how far a value that only broadcast branches of a `concat_where` define along a
    /// dimension is stored (any index a call can write or read through a field argument).
    pub reach: RefCell<Vec<(String, Range<i64>)>>,
    /// The `concat_where` branches being evaluated (condition, side taken): a scan inside them
    /// is active only where all of them hold.
    pub regions: RefCell<Vec<(Rc<Cond>, bool)>>,
}

/// The bindings visible to an expression.
pub(crate) struct Scope<'v> {
    pub params: &'v [Value],
    pub vars: Vec<(u32, Value)>,
    /// Inside a scan body the "scalars" are whole levels (fields over the non-scan dimensions),
    /// so an `if` condition may differ between points and is applied elementwise.
    pub vectorized: bool,
}

impl<'v> Scope<'v> {
    pub(crate) fn new(params: &'v [Value], vectorized: bool) -> Self {
        Scope {
            params,
            vars: Vec::new(),
            vectorized,
        }
    }
}

impl<'p> Ctx<'p> {
    pub(crate) fn err(&self, message: impl Into<String>) -> Error {
        Error::Execution {
            program: self.program.name.clone(),
            message: message.into(),
        }
    }

    fn ir_err(&self, message: impl Into<String>) -> Error {
        Error::Ir {
            program: self.program.name.clone(),
            message: message.into(),
        }
    }

    /// `dims` without repetitions, in canonical order.
    pub(crate) fn canonical<'a>(
        &self,
        dims: impl Iterator<Item = &'a String>,
    ) -> Result<Vec<String>, Error> {
        let all: Vec<String> = dims.cloned().collect();
        canonical_order(&all, &self.program.bundle.dims).ok_or_else(|| {
            self.ir_err(format!(
                "a dimension among ({}) is not declared in the program's bundle",
                all.join(", ")
            ))
        })
    }

    pub(crate) fn offset(&self, name: &str) -> Result<&'p OffsetInfo, Error> {
        self.program
            .bundle
            .offset(name)
            .ok_or_else(|| self.ir_err(format!("offset `{name}` is not declared in the bundle")))
    }

    pub(crate) fn table(&self, name: &str) -> Result<&'p ConnectivityTable, Error> {
        self.tables
            .get(name)
            .copied()
            .ok_or_else(|| Error::Connectivity {
                offset: name.to_string(),
                message: format!(
                    "program `{}` uses it, but no table for it was bound",
                    self.program.name
                ),
            })
    }

    pub(crate) fn field<'a>(&self, v: &'a Value, what: &str) -> Result<&'a FieldValue, Error> {
        match v {
            Value::Field(f) => Ok(f),
            Value::Tuple(_) => Err(self.ir_err(format!("{what} is a tuple, a field was expected"))),
        }
    }

    fn take_field(&self, v: Value, what: &str) -> Result<FieldValue, Error> {
        match v {
            Value::Field(f) => Ok(f),
            Value::Tuple(_) => Err(self.ir_err(format!("{what} is a tuple, a field was expected"))),
        }
    }

    fn dtype(&self, ty: &Type) -> Result<ScalarType, Error> {
        ty.dtype()
            .ok_or_else(|| self.ir_err(format!("expected a scalar or field type, found {ty}")))
    }

    /// The value of a scalar integer expression (domain bounds, `concat_where` conditions).
    pub(crate) fn eval_int(&self, scope: &mut Scope<'_>, expr: &Expr) -> Result<i64, Error> {
        let v = self.eval(scope, expr)?;
        let f = self.field(&v, "an integer bound")?;
        f.single()
            .and_then(Elem::as_i64)
            .ok_or_else(|| self.err("a domain bound or condition is not a single integer"))
    }

    /// Evaluates `expr`, growing the stack as it goes: the recursion is as deep as the user's
    /// expressions (`gt4rs_ir::stack`), and a test thread has 2 MiB.
    pub(crate) fn eval(&self, scope: &mut Scope<'_>, expr: &Expr) -> Result<Value, Error> {
        gt4rs_ir::stack::grow(|| self.eval_node(scope, expr))
    }

    fn eval_node(&self, scope: &mut Scope<'_>, expr: &Expr) -> Result<Value, Error> {
        use ExprKind::*;
        Ok(match &expr.kind {
            Param(n) => scope
                .params
                .get(*n as usize)
                .cloned()
                .ok_or_else(|| self.ir_err(format!("parameter {n} does not exist")))?,
            Var(n) => scope
                .vars
                .iter()
                .rev()
                .find(|(v, _)| v == n)
                .map(|(_, value)| value.clone())
                .ok_or_else(|| self.ir_err(format!("variable {n} is not bound")))?,
            Let { var, value, body } => {
                let bound = self.eval(scope, value)?;
                scope.vars.push((*var, bound));
                let result = self.eval(scope, body);
                scope.vars.pop();
                result?
            }
            Literal(lit) => {
                let dtype = self.dtype(&expr.ty)?;
                Value::Field(FieldValue::scalar(Elem::from_literal(*lit, dtype), dtype))
            }
            CartesianShift { arg, dim, offset } => {
                let mut v = self.take_field(self.eval(scope, arg)?, "a shifted value")?;
                if let Some(a) = v.axis(dim) {
                    v.extents[a] = offset
                        .checked_neg()
                        .and_then(|by| v.extents[a].shifted(by))
                        .ok_or_else(|| {
                            self.err(format!(
                                "the shift by {offset} along {dim} moves the range of the value it shifts ({}) past the 64-bit indices",
                                v.extents[a]
                            ))
                        })?;
                }
                Value::Field(v)
            }
            DynamicShift { arg, dim, offset } => {
                let a = self.eval(scope, arg)?;
                let off = self.eval(scope, offset)?;
                Value::Field(self.dynamic_shift(
                    self.field(&a, "a shifted value")?,
                    dim,
                    self.field(&off, "a dynamic offset")?,
                )?)
            }
            NeighborShift { arg, offset, slot } => {
                let a = self.eval(scope, arg)?;
                Value::Field(self.neighbor_shift(
                    self.field(&a, "a shifted value")?,
                    offset,
                    *slot,
                )?)
            }
            LocalIndex { arg, local, slot } => {
                let a = self.eval(scope, arg)?;
                let a = self.field(&a, "an indexed value")?;
                let axis = a.axis(local).ok_or_else(|| {
                    self.ir_err(format!(
                        "local index over `{local}` of a value over ({})",
                        a.dims.join(", ")
                    ))
                })?;
                if !a.extents[axis].contains(*slot as i64) {
                    return Err(self.err(format!(
                        "slot {slot} of `{local}` is outside the value's range {}",
                        a.extents[axis]
                    )));
                }
                Value::Field(take_index(a, axis, *slot as i64))
            }
            Unary { op, arg } => {
                let a = self.eval(scope, arg)?;
                let dtype = self.dtype(&expr.ty)?;
                let op = *op;
                Value::Field(zip_map(
                    self,
                    &[self.field(&a, "an operand")?],
                    dtype,
                    |e| elem::unary(op, e[0].cast(dtype)),
                )?)
            }
            Binary { op, lhs, rhs } => {
                let a = self.eval(scope, lhs)?;
                let b = self.eval(scope, rhs)?;
                let dtype = self.dtype(&expr.ty)?;
                let op = *op;
                let inputs = [self.field(&a, "an operand")?, self.field(&b, "an operand")?];
                Value::Field(zip_map(self, &inputs, dtype, |e| {
                    elem::binary(op, e[0].cast(dtype), e[1].cast(dtype))
                })?)
            }
            Compare { op, lhs, rhs } => {
                let a = self.eval(scope, lhs)?;
                let b = self.eval(scope, rhs)?;
                let inputs = [self.field(&a, "an operand")?, self.field(&b, "an operand")?];
                let operand = common_dtype(inputs[0].dtype, inputs[1].dtype);
                let op = *op;
                Value::Field(zip_map(self, &inputs, ScalarType::Bool, |e| {
                    elem::compare(op, e[0].cast(operand), e[1].cast(operand))
                })?)
            }
            Math { fun, args } => {
                let values = args
                    .iter()
                    .map(|a| self.eval(scope, a))
                    .collect::<Result<Vec<_>, _>>()?;
                let inputs = values
                    .iter()
                    .map(|v| self.field(v, "an argument"))
                    .collect::<Result<Vec<_>, _>>()?;
                let dtype = self.dtype(&expr.ty)?;
                let fun = *fun;
                let operand_types: Vec<ScalarType> = inputs
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        if fun.is_predicate() || (fun == MathFun::Powi && i == 1) {
                            v.dtype
                        } else {
                            dtype
                        }
                    })
                    .collect();
                let mut converted = Vec::with_capacity(inputs.len());
                Value::Field(zip_map(self, &inputs, dtype, |e| {
                    converted.clear();
                    converted.extend(e.iter().zip(&operand_types).map(|(x, t)| x.cast(*t)));
                    elem::math(fun, &converted)
                })?)
            }
            Cast { arg, to } => {
                let a = self.eval(scope, arg)?;
                let to = *to;
                Value::Field(zip_map(
                    self,
                    &[self.field(&a, "a cast value")?],
                    to,
                    |e| Ok(e[0].cast(to)),
                )?)
            }
            Select {
                cond,
                if_true,
                if_false,
            } => {
                let c = self.eval(scope, cond)?;
                let a = self.eval(scope, if_true)?;
                let b = self.eval(scope, if_false)?;
                self.select(self.field(&c, "a select condition")?, &a, &b, &expr.ty)?
            }
            IfElse {
                cond,
                then,
                otherwise,
            } => {
                let c = self.eval(scope, cond)?;
                let c = self.take_field(c, "an if condition")?;
                match c.single() {
                    Some(Elem::Bool(true)) => self.eval(scope, then)?,
                    Some(Elem::Bool(false)) => self.eval(scope, otherwise)?,
                    Some(Elem::Missing) => {
                        return Err(
                            self.err("an if condition is undefined (it reads a skipped neighbour)")
                        )
                    }
                    _ if scope.vectorized => {
                        let a = self.eval(scope, then)?;
                        let b = self.eval(scope, otherwise)?;
                        self.select(&c, &a, &b, &expr.ty)?
                    }
                    _ => return Err(self.ir_err("an if condition is not a scalar bool")),
                }
            }
            Reduce { op, local, arg } => {
                let a = self.eval(scope, arg)?;
                Value::Field(self.reduce(*op, local, self.field(&a, "a reduced value")?)?)
            }
            Broadcast { arg, dims } => {
                let a = self.eval(scope, arg)?;
                let a = self.field(&a, "a broadcast value")?;
                let dims = self.canonical(dims.iter().chain(&a.dims))?;
                Value::Field(zip_map_over(self, dims, &[a], a.dtype, |e| Ok(e[0]))?)
            }
            ConcatWhere {
                cond,
                if_true,
                if_false,
            } => concat_where(self, scope, cond, if_true, if_false, &expr.ty)?,
            Tuple(items) => Value::Tuple(
                items
                    .iter()
                    .map(|e| self.eval(scope, e))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            TupleGet { arg, index } => match self.eval(scope, arg)? {
                Value::Tuple(mut items) if (*index as usize) < items.len() => {
                    items.swap_remove(*index as usize)
                }
                _ => {
                    return Err(
                        self.ir_err(format!("element {index} of a non-tuple or shorter tuple"))
                    )
                }
            },
            Call { callee, args } => {
                let op = self.program.bundle.operator(callee).ok_or_else(|| {
                    self.ir_err(format!("operator `{callee}` is not in the bundle"))
                })?;
                let values = args
                    .iter()
                    .map(|a| self.eval(scope, a))
                    .collect::<Result<Vec<_>, _>>()?;
                match &op.kind {
                    OperatorKind::Field => {
                        let mut inner = Scope::new(&values, scope.vectorized);
                        self.eval(&mut inner, &op.body)?
                    }
                    OperatorKind::Scan {
                        axis,
                        forward,
                        init,
                    } => scan(self, op, axis, *forward, init, values)?,
                }
            }
        })
    }

    /// `select(cond, a, b)`, tuples element by element.
    pub(crate) fn select(
        &self,
        cond: &FieldValue,
        a: &Value,
        b: &Value,
        ty: &Type,
    ) -> Result<Value, Error> {
        match (a, b, ty) {
            (Value::Tuple(xs), Value::Tuple(ys), Type::Tuple(ts))
                if xs.len() == ys.len() && xs.len() == ts.len() =>
            {
                Ok(Value::Tuple(
                    xs.iter()
                        .zip(ys)
                        .zip(ts)
                        .map(|((x, y), t)| self.select(cond, x, y, t))
                        .collect::<Result<_, _>>()?,
                ))
            }
            (Value::Field(x), Value::Field(y), _) => {
                let dtype = self.dtype(ty)?;
                Ok(Value::Field(zip_map(
                    self,
                    &[cond, x, y],
                    dtype,
                    |e| match e[0] {
                        Elem::Bool(true) => Ok(e[1].cast(dtype)),
                        Elem::Bool(false) => Ok(e[2].cast(dtype)),
                        Elem::Missing => Ok(Elem::Missing),
                        _ => Err(ScalarError::Undefined {
                            op: "Select".into(),
                            operands: e.iter().filter_map(|x| x.dtype()).collect(),
                        }),
                    },
                )?))
            }
            _ => Err(self.ir_err(format!("select branches do not match the type {ty}"))),
        }
    }

    fn dynamic_shift(
        &self,
        a: &FieldValue,
        dim: &str,
        off: &FieldValue,
    ) -> Result<FieldValue, Error> {
        let dims = self.canonical(a.dims.iter().chain(&off.dims))?;
        let Some(a_axis) = a.axis(dim) else {
            // Shifting along a dimension the value does not vary in changes nothing.
            return zip_map(self, &[a, off], a.dtype, |e| {
                Ok(if e[1] == Elem::Missing {
                    Elem::Missing
                } else {
                    e[0]
                })
            });
        };
        let shift_axis = dims.iter().position(|d| d == dim).unwrap_or(0);
        let extents: Vec<Extent> = dims
            .iter()
            .map(|d| {
                let of = |v: &FieldValue| v.axis(d).map(|x| v.extents[x]);
                match (d == dim, of(a), of(off)) {
                    (true, _, Some(e)) => e,
                    (true, Some(e), None) => e,
                    (_, x, y) => x
                        .unwrap_or(Extent::Unbounded)
                        .intersect(y.unwrap_or(Extent::Unbounded)),
                }
            })
            .collect();
        let a_acc = a.accessor(&dims).map_err(|m| self.err(m))?;
        let off_acc = off.accessor(&dims).map_err(|m| self.err(m))?;
        let a_extent = a.extents[a_axis];
        let mut data = Vec::with_capacity(storage_len(&extents));
        let mut source = vec![0i64; dims.len()];
        for_each_point(&extents, |point| {
            let o = off.data[off_acc.offset(point)];
            if o == Elem::Missing {
                data.push(Elem::Missing);
                return Ok(());
            }
            let o = o
                .as_i64()
                .ok_or_else(|| self.ir_err("a dynamic offset is not an integer"))?;
            source.copy_from_slice(point);
            // Undefined rather than an error: the point may be one the call never writes. An
            // index past i64 lies outside every field.
            match source[shift_axis].checked_add(o) {
                Some(i) if a_extent.contains(i) => source[shift_axis] = i,
                _ => {
                    data.push(Elem::Missing);
                    return Ok(());
                }
            }
            data.push(a.data[a_acc.offset(&source)]);
            Ok(())
        })?;
        Ok(FieldValue {
            dims,
            extents,
            dtype: a.dtype,
            data: Rc::new(data),
        })
    }

    /// `a.at(O)` (slot `None`) or `a.at(O[slot])`. Skipped entries (-1) and entries outside
    /// `a`'s range become [`Elem::Missing`].
    fn neighbor_shift(
        &self,
        a: &FieldValue,
        offset: &str,
        slot: Option<u32>,
    ) -> Result<FieldValue, Error> {
        let info = self.offset(offset)?;
        let table = self.table(offset)?;
        let entries = table.as_slice();
        let count = table.count();
        let kept = a.dims.iter().filter(|d| **d != info.to);
        let dims = match slot {
            None => self.canonical(kept.chain([&info.from, &info.name]))?,
            Some(_) => self.canonical(kept.chain([&info.from]))?,
        };
        let extents: Vec<Extent> = dims
            .iter()
            .map(|d| {
                if *d == info.from {
                    Extent::range(0, table.rows() as i64)
                } else if *d == info.name {
                    Extent::range(0, count as i64)
                } else {
                    a.axis(d).map_or(Extent::Unbounded, |x| a.extents[x])
                }
            })
            .collect();
        if let Some(s) = slot {
            if s as usize >= count {
                return Err(self.ir_err(format!("slot {s} of {offset}, which has {count}")));
            }
        }
        let from_axis = dims.iter().position(|d| *d == info.from).unwrap_or(0);
        let local_axis = dims.iter().position(|d| *d == info.name);
        // Where each axis of `a` takes its index from: the neighbour entry or a result axis.
        let strides = a.strides();
        let sources: Vec<(Option<usize>, i64, usize, Extent)> = a
            .dims
            .iter()
            .enumerate()
            .map(|(x, d)| {
                let (first, stride) = match a.extents[x] {
                    Extent::Bounded { start, .. } => (start, strides[x]),
                    Extent::Unbounded => (0, 0),
                };
                let from_result =
                    (*d != info.to).then(|| dims.iter().position(|r| r == d).unwrap_or(0));
                (from_result, first, stride, a.extents[x])
            })
            .collect();
        let mut data = Vec::with_capacity(storage_len(&extents));
        let _ = for_each_point::<()>(&extents, |point| {
            let row = point[from_axis] as usize;
            let column = match (slot, local_axis) {
                (Some(s), _) => s as usize,
                (None, Some(l)) => point[l] as usize,
                (None, None) => 0,
            };
            let entry = entries[row * count + column];
            if entry < 0 {
                data.push(Elem::Missing);
                return Ok(());
            }
            let mut offset = 0usize;
            for &(from_result, first, stride, extent) in &sources {
                let index = match from_result {
                    Some(r) => point[r],
                    None => {
                        if !extent.contains(entry as i64) {
                            data.push(Elem::Missing);
                            return Ok(());
                        }
                        entry as i64
                    }
                };
                if stride != 0 {
                    offset += (index - first) as usize * stride;
                }
            }
            data.push(a.data[offset]);
            Ok(())
        });
        Ok(FieldValue {
            dims,
            extents,
            dtype: a.dtype,
            data: Rc::new(data),
        })
    }

    /// `neighbor_sum` / `max_over` / `min_over` over the local dimension `local`, skipping the
    /// slots whose table entry is -1 at each point.
    fn reduce(&self, op: ReduceOp, local: &str, a: &FieldValue) -> Result<FieldValue, Error> {
        let info = self.offset(local)?;
        let table = self.table(local)?;
        let entries = table.as_slice();
        let count = table.count();
        let local_axis = a.axis(local).ok_or_else(|| {
            self.ir_err(format!(
                "reduction over `{local}` of a value over ({})",
                a.dims.join(", ")
            ))
        })?;
        let slots: Vec<i64> = match a.extents[local_axis] {
            Extent::Bounded { start, end } => (start..end).collect(),
            Extent::Unbounded => (0..count as i64).collect(),
        };
        let mut dims = a.dims.clone();
        dims.remove(local_axis);
        let mut extents = a.extents.clone();
        extents.remove(local_axis);
        let from_axis = dims.iter().position(|d| *d == info.from);
        let with_local = a.dims.clone();
        let acc = a.accessor(&with_local).map_err(|m| self.err(m))?;
        let init = match op {
            ReduceOp::Sum => Elem::zero(a.dtype),
            ReduceOp::Max => Elem::lowest(a.dtype),
            ReduceOp::Min => Elem::highest(a.dtype),
        };
        let mut data = Vec::with_capacity(storage_len(&extents));
        let mut full = vec![0i64; with_local.len()];
        for_each_point(&extents, |point| {
            full[..local_axis].copy_from_slice(&point[..local_axis]);
            full[local_axis + 1..].copy_from_slice(&point[local_axis..]);
            let row = from_axis
                .map(|f| point[f])
                .filter(|r| (0..table.rows() as i64).contains(r));
            let mut total = init;
            for &j in &slots {
                let skipped = match row {
                    Some(r) if (0..count as i64).contains(&j) => {
                        entries[r as usize * count + j as usize] < 0
                    }
                    _ => false,
                };
                if skipped {
                    continue;
                }
                full[local_axis] = j;
                let x = a.data[acc.offset(&full)];
                total = match op {
                    ReduceOp::Sum => elem::binary(gt4rs_ir::fieldview::BinaryOp::Add, total, x),
                    ReduceOp::Max => elem::math(MathFun::Max, &[total, x]),
                    ReduceOp::Min => elem::math(MathFun::Min, &[total, x]),
                }
                .map_err(|e| self.err(failure_at(&e, &dims, point)))?;
            }
            data.push(total);
            Ok(())
        })?;
        Ok(FieldValue {
            dims,
            extents,
            dtype: a.dtype,
            data: Rc::new(data),
        })
    }
}
