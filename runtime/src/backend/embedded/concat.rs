//! `concat_where(cond, a, b)`: `a` on the points whose indices satisfy `cond`, `b` elsewhere.
//!
//! The result is defined on the union of (region(cond) ∩ domain(a)) and (region(!cond) ∩
//! domain(b)). The comparisons and the branches' extents cut every dimension into intervals on
//! which both the condition and each branch's coverage are constant; the value spans the
//! bounding box of that union on the grid of cells, and a point of the box outside the union
//! (a hole between the branches' parts) is undefined there, as a point read through a skipped
//! neighbour is: an error where it is written inside a domain, nothing where it is not used.
//! This is what the fused backends compute (a branch value outside its field is undefined at
//! the point), where GT4Py's embedded backend refuses a union that is not a box.

use std::rc::Rc;

use gt4rs_ir::fieldview::{DomainCond, Expr};
use gt4rs_ir::{CmpOp, Type};

use super::eval::{Ctx, Scope};
use super::value::{for_each_point, storage_len, Extent, FieldValue, Value};
use crate::error::Error;

/// A condition whose bounds have been evaluated.
pub(crate) enum Cond {
    Cmp { dim: String, op: CmpOp, value: i64 },
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

impl Cond {
    /// `index` gives the index of a dimension at the point tested.
    fn holds(&self, index: &dyn Fn(&str) -> i64) -> bool {
        match self {
            Cond::Cmp { dim, op, value } => {
                let i = index(dim);
                match op {
                    CmpOp::Eq => i == *value,
                    CmpOp::Ne => i != *value,
                    CmpOp::Lt => i < *value,
                    CmpOp::Le => i <= *value,
                    CmpOp::Gt => i > *value,
                    CmpOp::Ge => i >= *value,
                }
            }
            Cond::And(a, b) => a.holds(index) && b.holds(index),
            Cond::Or(a, b) => a.holds(index) || b.holds(index),
        }
    }

    /// Whether the condition holds where `index` knows only some dimensions (`None` for the
    /// others): `None` when the answer depends on an unknown one.
    pub(crate) fn holds_partly(&self, index: &dyn Fn(&str) -> Option<i64>) -> Option<bool> {
        match self {
            Cond::Cmp { dim, .. } => {
                let i = index(dim)?;
                Some(self.holds(&|_| i))
            }
            Cond::And(a, b) => match (a.holds_partly(index), b.holds_partly(index)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Cond::Or(a, b) => match (a.holds_partly(index), b.holds_partly(index)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
        }
    }

    fn visit_cmps<'a>(&'a self, f: &mut impl FnMut(&'a str, i64)) {
        match self {
            Cond::Cmp { dim, value, .. } => f(dim, *value),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.visit_cmps(f);
                b.visit_cmps(f);
            }
        }
    }
}

fn resolve(ctx: &Ctx<'_>, scope: &mut Scope<'_>, cond: &DomainCond) -> Result<Cond, Error> {
    Ok(match cond {
        DomainCond::Cmp { dim, op, value } => Cond::Cmp {
            dim: dim.clone(),
            op: *op,
            value: ctx.eval_int(scope, value)?,
        },
        DomainCond::And(a, b) => Cond::And(
            Box::new(resolve(ctx, scope, a)?),
            Box::new(resolve(ctx, scope, b)?),
        ),
        DomainCond::Or(a, b) => Cond::Or(
            Box::new(resolve(ctx, scope, a)?),
            Box::new(resolve(ctx, scope, b)?),
        ),
    })
}

/// Evaluates both branches, each with its side of the condition pushed on `ctx.regions` (so
/// that a scan inside runs in the branch's region only), and joins them.
pub(crate) fn concat_where(
    ctx: &Ctx<'_>,
    scope: &mut Scope<'_>,
    cond: &DomainCond,
    if_true: &Expr,
    if_false: &Expr,
    ty: &Type,
) -> Result<Value, Error> {
    let cond = Rc::new(resolve(ctx, scope, cond)?);
    let mut branch = |expr: &Expr, side: bool| {
        ctx.regions.borrow_mut().push((cond.clone(), side));
        let value = ctx.eval(scope, expr);
        ctx.regions.borrow_mut().pop();
        value
    };
    let a = branch(if_true, true)?;
    let b = branch(if_false, false)?;
    concat_values(ctx, &cond, &a, &b, ty)
}

fn concat_values(
    ctx: &Ctx<'_>,
    cond: &Cond,
    a: &Value,
    b: &Value,
    ty: &Type,
) -> Result<Value, Error> {
    match (a, b, ty) {
        (Value::Field(x), Value::Field(y), _) => {
            let dtype = ty.dtype().unwrap_or(x.dtype);
            Ok(Value::Field(concat_fields(ctx, cond, x, y, dtype)?))
        }
        (_, _, Type::Tuple(types)) => {
            let item = |v: &'_ Value, i: usize| -> Result<Value, Error> {
                match v {
                    Value::Tuple(items) => items.get(i).cloned().ok_or_else(|| {
                        ctx.err("concat_where branches are tuples of different lengths")
                    }),
                    // A scalar or field branch broadcasts to every element.
                    Value::Field(_) => Ok(v.clone()),
                }
            };
            Ok(Value::Tuple(
                types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| concat_values(ctx, cond, &item(a, i)?, &item(b, i)?, t))
                    .collect::<Result<_, _>>()?,
            ))
        }
        _ => Err(ctx.err(format!("concat_where branches do not match the type {ty}"))),
    }
}

/// One interval of a dimension's partition; `None` is infinity.
#[derive(Clone, Copy)]
struct Cell {
    lo: Option<i64>,
    hi: Option<i64>,
}

