//! The operations of the IR on [`ScalarValue`]s, built on the typed rules of [`super::rules`]:
//! constant folding, the host's evaluation of domain bounds and the embedded backend's
//! elementwise operations all go through them. Both operands of a binary operation or a
//! comparison have one element type (the IR converts explicitly); anything else is an error,
//! never a silent promotion.

use std::fmt;
use std::ops::{BitAnd, BitOr, BitXor};

use super::rules::{cast, Arithmetic};
use super::ScalarValue;
use crate::fieldview::{BinaryOp, MathFun, UnaryOp};
use crate::types::{CmpOp, ScalarType};

/// Why an operation on scalar values has no result.
#[derive(Clone, Debug, PartialEq)]
pub enum ScalarError {
    /// An integer division or remainder by zero.
    DivisionByZero,
    /// The operation is not defined for operands of these types.
    Undefined {
        /// The operation, as its IR variant is spelled (`Add`, `Sqrt`, …).
        op: String,
        /// The element types of the operands it was given.
        operands: Vec<ScalarType>,
    },
    /// A math function given the wrong number of arguments.
    Arity {
        /// The function.
        fun: MathFun,
        /// How many arguments it was given.
        given: usize,
    },
}

impl ScalarError {
    fn undefined(op: impl fmt::Debug, operands: &[ScalarValue]) -> ScalarError {
        ScalarError::Undefined {
            op: format!("{op:?}"),
            operands: operands.iter().map(|v| v.dtype()).collect(),
        }
    }
}

impl fmt::Display for ScalarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarError::DivisionByZero => write!(f, "integer division by zero"),
            ScalarError::Undefined { op, operands } => {
                let names: Vec<&str> = operands.iter().map(|t| t.rust_name()).collect();
                write!(f, "`{op}` is not defined for ({})", names.join(", "))
            }
            ScalarError::Arity { fun, given } => write!(
                f,
                "`{fun:?}` takes {} arguments, but {given} were given",
                fun.arity()
            ),
        }
    }
}

impl std::error::Error for ScalarError {}

/// The value of an operation on scalar values, or why it has none.
pub type ScalarResult = Result<ScalarValue, ScalarError>;

/// `-a` or `!a` (logical on bool, bitwise on integers).
///
/// # Errors
/// [`ScalarError::Undefined`] for `-` on a bool and `!` on a float.
pub fn unary(op: UnaryOp, a: ScalarValue) -> ScalarResult {
    use ScalarValue::*;
    Ok(match (op, a) {
        (UnaryOp::Neg, I32(x)) => I32(Arithmetic::neg(x)),
        (UnaryOp::Neg, I64(x)) => I64(Arithmetic::neg(x)),
        (UnaryOp::Neg, F32(x)) => F32(Arithmetic::neg(x)),
        (UnaryOp::Neg, F64(x)) => F64(Arithmetic::neg(x)),
        (UnaryOp::Not, Bool(x)) => Bool(!x),
        (UnaryOp::Not, I32(x)) => I32(!x),
        (UnaryOp::Not, I64(x)) => I64(!x),
        _ => return Err(ScalarError::undefined(op, &[a])),
    })
}

/// The arithmetic operators; `None` for the bitwise ones.
fn arithmetic<T: Arithmetic>(op: BinaryOp, x: T, y: T) -> Option<Result<T, ScalarError>> {
    let by_zero = ScalarError::DivisionByZero;
    Some(match op {
        BinaryOp::Add => Ok(Arithmetic::add(x, y)),
        BinaryOp::Sub => Ok(Arithmetic::sub(x, y)),
        BinaryOp::Mul => Ok(Arithmetic::mul(x, y)),
        BinaryOp::Div => Arithmetic::div(x, y).ok_or(by_zero),
        BinaryOp::Rem => Arithmetic::rem(x, y).ok_or(by_zero),
        BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => return None,
    })
}

/// The bitwise operators; `None` for the arithmetic ones.
fn bitwise<T>(op: BinaryOp, x: T, y: T) -> Option<T>
where
    T: BitAnd<Output = T> + BitOr<Output = T> + BitXor<Output = T>,
{
    match op {
        BinaryOp::BitAnd => Some(x & y),
        BinaryOp::BitOr => Some(x | y),
        BinaryOp::BitXor => Some(x ^ y),
        _ => None,
    }
}

