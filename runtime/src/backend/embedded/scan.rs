//! Scan operators: a sequential loop along the axis, carrying state from level to level.
//!
//! The body is a scalar expression, so evaluating it on a whole level at once (every field
//! argument sliced at one axis index) computes, for each column, exactly what the
//! column-by-column loop would, with the carry a field over the non-axis dimensions.

use std::rc::Rc;

use gt4rs_ir::fieldview::{Expr, Operator};
use gt4rs_ir::{ScalarType, Type};

use super::eval::{Ctx, Scope};
use super::ops::{conform, take_index};
use super::value::{for_each_point, storage_len, Extent, FieldValue, Value};
use crate::error::Error;

fn leaves<'a>(v: &'a Value, out: &mut Vec<&'a FieldValue>) {
    match v {
        Value::Field(f) => out.push(f),
        Value::Tuple(items) => items.iter().for_each(|i| leaves(i, out)),
    }
}

fn type_leaves(ty: &Type, out: &mut Vec<ScalarType>) {
    match ty {
        Type::Scalar(t) | Type::Field { dtype: t, .. } => out.push(*t),
        Type::Tuple(items) => items.iter().for_each(|i| type_leaves(i, out)),
    }
}

/// `v` with every field leaf replaced by `f(leaf)`.
fn map_leaves(
    v: &Value,
    f: &mut impl FnMut(&FieldValue) -> Result<FieldValue, Error>,
) -> Result<Value, Error> {
    Ok(match v {
        Value::Field(x) => Value::Field(f(x)?),
        Value::Tuple(items) => Value::Tuple(
            items
                .iter()
                .map(|i| map_leaves(i, f))
                .collect::<Result<_, _>>()?,
        ),
    })
}

/// Rebuilds a value of the shape of `like` from its leaves in order.
fn rebuild(like: &Type, leaves: &mut impl Iterator<Item = FieldValue>) -> Option<Value> {
    Some(match like {
        Type::Tuple(items) => Value::Tuple(
            items
                .iter()
                .map(|t| rebuild(t, leaves))
                .collect::<Option<_>>()?,
        ),
        _ => Value::Field(leaves.next()?),
    })
}

pub(crate) fn scan(
    ctx: &Ctx<'_>,
    op: &Operator,
    axis: &str,
    forward: bool,
    init: &Expr,
    args: Vec<Value>,
) -> Result<Value, Error> {
    let mut arg_leaves = Vec::new();
    args.iter().for_each(|a| leaves(a, &mut arg_leaves));
    let axis_name = axis.to_string();
    let dims = ctx.canonical(
        arg_leaves
            .iter()
            .flat_map(|l| l.dims.iter())
            .chain([&axis_name]),
    )?;
    let mut extents: Vec<Extent> = dims
        .iter()
        .map(|d| {
            arg_leaves
                .iter()
                .filter_map(|l| l.axis(d).map(|x| l.extents[x]))
                .fold(Extent::Unbounded, Extent::intersect)
        })
        .collect();
    let axis_index = dims.iter().position(|d| d == axis).unwrap_or(0);
    let column = ctx
        .columns
        .borrow()
        .iter()
        .find(|(d, _)| d == axis)
        .map(|(_, r)| Extent::range(r.start, r.end));
    if let Some(column) = column {
        extents[axis_index] = extents[axis_index].intersect(column);
    }
    let Extent::Bounded { start, end } = extents[axis_index] else {
        return Err(ctx.err(format!(
            "scan `{}` along {axis} needs a field argument over {axis} to define its range",
            op.name
        )));
    };
    let mut column_dims = dims.clone();
    column_dims.remove(axis_index);
    let mut column_extents = extents.clone();
    column_extents.remove(axis_index);

    let mut out_types = Vec::new();
    type_leaves(&op.ret, &mut out_types);
    let mut outputs: Vec<FieldValue> = out_types
        .iter()
        .map(|&dtype| FieldValue {
            dims: dims.clone(),
            extents: extents.clone(),
            dtype,
            data: Rc::new(vec![super::elem::Elem::Missing; storage_len(&extents)]),
        })
        .collect();
    let out_strides = super::value::row_major_strides(&extents);

    let init = ctx.eval(&mut Scope::new(&[], false), init)?;
    let mut init_leaves = Vec::new();
    leaves(&init, &mut init_leaves);
    let init_leaves: Vec<FieldValue> = init_leaves.into_iter().cloned().collect();
    let mut carry = init.clone();
    let levels: Vec<i64> = if forward {
        (start..end).collect()
    } else {
        (start..end).rev().collect()
    };
    for k in levels {
        let mut params = Vec::with_capacity(args.len() + 1);
        params.push(carry);
        for a in &args {
            params.push(map_leaves(a, &mut |leaf| {
                Ok(match leaf.axis(axis) {
                    Some(x) => take_index(leaf, x, k),
                    None => leaf.clone(),
                })
            })?);
        }
        let result = ctx.eval(&mut Scope::new(&params, true), &op.body)?;
        let mut result_leaves = Vec::new();
        leaves(&result, &mut result_leaves);
        if result_leaves.len() != outputs.len() {
            return Err(ctx.err(format!(
                "scan `{}` returns {} values per level, but its type has {}",
                op.name,
                result_leaves.len(),
                outputs.len()
            )));
        }
        let mut level_leaves = Vec::with_capacity(outputs.len());
        for (leaf, out) in result_leaves.into_iter().zip(&mut outputs) {
            let level = conform(ctx, leaf, &column_dims, &column_extents)?;
            let level = FieldValue {
                data: Rc::new(level.data.iter().map(|e| e.cast(out.dtype)).collect()),
                dtype: out.dtype,
                ..level
            };
            write_level(out, &out_strides, axis_index, start, k, &level);
            level_leaves.push(level);
        }
        if let Some(active) = active_columns(ctx, axis, k, &column_dims, &column_extents) {
            restart_inactive(ctx, &mut level_leaves, &init_leaves, &active)?;
        }
        carry = rebuild(&op.ret, &mut level_leaves.into_iter())
            .ok_or_else(|| ctx.err(format!("scan `{}`: carry does not match its type", op.name)))?;
    }
    rebuild(&op.ret, &mut outputs.into_iter()).ok_or_else(|| {
        ctx.err(format!(
            "scan `{}`: result does not match its type",
            op.name
        ))
    })
}

