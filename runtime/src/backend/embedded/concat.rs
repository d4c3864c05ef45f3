//! `concat_where(cond, a, b)`: `a` on the points whose indices satisfy `cond`, `b` elsewhere.
//!
//! The result's domain is the union of (region(cond) ∩ domain(a)) and (region(!cond) ∩
//! domain(b)). The comparisons and the branches' extents cut every dimension into intervals on
//! which both the condition and each branch's coverage are constant; the union is checked to be
//! a box on that grid of cells.

use gt4rs_ir::fieldview::DomainCond;
use gt4rs_ir::{CmpOp, Type};

use super::eval::{Ctx, Scope};
use super::value::{for_each_point, storage_len, Extent, FieldValue, Value};
use crate::error::Error;

/// A condition whose bounds have been evaluated.
enum Cond {
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

pub(crate) fn concat_where(
    ctx: &Ctx<'_>,
    scope: &mut Scope<'_>,
    cond: &DomainCond,
    a: &Value,
    b: &Value,
    ty: &Type,
) -> Result<Value, Error> {
    let cond = resolve(ctx, scope, cond)?;
    concat_values(ctx, &cond, a, b, ty)
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
    let mut cond_dims: Vec<&str> = Vec::new();
    let mut breaks: Vec<(String, i64)> = Vec::new();
    cond.visit_cmps(&mut |dim, value| {
        cond_dims.push(dim);
        breaks.push((dim.to_string(), value));
        breaks.push((dim.to_string(), value.saturating_add(1)));
    });
    let dims = ctx.canonical(
        a.dims
            .iter()
            .chain(&b.dims)
            .chain(breaks.iter().map(|(d, _)| d)),
    )?;
    let extent_of = |v: &FieldValue, d: &str| v.axis(d).map_or(Extent::Unbounded, |x| v.extents[x]);
    // The partition of each dimension into cells.
    let cells: Vec<Vec<Cell>> = dims
        .iter()
        .map(|d| {
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
            let mut cells = Vec::with_capacity(points.len() + 1);
            let mut lo = None;
            for p in points {
                cells.push(Cell { lo, hi: Some(p) });
                lo = Some(p);
            }
            cells.push(Cell { lo, hi: None });
            cells
        })
        .collect();
    let grid: Vec<Extent> = cells
        .iter()
        .map(|c| Extent::range(0, c.len() as i64))
        .collect();
    let holds_at = |point: &[i64]| {
        cond.holds(&|d: &str| dims.iter().position(|x| x == d).map_or(0, |i| point[i]))
    };
    // Which cells the union covers, and their bounding box in cell coordinates.
    let mut covered = Vec::with_capacity(storage_len(&grid));
    let mut lower = vec![usize::MAX; dims.len()];
    let mut upper = vec![0usize; dims.len()];
    let _ = for_each_point::<()>(&grid, |cell_index| {
        let rep: Vec<i64> = cell_index
            .iter()
            .zip(&cells)
            .map(|(&i, c)| c[i as usize].representative())
            .collect();
        let branch = if holds_at(&rep) { a } else { b };
        let is_covered = dims
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
    let extents: Vec<Extent> = if !covered.contains(&true) {
        vec![Extent::range(0, 0); dims.len()]
    } else {
        let mut in_box = true;
        let strides = super::value::row_major_strides(&grid);
        let box_extents: Vec<Extent> = lower
            .iter()
            .zip(&upper)
            .map(|(&l, &u)| Extent::range(l as i64, u as i64 + 1))
            .collect();
        let _ = for_each_point::<()>(&box_extents, |cell_index| {
            let flat: usize = cell_index
                .iter()
                .zip(&strides)
                .map(|(&i, &s)| i as usize * s)
                .sum();
            in_box &= covered[flat];
            Ok(())
        });
        if !in_box {
            return Err(ctx.err(format!(
                "concat_where: the points where a branch is defined do not form a box over ({}) \
                 (true branch over {}, false branch over {})",
                dims.join(", "),
                describe(a),
                describe(b)
            )));
        }
        dims.iter()
            .enumerate()
            .map(|(axis, d)| {
                let lo = cells[axis][lower[axis]].lo;
                let hi = cells[axis][upper[axis]].hi;
                match (lo, hi) {
                    (Some(l), Some(h)) => Ok(Extent::range(l, h)),
                    (None, None) if !cond_dims.contains(&d.as_str()) => Ok(Extent::Unbounded),
                    _ => Err(ctx.err(format!(
                        "concat_where: the result is unbounded along {d}; a branch must be a field over {d}"
                    ))),
                }
            })
            .collect::<Result<_, _>>()?
    };
    let a_acc = a.accessor(&dims).map_err(|m| ctx.err(m))?;
    let b_acc = b.accessor(&dims).map_err(|m| ctx.err(m))?;
    let mut data = Vec::with_capacity(storage_len(&extents));
    let _ = for_each_point::<()>(&extents, |point| {
        let e = if holds_at(point) {
            a.data[a_acc.offset(point)]
        } else {
            b.data[b_acc.offset(point)]
        };
        data.push(e.cast(dtype));
        Ok(())
    });
    Ok(FieldValue {
        dims,
        extents,
        dtype,
        data,
    })
}

fn describe(v: &FieldValue) -> String {
    let parts: Vec<String> = v
        .dims
        .iter()
        .zip(&v.extents)
        .map(|(d, e)| format!("{d} {e}"))
        .collect();
    format!("[{}]", parts.join(", "))
}
