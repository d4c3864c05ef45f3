//! Scalar operations as the fused CPU kernels spell them. Every integer rule and every cast is
//! a call of `gt4rs_ir::scalar` (as `::gt4rs::__private::ir::scalar::…`), the one statement of
//! the rules that constant folding, the CUDA launcher and the embedded backend follow too; the
//! calls are `#[inline(always)]`, so the kernels compile as if the operation were written in
//! place. Float arithmetic is IEEE and stays plain operators.

use proc_macro2::{Literal as Lit, TokenStream};
use quote::{format_ident, quote};

use gt4rs_ir::fieldview::{BinaryOp, MathFun, UnaryOp};
use gt4rs_ir::{CmpOp, ScalarType, ScalarValue};

use super::rust_type;
use crate::codegen::stage_walk::Division;

/// The path of the scalar rules in generated code.
fn rules() -> TokenStream {
    quote!(::gt4rs::__private::ir::scalar)
}

/// The integer `division` of `a` by `b` as an `Option`: `None` for a zero divisor.
pub(super) fn checked_division(division: Division, a: TokenStream, b: TokenStream) -> TokenStream {
    let rules = rules();
    let rule = format_ident!(
        "{}",
        match division {
            Division::Div => "div",
            Division::Rem => "rem",
            Division::DivEuclid => "div_euclid",
            Division::RemEuclid => "rem_euclid",
        }
    );
    quote!(#rules::Arithmetic::#rule(#a, #b))
}

/// A value of an element type as a Rust expression (floats by their bits, so that every value,
/// NaN and infinities included, comes out exactly).
pub(super) fn value(v: ScalarValue) -> TokenStream {
    match v {
        ScalarValue::Bool(b) => quote!(#b),
        ScalarValue::I32(i) => {
            let l = Lit::i32_suffixed(i);
            quote!(#l)
        }
        ScalarValue::I64(i) => {
            let l = Lit::i64_suffixed(i);
            quote!(#l)
        }
        ScalarValue::F32(f) => {
            let bits = f.to_bits();
            quote!(f32::from_bits(#bits))
        }
        ScalarValue::F64(f) => {
            let bits = f.to_bits();
            quote!(f64::from_bits(#bits))
        }
    }
}

pub(super) fn unary(op: UnaryOp, dtype: ScalarType, a: TokenStream) -> TokenStream {
    let rules = rules();
    match op {
        UnaryOp::Neg if dtype.is_int() => quote!(#rules::Arithmetic::neg(#a)),
        UnaryOp::Neg => quote!((-#a)),
        UnaryOp::Not => quote!((!#a)),
    }
}

/// `a op b` for every operation but an integer division (see [`checked_division`]).
pub(super) fn binary(
    op: BinaryOp,
    dtype: ScalarType,
    a: TokenStream,
    b: TokenStream,
) -> TokenStream {
    let rules = rules();
    match op {
        BinaryOp::Add if dtype.is_int() => quote!(#rules::Arithmetic::add(#a, #b)),
        BinaryOp::Sub if dtype.is_int() => quote!(#rules::Arithmetic::sub(#a, #b)),
        BinaryOp::Mul if dtype.is_int() => quote!(#rules::Arithmetic::mul(#a, #b)),
        BinaryOp::Add => quote!((#a + #b)),
        BinaryOp::Sub => quote!((#a - #b)),
        BinaryOp::Mul => quote!((#a * #b)),
        BinaryOp::Div => quote!((#a / #b)),
        BinaryOp::Rem => quote!((#a % #b)),
        BinaryOp::BitAnd => quote!((#a & #b)),
        BinaryOp::BitOr => quote!((#a | #b)),
        BinaryOp::BitXor => quote!((#a ^ #b)),
    }
}

pub(super) fn compare(op: CmpOp, a: TokenStream, b: TokenStream) -> TokenStream {
    match op {
        CmpOp::Eq => quote!((#a == #b)),
        CmpOp::Ne => quote!((#a != #b)),
        CmpOp::Lt => quote!((#a < #b)),
        CmpOp::Le => quote!((#a <= #b)),
        CmpOp::Gt => quote!((#a > #b)),
        CmpOp::Ge => quote!((#a >= #b)),
    }
}

/// The lesser (`max == false`) or greater of `a` and `b`.
pub(super) fn min_max(max: bool, a: TokenStream, b: TokenStream) -> TokenStream {
    let rules = rules();
    if max {
        quote!(#rules::Arithmetic::max(#a, #b))
    } else {
        quote!(#rules::Arithmetic::min(#a, #b))
    }
}

/// `fun` of `args` (of types `types`), for every function but an integer division (see
/// [`checked_division`]).
pub(super) fn math(
    fun: MathFun,
    types: &[ScalarType],
    args: &[TokenStream],
) -> Result<TokenStream, String> {
    use MathFun::*;
    let (Some(x), Some(&t)) = (args.first(), types.first()) else {
        return Err("a math function without arguments".into());
    };
    let second = || {
        args.get(1)
            .zip(types.get(1))
            .ok_or_else(|| format!("`{fun:?}` without its second argument"))
    };
    let rules = rules();
    Ok(match fun {
        Abs => quote!(#rules::Arithmetic::abs(#x)),
        Sqrt => quote!(#x.sqrt()),
        Cbrt => quote!(#x.cbrt()),
        Exp => quote!(#x.exp()),
        Ln => quote!(#x.ln()),
        Log10 => quote!(#x.log10()),
        Log2 => quote!(#x.log2()),
        Sin => quote!(#x.sin()),
        Cos => quote!(#x.cos()),
        Tan => quote!(#x.tan()),
        Asin => quote!(#x.asin()),
        Acos => quote!(#x.acos()),
        Atan => quote!(#x.atan()),
        Sinh => quote!(#x.sinh()),
        Cosh => quote!(#x.cosh()),
        Tanh => quote!(#x.tanh()),
        Asinh => quote!(#x.asinh()),
        Acosh => quote!(#x.acosh()),
        Atanh => quote!(#x.atanh()),
        Gamma if t == ScalarType::F32 => quote!(#rules::gamma_f32(#x)),
        Gamma => quote!(#rules::gamma(#x)),
        Floor => quote!(#x.floor()),
        Ceil => quote!(#x.ceil()),
        Trunc => quote!(#x.trunc()),
        Round => quote!(#x.round()),
        IsNan => quote!(#x.is_nan()),
        IsFinite => quote!(#x.is_finite()),
        IsInfinite => quote!(#x.is_infinite()),
        Min | Max => min_max(fun == Max, x.clone(), second()?.0.clone()),
        Powf => {
            let y = second()?.0;
            quote!(#x.powf(#y))
        }
        Powi => {
            let (y, &yt) = second()?;
            let exponent = cast(y.clone(), yt, ScalarType::I32);
            quote!(#rules::Arithmetic::powi(#x, #exponent))
        }
        DivEuclid => {
            let y = second()?.0;
            quote!(#x.div_euclid(#y))
        }
        RemEuclid => {
            let y = second()?.0;
            quote!(#x.rem_euclid(#y))
        }
        Atan2 => {
            let y = second()?.0;
            quote!(#x.atan2(#y))
        }
        Hypot => {
            let y = second()?.0;
            quote!(#x.hypot(#y))
        }
    })
}

pub(super) fn cast(a: TokenStream, from: ScalarType, to: ScalarType) -> TokenStream {
    if from == to {
        return a;
    }
    let rules = rules();
    let (from, to) = (rust_type(from), rust_type(to));
    quote!(#rules::cast::<#from, #to>(#a))
}

pub(super) fn select(
    cond: TokenStream,
    if_true: TokenStream,
    if_false: TokenStream,
) -> TokenStream {
    quote!(if #cond { #if_true } else { #if_false })
}