/// Where, at level `k`, the scan is inside every `concat_where` branch it is evaluated in
/// (row-major over the columns); `None` when it is everywhere. A condition on a dimension the
/// scan's value lacks does not restrict it.
fn active_columns(
    ctx: &Ctx<'_>,
    axis: &str,
    k: i64,
    column_dims: &[String],
    column_extents: &[Extent],
) -> Option<Vec<bool>> {
    let regions = ctx.regions.borrow();
    if regions.is_empty() {
        return None;
    }
    let mut active = Vec::with_capacity(storage_len(column_extents));
    let _ = for_each_point::<()>(column_extents, |point| {
        let index = |d: &str| -> Option<i64> {
            if d == axis {
                return Some(k);
            }
            let x = column_dims.iter().position(|c| c == d)?;
            matches!(column_extents[x], Extent::Bounded { .. }).then(|| point[x])
        };
        active.push(
            regions
                .iter()
                .all(|(cond, side)| cond.holds_partly(&index).is_none_or(|h| h == *side)),
        );
        Ok(())
    });
    (!active.iter().all(|&a| a)).then_some(active)
}

/// The carry after a level: the level's value where the scan is active, `init` where it is not,
/// so that it starts again from `init` at the first level of its region.
fn restart_inactive(
    ctx: &Ctx<'_>,
    level_leaves: &mut [FieldValue],
    init_leaves: &[FieldValue],
    active: &[bool],
) -> Result<(), Error> {
    if level_leaves.len() != init_leaves.len() {
        return Err(ctx.err("a scan's init does not match its carry"));
    }
    for (level, init) in level_leaves.iter_mut().zip(init_leaves) {
        let restart = init
            .single()
            .ok_or_else(|| ctx.err("a scan's init is not a scalar"))?
            .cast(level.dtype);
        let data = Rc::make_mut(&mut level.data);
        for (e, &a) in data.iter_mut().zip(active) {
            if !a {
                *e = restart;
            }
        }
    }
    Ok(())
}

/// Stores one level (a value over the non-axis dimensions, in row-major order) at axis index
/// `k` of `out`.
fn write_level(
    out: &mut FieldValue,
    strides: &[usize],
    axis_index: usize,
    axis_start: i64,
    k: i64,
    level: &FieldValue,
) {
    let base = (k - axis_start) as usize * strides[axis_index];
    let mut column_strides = strides.to_vec();
    column_strides.remove(axis_index);
    let firsts = level.starts();
    let mut values = level.data.iter();
    let out_data = Rc::make_mut(&mut out.data);
    let _ = for_each_point::<()>(&level.extents, |point| {
        let offset: usize = point
            .iter()
            .zip(&firsts)
            .zip(&column_strides)
            .map(|((&i, &f), &s)| (i - f) as usize * s)
            .sum();
        if let Some(v) = values.next() {
            out_data[base + offset] = *v;
        }
        Ok(())
    });
}
