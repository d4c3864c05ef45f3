//! One element of a runtime value and the scalar operations on it.
//!
//! Every elementwise IR operation bottoms out here, one element at a time. Integer arithmetic
//! wraps (as the fused kernels do in release builds); integer division by zero is an error
//! instead of a panic.

use gt4rs_ir::fieldview::{BinaryOp, Literal, MathFun, UnaryOp};
use gt4rs_ir::{CmpOp, ScalarType};

use crate::args::ScalarValue;
use crate::backend::libm::gamma;

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
pub(crate) type ElemResult = Result<Elem, String>;

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
    pub(crate) fn from_literal(lit: Literal, dtype: ScalarType) -> Elem {
        let raw = match lit {
            Literal::Bool(b) => Elem::Bool(b),
            Literal::Int(i) => Elem::I64(i),
            Literal::Float(bits) => Elem::F64(f64::from_bits(bits)),
        };
        raw.cast(dtype)
    }

    pub(crate) fn dtype(self) -> Option<ScalarType> {
        Some(match self {
            Elem::Bool(_) => ScalarType::Bool,
            Elem::I32(_) => ScalarType::I32,
            Elem::I64(_) => ScalarType::I64,
            Elem::F32(_) => ScalarType::F32,
            Elem::F64(_) => ScalarType::F64,
            Elem::Missing => return None,
        })
    }

    /// The value as an integer, for domain bounds and dynamic offsets.
    pub(crate) fn as_i64(self) -> Option<i64> {
        match self {
            Elem::I32(i) => Some(i as i64),
            Elem::I64(i) => Some(i),
            _ => None,
        }
    }

    /// Rust's `as` conversion; bool converts to 0/1 and from `!= 0`.
    pub(crate) fn cast(self, to: ScalarType) -> Elem {
        macro_rules! conv {
            ($x:expr) => {
                match to {
                    ScalarType::Bool => Elem::Bool(($x as f64) != 0.0),
                    ScalarType::I32 => Elem::I32($x as i32),
                    ScalarType::I64 => Elem::I64($x as i64),
                    ScalarType::F32 => Elem::F32($x as f32),
                    ScalarType::F64 => Elem::F64($x as f64),
                }
            };
        }
        match self {
            Elem::Bool(b) => match to {
                ScalarType::Bool => Elem::Bool(b),
                _ => Elem::I32(b as i32).cast(to),
            },
            Elem::I32(x) => conv!(x),
            Elem::I64(x) => conv!(x),
            Elem::F32(x) => conv!(x),
            Elem::F64(x) => conv!(x),
            Elem::Missing => Elem::Missing,
        }
    }

    pub(crate) fn zero(dtype: ScalarType) -> Elem {
        Elem::I32(0).cast(dtype)
    }

    /// The lowest finite value of `dtype` (the start of `max_over`).
    pub(crate) fn lowest(dtype: ScalarType) -> Elem {
        match dtype {
            ScalarType::Bool => Elem::Bool(false),
            ScalarType::I32 => Elem::I32(i32::MIN),
            ScalarType::I64 => Elem::I64(i64::MIN),
            ScalarType::F32 => Elem::F32(f32::MIN),
            ScalarType::F64 => Elem::F64(f64::MIN),
        }
    }

    /// The highest finite value of `dtype` (the start of `min_over`).
    pub(crate) fn highest(dtype: ScalarType) -> Elem {
        match dtype {
            ScalarType::Bool => Elem::Bool(true),
            ScalarType::I32 => Elem::I32(i32::MAX),
            ScalarType::I64 => Elem::I64(i64::MAX),
            ScalarType::F32 => Elem::F32(f32::MAX),
            ScalarType::F64 => Elem::F64(f64::MAX),
        }
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

fn type_error(what: &str, args: &[Elem]) -> String {
    let types: Vec<&str> = args
        .iter()
        .map(|a| a.dtype().map_or("undefined", |t| t.rust_name()))
        .collect();
    format!("`{what}` is not defined for ({})", types.join(", "))
}

pub(crate) fn unary(op: UnaryOp, a: Elem) -> ElemResult {
    Ok(match (op, a) {
        (_, Elem::Missing) => Elem::Missing,
        (UnaryOp::Neg, Elem::I32(x)) => Elem::I32(x.wrapping_neg()),
        (UnaryOp::Neg, Elem::I64(x)) => Elem::I64(x.wrapping_neg()),
        (UnaryOp::Neg, Elem::F32(x)) => Elem::F32(-x),
        (UnaryOp::Neg, Elem::F64(x)) => Elem::F64(-x),
        (UnaryOp::Not, Elem::Bool(x)) => Elem::Bool(!x),
        (UnaryOp::Not, Elem::I32(x)) => Elem::I32(!x),
        (UnaryOp::Not, Elem::I64(x)) => Elem::I64(!x),
        _ => return Err(type_error(&format!("{op:?}"), &[a])),
    })
}

fn division_by_zero() -> String {
    "integer division by zero".to_string()
}

pub(crate) fn binary(op: BinaryOp, a: Elem, b: Elem) -> ElemResult {
    use BinaryOp::*;
    macro_rules! int {
        ($v:ident, $x:expr, $y:expr) => {
            Elem::$v(match op {
                Add => $x.wrapping_add($y),
                Sub => $x.wrapping_sub($y),
                Mul => $x.wrapping_mul($y),
                Div if $y == 0 => return Err(division_by_zero()),
                Div => $x.wrapping_div($y),
                Rem if $y == 0 => return Err(division_by_zero()),
                Rem => $x.wrapping_rem($y),
                BitAnd => $x & $y,
                BitOr => $x | $y,
                BitXor => $x ^ $y,
            })
        };
    }
    macro_rules! float {
        ($v:ident, $x:expr, $y:expr) => {
            Elem::$v(match op {
                Add => $x + $y,
                Sub => $x - $y,
                Mul => $x * $y,
                Div => $x / $y,
                Rem => $x % $y,
                BitAnd | BitOr | BitXor => return Err(type_error(&format!("{op:?}"), &[a, b])),
            })
        };
    }
    Ok(match (a, b) {
        (Elem::Missing, _) | (_, Elem::Missing) => Elem::Missing,
        (Elem::I32(x), Elem::I32(y)) => int!(I32, x, y),
        (Elem::I64(x), Elem::I64(y)) => int!(I64, x, y),
        (Elem::F32(x), Elem::F32(y)) => float!(F32, x, y),
        (Elem::F64(x), Elem::F64(y)) => float!(F64, x, y),
        (Elem::Bool(x), Elem::Bool(y)) => Elem::Bool(match op {
            BitAnd => x & y,
            BitOr => x | y,
            BitXor => x ^ y,
            _ => return Err(type_error(&format!("{op:?}"), &[a, b])),
        }),
        _ => return Err(type_error(&format!("{op:?}"), &[a, b])),
    })
}

pub(crate) fn compare(op: CmpOp, a: Elem, b: Elem) -> ElemResult {
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
    Ok(match (a, b) {
        (Elem::Missing, _) | (_, Elem::Missing) => Elem::Missing,
        (Elem::Bool(x), Elem::Bool(y)) => Elem::Bool(apply(op, x, y)),
        (Elem::I32(x), Elem::I32(y)) => Elem::Bool(apply(op, x, y)),
        (Elem::I64(x), Elem::I64(y)) => Elem::Bool(apply(op, x, y)),
        (Elem::F32(x), Elem::F32(y)) => Elem::Bool(apply(op, x, y)),
        (Elem::F64(x), Elem::F64(y)) => Elem::Bool(apply(op, x, y)),
        _ => return Err(type_error(&format!("{op:?}"), &[a, b])),
    })
}

/// `fun` applied to `args` (already converted to the operand types the IR asks for).
pub(crate) fn math(fun: MathFun, args: &[Elem]) -> ElemResult {
    if args.len() != fun.arity() {
        return Err(format!(
            "`{fun:?}` takes {} arguments, but {} were given",
            fun.arity(),
            args.len()
        ));
    }
    if args.contains(&Elem::Missing) {
        return Ok(Elem::Missing);
    }
    if fun.arity() == 1 {
        math1(fun, args[0])
    } else {
        math2(fun, args[0], args[1])
    }
}

fn math1(fun: MathFun, a: Elem) -> ElemResult {
    use MathFun::*;
    macro_rules! float {
        ($x:expr, $t:ty) => {{
            let x: $t = $x;
            match fun {
                Abs => x.abs(),
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
                Gamma => gamma(x as f64) as $t,
                Floor => x.floor(),
                Ceil => x.ceil(),
                Trunc => x.trunc(),
                Round => x.round(),
                IsNan => return Ok(Elem::Bool(x.is_nan())),
                IsFinite => return Ok(Elem::Bool(x.is_finite())),
                IsInfinite => return Ok(Elem::Bool(x.is_infinite())),
                _ => return Err(type_error(&format!("{fun:?}"), &[a])),
            }
        }};
    }
    Ok(match a {
        Elem::F32(x) => Elem::F32(float!(x, f32)),
        Elem::F64(x) => Elem::F64(float!(x, f64)),
        Elem::I32(x) if fun == Abs => Elem::I32(x.wrapping_abs()),
        Elem::I64(x) if fun == Abs => Elem::I64(x.wrapping_abs()),
        _ => return Err(type_error(&format!("{fun:?}"), &[a])),
    })
}

fn math2(fun: MathFun, a: Elem, b: Elem) -> ElemResult {
    use MathFun::*;
    macro_rules! float {
        ($x:expr, $y:expr) => {{
            let (x, y) = ($x, $y);
            match fun {
                Min => x.min(y),
                Max => x.max(y),
                Powf => x.powf(y),
                DivEuclid => x.div_euclid(y),
                RemEuclid => x.rem_euclid(y),
                Atan2 => x.atan2(y),
                Hypot => x.hypot(y),
                _ => return Err(type_error(&format!("{fun:?}"), &[a, b])),
            }
        }};
    }
    macro_rules! int {
        ($x:expr, $y:expr) => {{
            let (x, y) = ($x, $y);
            match fun {
                Min => x.min(y),
                Max => x.max(y),
                DivEuclid if y == 0 => return Err(division_by_zero()),
                DivEuclid => x.wrapping_div_euclid(y),
                RemEuclid if y == 0 => return Err(division_by_zero()),
                RemEuclid => x.wrapping_rem_euclid(y),
                _ => return Err(type_error(&format!("{fun:?}"), &[a, b])),
            }
        }};
    }
    if fun == Powi {
        let exponent = b.as_i64().ok_or_else(|| type_error("Powi", &[a, b]))?;
        return Ok(match a {
            Elem::F32(x) => Elem::F32(x.powi(saturate_i32(exponent))),
            Elem::F64(x) => Elem::F64(x.powi(saturate_i32(exponent))),
            Elem::I32(x) => Elem::I32(x.wrapping_pow(int_exponent(exponent)?)),
            Elem::I64(x) => Elem::I64(x.wrapping_pow(int_exponent(exponent)?)),
            _ => return Err(type_error("Powi", &[a, b])),
        });
    }
    Ok(match (a, b) {
        (Elem::F32(x), Elem::F32(y)) => Elem::F32(float!(x, y)),
        (Elem::F64(x), Elem::F64(y)) => Elem::F64(float!(x, y)),
        (Elem::I32(x), Elem::I32(y)) => Elem::I32(int!(x, y)),
        (Elem::I64(x), Elem::I64(y)) => Elem::I64(int!(x, y)),
        _ => return Err(type_error(&format!("{fun:?}"), &[a, b])),
    })
}

fn saturate_i32(x: i64) -> i32 {
    x.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

fn int_exponent(exponent: i64) -> Result<u32, String> {
    u32::try_from(exponent)
        .map_err(|_| format!("integer power with exponent {exponent} (must be in 0..=u32::MAX)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_division_by_zero_is_an_error() {
        assert!(binary(BinaryOp::Div, Elem::I32(3), Elem::I32(0)).is_err());
        assert!(math(MathFun::RemEuclid, &[Elem::I64(3), Elem::I64(0)]).is_err());
        assert_eq!(
            math(MathFun::DivEuclid, &[Elem::I32(-7), Elem::I32(2)]),
            Ok(Elem::I32(-4))
        );
        assert_eq!(
            binary(BinaryOp::Rem, Elem::I32(-7), Elem::I32(2)),
            Ok(Elem::I32(-1))
        );
    }
}