/// `a op b` for operands of one element type: arithmetic on integers and floats (integers wrap),
/// bitwise operators on integers and bools.
///
/// # Errors
/// [`ScalarError::DivisionByZero`] for an integer division or remainder by zero,
/// [`ScalarError::Undefined`] for operands of different types or an operator the type lacks.
pub fn binary(op: BinaryOp, a: ScalarValue, b: ScalarValue) -> ScalarResult {
    use ScalarValue::*;
    let undefined = || ScalarError::undefined(op, &[a, b]);
    macro_rules! integer {
        ($v:ident, $x:expr, $y:expr) => {
            match arithmetic(op, $x, $y) {
                Some(r) => r.map($v),
                None => bitwise(op, $x, $y).map($v).ok_or_else(undefined),
            }
        };
    }
    match (a, b) {
        (I32(x), I32(y)) => integer!(I32, x, y),
        (I64(x), I64(y)) => integer!(I64, x, y),
        (F32(x), F32(y)) => arithmetic(op, x, y).map_or_else(|| Err(undefined()), |r| r.map(F32)),
        (F64(x), F64(y)) => arithmetic(op, x, y).map_or_else(|| Err(undefined()), |r| r.map(F64)),
        (Bool(x), Bool(y)) => bitwise(op, x, y).map(Bool).ok_or_else(undefined),
        _ => Err(undefined()),
    }
}

/// `a op b` as a bool, for operands of one element type (floats compare as IEEE 754: any
/// comparison with NaN but `Ne` is false).
///
/// # Errors
/// [`ScalarError::Undefined`] for operands of different types.
pub fn compare(op: CmpOp, a: ScalarValue, b: ScalarValue) -> ScalarResult {
    use ScalarValue::*;
    fn apply<T: PartialOrd>(op: CmpOp, x: T, y: T) -> bool {
        match op {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        }
    }
    Ok(Bool(match (a, b) {
        (Bool(x), Bool(y)) => apply(op, x, y),
        (I32(x), I32(y)) => apply(op, x, y),
        (I64(x), I64(y)) => apply(op, x, y),
        (F32(x), F32(y)) => apply(op, x, y),
        (F64(x), F64(y)) => apply(op, x, y),
        _ => return Err(ScalarError::undefined(op, &[a, b])),
    }))
}

/// `fun` applied to `args`: one argument, or two of one type (`Powi`: any integer exponent,
/// converted to `i32` as a cast would).
pub fn math(fun: MathFun, args: &[ScalarValue]) -> ScalarResult {
    if args.len() != fun.arity() {
        return Err(ScalarError::Arity {
            fun,
            given: args.len(),
        });
    }
    match *args {
        [a] => math1(fun, a),
        [a, b] => math2(fun, a, b),
        _ => Err(ScalarError::undefined(fun, args)),
    }
}

fn math1(fun: MathFun, a: ScalarValue) -> ScalarResult {
    use MathFun::*;
    use ScalarValue::*;
    macro_rules! float {
        ($v:ident, $x:expr, $gamma:path) => {{
            let x = $x;
            $v(match fun {
                Abs => Arithmetic::abs(x),
                Sqrt => x.sqrt(),
                Cbrt => x.cbrt(),
                Exp => x.exp(),
                Ln => x.ln(),
                Log10 => x.log10(),
                Log2 => x.log2(),
                Sin => x.sin(),
                Cos => x.cos(),
                Tan => x.tan(),
                Asin => x.asin(),
                Acos => x.acos(),
                Atan => x.atan(),
                Sinh => x.sinh(),
                Cosh => x.cosh(),
                Tanh => x.tanh(),
                Asinh => x.asinh(),
                Acosh => x.acosh(),
                Atanh => x.atanh(),
                Gamma => $gamma(x),
                Floor => x.floor(),
                Ceil => x.ceil(),
                Trunc => x.trunc(),
                Round => x.round(),
                IsNan => return Ok(Bool(x.is_nan())),
                IsFinite => return Ok(Bool(x.is_finite())),
                IsInfinite => return Ok(Bool(x.is_infinite())),
                _ => return Err(ScalarError::undefined(fun, &[a])),
            })
        }};
    }
    Ok(match a {
        F32(x) => float!(F32, x, super::gamma_f32),
        F64(x) => float!(F64, x, super::gamma),
        I32(x) if fun == Abs => I32(Arithmetic::abs(x)),
        I64(x) if fun == Abs => I64(Arithmetic::abs(x)),
        _ => return Err(ScalarError::undefined(fun, &[a])),
    })
}

