//! Whole-field helpers: elementwise maps with broadcasting, picking one index of a dimension,
//! and conforming a value to given dimensions and extents.

use std::rc::Rc;

use gt4rs_ir::failure::Failure;
use gt4rs_ir::scalar::ScalarError;
use gt4rs_ir::ScalarType;

use super::elem::{Elem, ElemResult};
use super::eval::Ctx;
use super::value::{for_each_point, for_each_row, storage_len, Extent, FieldValue};
use crate::error::Error;

/// `(Edge=3, K=5)`
pub(crate) fn fmt_point(dims: &[String], point: &[i64]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .zip(point)
        .map(|(d, i)| format!("{d}={i}"))
        .collect();
    format!("({})", parts.join(", "))
}

/// The message of an elementwise operation's failure `e` at `point` (of dimensions `dims`): a
/// division by zero reads as on the kernel backends (`gt4rs_ir::failure`).
pub(crate) fn failure_at(e: &ScalarError, dims: &[String], point: &[i64]) -> String {
    match e {
        ScalarError::DivisionByZero => {
            let named: Vec<(&str, i64)> = dims
                .iter()
                .map(String::as_str)
                .zip(point.iter().copied())
                .collect();
            Failure::DivisionByZero.message(&[], &named)
        }
        other => format!("{other} at point {}", fmt_point(dims, point)),
    }
}

/// Applies `f` at every point of the intersection of the inputs' domains, over the union of
/// their dimensions in canonical order.
pub(crate) fn zip_map(
    ctx: &Ctx<'_>,
    inputs: &[&FieldValue],
    dtype: ScalarType,
    f: impl FnMut(&[Elem]) -> ElemResult,
) -> Result<FieldValue, Error> {
    let dims = ctx.canonical(inputs.iter().flat_map(|v| v.dims.iter()))?;
    zip_map_over(ctx, dims, inputs, dtype, f)
}

/// [`zip_map`] over the given dimensions (a superset of the inputs' dimensions); dimensions no
/// input has stay unbounded.
pub(crate) fn zip_map_over(
    ctx: &Ctx<'_>,
    dims: Vec<String>,
    inputs: &[&FieldValue],
    dtype: ScalarType,
    mut f: impl FnMut(&[Elem]) -> ElemResult,
) -> Result<FieldValue, Error> {
    let extents: Vec<Extent> = dims
        .iter()
        .map(|d| {
            inputs
                .iter()
                .filter_map(|v| v.axis(d).map(|a| v.extents[a]))
                .fold(Extent::Unbounded, Extent::intersect)
        })
        .collect();
    let accessors = inputs
        .iter()
        .map(|v| v.accessor(&dims).map_err(|m| ctx.err(m)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut data = Vec::with_capacity(storage_len(&extents));
    let mut elems = vec![Elem::Missing; inputs.len()];
    let steps: Vec<usize> = accessors.iter().map(|a| a.last_stride()).collect();
    let mut bases = vec![0usize; inputs.len()];
    // Row by row along the last dimension: the hot loop of the whole backend.
    for_each_row(&extents, |first, len| {
        for (base, acc) in bases.iter_mut().zip(&accessors) {
            *base = acc.offset(first);
        }
        for t in 0..len {
            for (i, e) in elems.iter_mut().enumerate() {
                *e = inputs[i].data[bases[i] + t * steps[i]];
            }
            match f(&elems) {
                Ok(out) => data.push(out),
                Err(e) => {
                    let mut point = first.to_vec();
                    if let Some(last) = point.last_mut() {
                        *last += t as i64;
                    }
                    return Err(ctx.err(failure_at(&e, &dims, &point)));
                }
            }
        }
        Ok(())
    })?;
    Ok(FieldValue {
        dims,
        extents,
        dtype,
        data: Rc::new(data),
    })
}

/// The value at absolute index `index` of dimension `axis`, without that dimension (an
/// unbounded dimension is dropped whatever the index).
pub(crate) fn take_index(v: &FieldValue, axis: usize, index: i64) -> FieldValue {
    let strides = v.strides();
    let base = match v.extents[axis] {
        Extent::Bounded { start, .. } => (index - start) as usize * strides[axis],
        Extent::Unbounded => 0,
    };
    let mut dims = v.dims.clone();
    dims.remove(axis);
    let mut extents = v.extents.clone();
    extents.remove(axis);
    let mut rest_strides = strides;
    rest_strides.remove(axis);
    let firsts: Vec<i64> = extents
        .iter()
        .map(|e| match e {
            Extent::Bounded { start, .. } => *start,
            Extent::Unbounded => 0,
        })
        .collect();
    let mut data = Vec::with_capacity(storage_len(&extents));
    let _ = for_each_point::<()>(&extents, |point| {
        let offset: usize = point
            .iter()
            .zip(&firsts)
            .zip(&rest_strides)
            .map(|((&i, &f), &s)| (i - f) as usize * s)
            .sum();
        data.push(v.data[base + offset]);
        Ok(())
    });
    FieldValue {
        dims,
        extents,
        dtype: v.dtype,
        data: Rc::new(data),
    }
}

/// `v` laid out exactly over `dims` and `extents`, which it must cover.
pub(crate) fn conform(
    ctx: &Ctx<'_>,
    v: &FieldValue,
    dims: &[String],
    extents: &[Extent],
) -> Result<FieldValue, Error> {
    for (d, e) in dims.iter().zip(extents) {
        let Some(a) = v.axis(d) else { continue };
        let covered = match e {
            Extent::Bounded { start, end } => v.extents[a].covers(*start, *end),
            Extent::Unbounded => v.extents[a] == Extent::Unbounded,
        };
        if !covered {
            return Err(ctx.err(format!(
                "a value over {d} {} does not cover {d} {e}",
                v.extents[a]
            )));
        }
    }
    let acc = v.accessor(dims).map_err(|m| ctx.err(m))?;
    let mut data = Vec::with_capacity(storage_len(extents));
    let _ = for_each_point::<()>(extents, |point| {
        data.push(v.data[acc.offset(point)]);
        Ok(())
    });
    Ok(FieldValue {
        dims: dims.to_vec(),
        extents: extents.to_vec(),
        dtype: v.dtype,
        data: Rc::new(data),
    })
}
