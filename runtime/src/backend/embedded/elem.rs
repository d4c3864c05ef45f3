//! One element of a runtime value and the scalar operations on it.
//!
//! Every elementwise IR operation bottoms out here, one element at a time, in the rules of
//! `gt4rs_ir::scalar` (the ones the fused kernels and constant folding follow): integer
//! arithmetic wraps, an integer division by zero is an error instead of a panic. What is added
//! here is the `Missing` marker.

use gt4rs_ir::fieldview::{BinaryOp, Literal, MathFun, UnaryOp};
use gt4rs_ir::scalar::{self, ScalarError};
use gt4rs_ir::{CmpOp, ScalarType};

use crate::args::ScalarValue;

/// An element of a field value. `Missing` marks a point whose value is undefined because it
/// was read through a skipped neighbour slot (-1) or outside the neighbour field; it spreads
/// through elementwise operations and is an error only when a program writes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Elem {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Missing,
}

/// An operation failed on an element (the caller adds the program and point).
pub(crate) type ElemResult = Result<Elem, ScalarError>;

impl From<ScalarValue> for Elem {
    fn from(v: ScalarValue) -> Elem {
        match v {
            ScalarValue::Bool(b) => Elem::Bool(b),
            ScalarValue::I32(i) => Elem::I32(i),
            ScalarValue::I64(i) => Elem::I64(i),
            ScalarValue::F32(f) => Elem::F32(f),
            ScalarValue::F64(f) => Elem::F64(f),
        }
    }
}

impl Elem {
    /// The defined value, `None` for `Missing`.
    pub(crate) fn value(self) -> Option<ScalarValue> {
        Some(match self {
            Elem::Bool(b) => ScalarValue::Bool(b),
            Elem::I32(i) => ScalarValue::I32(i),
            Elem::I64(i) => ScalarValue::I64(i),
            Elem::F32(f) => ScalarValue::F32(f),
            Elem::F64(f) => ScalarValue::F64(f),
            Elem::Missing => return None,
        })
    }

    pub(crate) fn from_literal(lit: Literal, dtype: ScalarType) -> Elem {
        ScalarValue::from_literal(lit, dtype).into()
    }

    pub(crate) fn dtype(self) -> Option<ScalarType> {
        self.value().map(ScalarValue::dtype)
    }

    /// The value as an integer, for domain bounds and dynamic offsets.
    pub(crate) fn as_i64(self) -> Option<i64> {
        self.value().and_then(ScalarValue::as_i64)
    }

    /// The element converted to `to` (see `gt4rs_ir::scalar::cast`).
    pub(crate) fn cast(self, to: ScalarType) -> Elem {
        self.value().map_or(Elem::Missing, |v| v.cast(to).into())
    }

    pub(crate) fn zero(dtype: ScalarType) -> Elem {
        ScalarValue::zero(dtype).into()
    }

    /// The lowest finite value of `dtype` (the start of `max_over`).
    pub(crate) fn lowest(dtype: ScalarType) -> Elem {
        ScalarValue::lowest(dtype).into()
    }

    /// The highest finite value of `dtype` (the start of `min_over`).
    pub(crate) fn highest(dtype: ScalarType) -> Elem {
        ScalarValue::highest(dtype).into()
    }
}

/// The type both operands of a comparison are converted to when they differ.
pub(crate) fn common_dtype(a: ScalarType, b: ScalarType) -> ScalarType {
    fn rank(t: ScalarType) -> u8 {
        match t {
            ScalarType::Bool => 0,
            ScalarType::I32 => 1,
            ScalarType::I64 => 2,
            ScalarType::F32 => 3,
            ScalarType::F64 => 4,
        }
    }
    if rank(a) >= rank(b) {
        a
    } else {
        b
    }
}

pub(crate) fn unary(op: UnaryOp, a: Elem) -> ElemResult {
    match a.value() {
        Some(a) => scalar::unary(op, a).map(Elem::from),
        None => Ok(Elem::Missing),
    }
}

pub(crate) fn binary(op: BinaryOp, a: Elem, b: Elem) -> ElemResult {
    match (a.value(), b.value()) {
        (Some(a), Some(b)) => scalar::binary(op, a, b).map(Elem::from),
        _ => Ok(Elem::Missing),
    }
}

pub(crate) fn compare(op: CmpOp, a: Elem, b: Elem) -> ElemResult {
    match (a.value(), b.value()) {
        (Some(a), Some(b)) => scalar::compare(op, a, b).map(Elem::from),
        _ => Ok(Elem::Missing),
    }
}

/// `fun` applied to `args` (already converted to the operand types the IR asks for).
pub(crate) fn math(fun: MathFun, args: &[Elem]) -> ElemResult {
    if args.len() != fun.arity() {
        return Err(ScalarError::Arity {
            fun,
            given: args.len(),
        });
    }
    // No function takes more than two arguments: the values fit on the stack.
    let mut values = [ScalarValue::Bool(false); 2];
    for (v, a) in values.iter_mut().zip(args) {
        match a.value() {
            Some(x) => *v = x,
            None => return Ok(Elem::Missing),
        }
    }
    scalar::math(fun, &values[..args.len()]).map(Elem::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_spreads_and_defined_elements_follow_the_scalar_rules() {
        assert_eq!(
            binary(BinaryOp::Div, Elem::I32(3), Elem::I32(0)),
            Err(ScalarError::DivisionByZero)
        );
        assert_eq!(
            binary(BinaryOp::Div, Elem::Missing, Elem::I32(0)),
            Ok(Elem::Missing)
        );
        assert_eq!(
            math(MathFun::DivEuclid, &[Elem::I32(-7), Elem::I32(2)]),
            Ok(Elem::I32(-4))
        );
        assert_eq!(
            math(MathFun::Max, &[Elem::F64(1.0), Elem::Missing]),
            Ok(Elem::Missing)
        );
        assert!(math(MathFun::Max, &[Elem::Missing]).is_err());
        assert_eq!(Elem::Missing.cast(ScalarType::F64), Elem::Missing);
    }
}
