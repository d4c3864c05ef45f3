//! Scalar operations as the CUDA kernels spell them in C. Integer arithmetic goes through the
//! prelude's helpers (`prelude.cuh`), the C twins of the rules in `gt4rs_ir::scalar`: it
//! wraps, and a zero divisor, which the kernel reports before dividing, gives 0.

use gt4rs_ir::fieldview::{BinaryOp, MathFun, UnaryOp};
use gt4rs_ir::kernel::c_type;
use gt4rs_ir::{CmpOp, ScalarType, ScalarValue};

fn float_text(v: f64, f32_suffix: bool) -> String {
    let suffix = if f32_suffix { "f" } else { "" };
    if v.is_nan() {
        return if f32_suffix {
            "__int_as_float(0x7fc00000)".into()
        } else {
            "__longlong_as_double(0x7ff8000000000000LL)".into()
        };
    }
    if v.is_infinite() {
        let inf = if f32_suffix {
            "__int_as_float(0x7f800000)"
        } else {
            "__longlong_as_double(0x7ff0000000000000LL)"
        };
        return if v > 0.0 {
            inf.into()
        } else {
            format!("(-{inf})")
        };
    }
    if f32_suffix {
        format!("{:e}{suffix}", v as f32)
    } else {
        format!("{v:e}")
    }
}

fn int_text(i: i64, t: ScalarType) -> String {
    match t {
        ScalarType::I32 => {
            let i = i as i32;
            if i == i32::MIN {
                "(-2147483647 - 1)".into()
            } else {
                format!("{i}")
            }
        }
        _ => {
            if i == i64::MIN {
                "(-9223372036854775807LL - 1LL)".into()
            } else {
                format!("{i}LL")
            }
        }
    }
}

/// A value of an element type as a C expression (non-finite floats by their bits).
pub(super) fn value(v: ScalarValue) -> String {
    match v {
        ScalarValue::Bool(b) => b.to_string(),
        ScalarValue::I32(i) => int_text(i64::from(i), ScalarType::I32),
        ScalarValue::I64(i) => int_text(i, ScalarType::I64),
        ScalarValue::F32(f) => float_text(f64::from(f), true),
        ScalarValue::F64(f) => float_text(f, false),
    }
}

pub(super) fn binary(op: BinaryOp, dtype: ScalarType, a: &str, b: &str) -> String {
    if dtype.is_int() {
        match op {
            BinaryOp::Add => format!("gt4rs_add({a}, {b})"),
            BinaryOp::Sub => format!("gt4rs_sub({a}, {b})"),
            BinaryOp::Mul => format!("gt4rs_mul({a}, {b})"),
            BinaryOp::Div => format!("gt4rs_div({a}, {b})"),
            BinaryOp::Rem => format!("gt4rs_rem({a}, {b})"),
            BinaryOp::BitAnd => format!("({a} & {b})"),
            BinaryOp::BitOr => format!("({a} | {b})"),
            BinaryOp::BitXor => format!("({a} ^ {b})"),
        }
    } else {
        let f = if dtype == ScalarType::F32 {
            "fmodf"
        } else {
            "fmod"
        };
        match op {
            BinaryOp::Add => format!("({a} + {b})"),
            BinaryOp::Sub => format!("({a} - {b})"),
            BinaryOp::Mul => format!("({a} * {b})"),
            BinaryOp::Div => format!("({a} / {b})"),
            BinaryOp::Rem => format!("{f}({a}, {b})"),
            BinaryOp::BitAnd => format!("({a} & {b})"),
            BinaryOp::BitOr => format!("({a} | {b})"),
            BinaryOp::BitXor => format!("({a} ^ {b})"),
        }
    }
}