fn math2(fun: MathFun, a: ScalarValue, b: ScalarValue) -> ScalarResult {
    use MathFun::*;
    use ScalarValue::*;
    let undefined = || ScalarError::undefined(fun, &[a, b]);
    if fun == Powi {
        let exponent = match b {
            I32(e) => e,
            I64(e) => cast::<i64, i32>(e),
            _ => return Err(undefined()),
        };
        return Ok(match a {
            I32(x) => I32(Arithmetic::powi(x, exponent)),
            I64(x) => I64(Arithmetic::powi(x, exponent)),
            F32(x) => F32(Arithmetic::powi(x, exponent)),
            F64(x) => F64(Arithmetic::powi(x, exponent)),
            Bool(_) => return Err(undefined()),
        });
    }
    let by_zero = ScalarError::DivisionByZero;
    macro_rules! both {
        ($v:ident, $x:expr, $y:expr) => {{
            let (x, y) = ($x, $y);
            match fun {
                Min => Ok($v(Arithmetic::min(x, y))),
                Max => Ok($v(Arithmetic::max(x, y))),
                DivEuclid => Arithmetic::div_euclid(x, y).map($v).ok_or(by_zero),
                RemEuclid => Arithmetic::rem_euclid(x, y).map($v).ok_or(by_zero),
                _ => Err(undefined()),
            }
        }};
    }
    macro_rules! float {
        ($v:ident, $x:expr, $y:expr) => {{
            let (x, y) = ($x, $y);
            match fun {
                Powf => Ok($v(x.powf(y))),
                Atan2 => Ok($v(x.atan2(y))),
                Hypot => Ok($v(x.hypot(y))),
                _ => both!($v, x, y),
            }
        }};
    }
    match (a, b) {
        (F32(x), F32(y)) => float!(F32, x, y),
        (F64(x), F64(y)) => float!(F64, x, y),
        (I32(x), I32(y)) => both!(I32, x, y),
        (I64(x), I64(y)) => both!(I64, x, y),
        _ => Err(undefined()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarValue::*;

    #[test]
    fn integer_division_by_zero_is_an_error_and_overflow_wraps() {
        assert_eq!(
            binary(BinaryOp::Div, I32(3), I32(0)),
            Err(ScalarError::DivisionByZero)
        );
        assert_eq!(
            math(MathFun::RemEuclid, &[I64(3), I64(0)]),
            Err(ScalarError::DivisionByZero)
        );
        assert_eq!(math(MathFun::DivEuclid, &[I32(-7), I32(2)]), Ok(I32(-4)));
        assert_eq!(binary(BinaryOp::Rem, I32(-7), I32(2)), Ok(I32(-1)));
        assert_eq!(
            binary(BinaryOp::Add, I32(i32::MAX), I32(1)),
            Ok(I32(i32::MIN))
        );
        assert_eq!(unary(UnaryOp::Neg, I64(i64::MIN)), Ok(I64(i64::MIN)));
        assert_eq!(
            binary(BinaryOp::Div, F64(1.0), F64(0.0)),
            Ok(F64(f64::INFINITY))
        );
    }

    #[test]
    fn mixed_or_meaningless_operands_are_errors() {
        let err = binary(BinaryOp::Add, I32(1), F64(2.0)).expect_err("mixed types");
        assert_eq!(err.to_string(), "`Add` is not defined for (i32, f64)");
        assert!(binary(BinaryOp::BitAnd, F32(1.0), F32(2.0)).is_err());
        assert!(unary(UnaryOp::Not, F64(1.0)).is_err());
        assert!(compare(CmpOp::Lt, I32(1), I64(2)).is_err());
        assert!(math(MathFun::Sqrt, &[I32(4)]).is_err());
        assert!(matches!(
            math(MathFun::Max, &[F64(1.0)]),
            Err(ScalarError::Arity { given: 1, .. })
        ));
    }

    #[test]
    fn math_and_comparisons_follow_the_typed_rules() {
        assert_eq!(compare(CmpOp::Ge, F64(f64::NAN), F64(0.0)), Ok(Bool(false)));
        assert_eq!(math(MathFun::Powi, &[F32(2.0), I32(3)]), Ok(F32(8.0)));
        assert_eq!(math(MathFun::Max, &[F64(f64::NAN), F64(1.0)]), Ok(F64(1.0)));
        assert_eq!(math(MathFun::IsNan, &[F32(f32::NAN)]), Ok(Bool(true)));
        assert_eq!(math(MathFun::Abs, &[I32(i32::MIN)]), Ok(I32(i32::MIN)));
        assert_eq!(
            binary(BinaryOp::BitXor, Bool(true), Bool(true)),
            Ok(Bool(false))
        );
    }
}