impl Cell {
    fn representative(self) -> i64 {
        match (self.lo, self.hi) {
            (Some(l), _) => l,
            (None, Some(h)) => h - 1,
            (None, None) => 0,
        }
    }
    fn inside(self, e: Extent) -> bool {
        match (e, self.lo, self.hi) {
            (Extent::Unbounded, _, _) => true,
            (Extent::Bounded { start, end }, Some(l), Some(h)) => start <= l && h <= end,
            _ => false,
        }
    }
}

fn concat_fields(
    ctx: &Ctx<'_>,
    cond: &Cond,
    a: &FieldValue,
    b: &FieldValue,
    dtype: gt4rs_ir::ScalarType,
) -> Result<FieldValue, Error> {
    let mut breaks: Vec<(String, i64)> = Vec::new();
    cond.visit_cmps(&mut |dim, value| {
        breaks.push((dim.to_string(), value));
        breaks.push((dim.to_string(), value.saturating_add(1)));
    });
    let dims = ctx.canonical(
        a.dims
            .iter()
            .chain(&b.dims)
            .chain(breaks.iter().map(|(d, _)| d)),
    )?;
    let cond_dims = ctx.canonical(breaks.iter().map(|(d, _)| d))?;
    let extent_of = |v: &FieldValue, d: &str| v.axis(d).map_or(Extent::Unbounded, |x| v.extents[x]);
    // The partition of each condition dimension into cells, and its outermost finite points.
    let mut cells: Vec<Vec<Cell>> = Vec::with_capacity(cond_dims.len());
    let mut hulls: Vec<(i64, i64)> = Vec::with_capacity(cond_dims.len());
    for d in &cond_dims {
        let mut points: Vec<i64> = breaks
            .iter()
            .filter(|(bd, _)| bd == d)
            .map(|(_, v)| *v)
            .collect();
        for e in [extent_of(a, d), extent_of(b, d)] {
            if let Extent::Bounded { start, end } = e {
                points.push(start);
                points.push(end);
            }
        }
        points.sort_unstable();
        points.dedup();
        hulls.push((points[0], points[points.len() - 1]));
        let mut row = Vec::with_capacity(points.len() + 1);
        let mut lo = None;
        for p in points {
            row.push(Cell { lo, hi: Some(p) });
            lo = Some(p);
        }
        row.push(Cell { lo, hi: None });
        cells.push(row);
    }
    let grid: Vec<Extent> = cells
        .iter()
        .map(|c| Extent::range(0, c.len() as i64))
        .collect();
    // Which cells the union covers, and their bounding box in cell coordinates.
    let mut covered = Vec::with_capacity(storage_len(&grid));
    let mut lower = vec![usize::MAX; cond_dims.len()];
    let mut upper = vec![0usize; cond_dims.len()];
    let _ = for_each_point::<()>(&grid, |cell_index| {
        let rep: Vec<i64> = cell_index
            .iter()
            .zip(&cells)
            .map(|(&i, c)| c[i as usize].representative())
            .collect();
        let holds =
            cond.holds(&|d: &str| cond_dims.iter().position(|x| x == d).map_or(0, |i| rep[i]));
        let branch = if holds { a } else { b };
        let is_covered = cond_dims
            .iter()
            .zip(cell_index)
            .zip(&cells)
            .all(|((d, &i), c)| c[i as usize].inside(extent_of(branch, d)));
        if is_covered {
            for (axis, &i) in cell_index.iter().enumerate() {
                lower[axis] = lower[axis].min(i as usize);
                upper[axis] = upper[axis].max(i as usize);
            }
        }
        covered.push(is_covered);
        Ok(())
    });
    let empty = !covered.contains(&true);
    let extents: Vec<Extent> = dims
        .iter()
        .map(|d| match cond_dims.iter().position(|c| c == d) {
            // Both branches exist at every index of the other dimensions.
            None => extent_of(a, d).intersect(extent_of(b, d)),
            Some(_) if empty => Extent::range(0, 0),
            // An end that only broadcast branches reach has no index of its own, but the value
            // has to be stored: it extends to the call's reach along the dimension (its write
            // range and its field arguments' ranges), and at least to the outermost index
            // the condition or a bounded branch names.
            Some(axis) => {
                let reach = ctx
                    .reach
                    .borrow()
                    .iter()
                    .find(|(r, _)| r == d)
                    .map(|(_, r)| r.clone());
                let (lo, hi) = hulls[axis];
                Extent::range(
                    cells[axis][lower[axis]]
                        .lo
                        .unwrap_or_else(|| reach.as_ref().map_or(lo, |r| r.start.min(lo))),
                    cells[axis][upper[axis]]
                        .hi
                        .unwrap_or_else(|| reach.as_ref().map_or(hi, |r| r.end.max(hi))),
                )
            }
        })
        .collect();
    let a_acc = a.accessor(&dims).map_err(|m| ctx.err(m))?;
    let b_acc = b.accessor(&dims).map_err(|m| ctx.err(m))?;
    let mut data = Vec::with_capacity(storage_len(&extents));
    let covers = |v: &FieldValue, point: &[i64]| {
        dims.iter()
            .zip(point)
            .all(|(d, &i)| extent_of(v, d).contains(i))
    };
    let _ = for_each_point::<()>(&extents, |point| {
        let holds = cond.holds(&|d: &str| dims.iter().position(|x| x == d).map_or(0, |i| point[i]));
        let (branch, accessor) = if holds { (a, &a_acc) } else { (b, &b_acc) };
        let e = if covers(branch, point) {
            branch.data[accessor.offset(point)]
        } else {
            super::elem::Elem::Missing
        };
        data.push(e.cast(dtype));
        Ok(())
    });
    Ok(FieldValue {
        dims,
        extents,
        dtype,
        data: Rc::new(data),
    })
}