/// The greater (`max`) or lesser of `a` and `b`.
pub(super) fn min_max(max: bool, t: ScalarType, a: &str, b: &str) -> String {
    let fun = match (t, max) {
        (ScalarType::F64, true) => "gt4rs_fmax",
        (ScalarType::F64, false) => "gt4rs_fmin",
        (ScalarType::F32, true) => "gt4rs_fmaxf",
        (ScalarType::F32, false) => "gt4rs_fminf",
        (_, true) => "gt4rs_imax",
        (_, false) => "gt4rs_imin",
    };
    format!("{fun}({a}, {b})")
}

pub(super) fn math(fun: MathFun, t: ScalarType, a: &[String]) -> Result<String, String> {
    use MathFun::*;
    let x = a.first().ok_or("a math function without arguments")?;
    let zero = "0".to_string();
    let y = a.get(1).unwrap_or(&zero);
    // Single-precision functions carry an `f` suffix.
    let f = if t == ScalarType::F32 { "f" } else { "" };
    let call = |name: &str| format!("{name}{f}({x})");
    Ok(match fun {
        Abs if t.is_int() => format!("gt4rs_abs({x})"),
        Abs => call("fabs"),
        Sqrt => call("sqrt"),
        Cbrt => call("cbrt"),
        Exp => call("exp"),
        Ln => call("log"),
        Log10 => call("log10"),
        Log2 => call("log2"),
        Sin => call("sin"),
        Cos => call("cos"),
        Tan => call("tan"),
        Asin => call("asin"),
        Acos => call("acos"),
        Atan => call("atan"),
        Sinh => call("sinh"),
        Cosh => call("cosh"),
        Tanh => call("tanh"),
        Asinh => call("asinh"),
        Acosh => call("acosh"),
        Atanh => call("atanh"),
        Gamma => call("tgamma"),
        Floor => call("floor"),
        Ceil => call("ceil"),
        Trunc => call("trunc"),
        Round => call("round"),
        IsNan => format!("isnan({x})"),
        IsFinite => format!("isfinite({x})"),
        IsInfinite => format!("isinf({x})"),
        Min | Max => min_max(fun == Max, t, x, y),
        Powf => format!("pow{f}({x}, {y})"),
        Powi if t.is_int() => format!("gt4rs_ipow({x}, ({})({y}))", c_type(t)),
        Powi => format!("pow{f}({x}, ({})({y}))", c_type(t)),
        DivEuclid if t.is_int() => format!("gt4rs_div_euclid({x}, {y})"),
        DivEuclid => format!("gt4rs_fdiv_euclid({x}, {y})"),
        RemEuclid if t.is_int() => format!("gt4rs_rem_euclid({x}, {y})"),
        RemEuclid => format!("gt4rs_frem_euclid({x}, {y})"),
        Atan2 => format!("atan2{f}({x}, {y})"),
        Hypot => format!("hypot{f}({x}, {y})"),
    })
}

pub(super) fn cast(a: &str, from: ScalarType, to: ScalarType) -> String {
    let ty = c_type(to);
    match (from, to) {
        (f, t) if f == t => a.to_string(),
        (ScalarType::Bool, t) if t.is_float() => format!("(({ty})(int){a})"),
        (_, ScalarType::Bool) if from.is_float() => format!("({a} != 0)"),
        (_, ScalarType::Bool) => format!("({a} != 0)"),
        (f, ScalarType::I32) if f.is_float() => format!("gt4rs_f2i32({a})"),
        (f, ScalarType::I64) if f.is_float() => format!("gt4rs_f2i64({a})"),
        _ => format!("(({ty}){a})"),
    }
}

pub(super) fn unary(op: UnaryOp, dtype: ScalarType, a: &str) -> String {
    match (op, dtype) {
        (UnaryOp::Neg, t) if t.is_int() => format!("gt4rs_neg({a})"),
        (UnaryOp::Neg, _) => format!("(-{a})"),
        (UnaryOp::Not, ScalarType::Bool) => format!("(!{a})"),
        (UnaryOp::Not, _) => format!("(~{a})"),
    }
}

pub(super) fn compare(op: CmpOp, a: &str, b: &str) -> String {
    let o = match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    };
    format!("({a} {o} {b})")
}
