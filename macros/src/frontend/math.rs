//! Math methods (`x.sqrt()`, `a.max(b)`, `f64::max(a, b)`, `gamma(x)`) and method dispatch.

use quote::ToTokens;

use gt4rs_ir::fieldview::{Expr, ExprKind, MathFun};
use gt4rs_ir::{ScalarType, Type};

use crate::frontend::expr::{is_flexible_literal, Checker};

pub fn math_fun(name: &str) -> Option<MathFun> {
    use MathFun::*;
    Some(match name {
        "abs" => Abs,
        "sqrt" => Sqrt,
        "cbrt" => Cbrt,
        "exp" => Exp,
        "ln" => Ln,
        "log10" => Log10,
        "log2" => Log2,
        "sin" => Sin,
        "cos" => Cos,
        "tan" => Tan,
        "asin" => Asin,
        "acos" => Acos,
        "atan" => Atan,
        "sinh" => Sinh,
        "cosh" => Cosh,
        "tanh" => Tanh,
        "asinh" => Asinh,
        "acosh" => Acosh,
        "atanh" => Atanh,
        "floor" => Floor,
        "ceil" => Ceil,
        "trunc" => Trunc,
        "round" => Round,
        "is_nan" => IsNan,
        "is_finite" => IsFinite,
        "is_infinite" => IsInfinite,
        "min" => Min,
        "max" => Max,
        "powf" => Powf,
        "powi" => Powi,
        "div_euclid" => DivEuclid,
        "rem_euclid" => RemEuclid,
        "atan2" => Atan2,
        "hypot" => Hypot,
        _ => return None,
    })
}

impl Checker<'_> {
    pub fn method_call(&mut self, m: &syn::ExprMethodCall, hint: Option<&Type>) -> Option<Expr> {
        let name = m.method.to_string();
        if name == "at" {
            let recv = self.expr(&m.receiver, None);
            if m.args.len() != 1 {
                self.diag.error(
                    m,
                    "`.at(…)` takes one shift: `O`, `O[n]`, `D + n`, `D - n` or a tuple of these",
                );
                return None;
            }
            return self.shift(recv?, &m.args[0]);
        }
        let Some(fun) = math_fun(&name) else {
            let msg = if name == "write_to" {
                "`.write_to(…)` is only allowed as a statement of a `#[program]`".to_string()
            } else {
                format!(
                    "unknown method `{name}`: fieldview methods are `.at(…)` and the math functions (`abs`, `sqrt`, `exp`, `ln`, `min`, `max`, `powf`, `powi`, …)"
                )
            };
            self.diag.error(&m.method, msg);
            return None;
        };
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        self.math(fun, &m.method, &m.receiver, &args, hint)
    }

    /// `recv.fun(args…)` or `T::fun(recv, args…)`.
    pub fn math(
        &mut self,
        fun: MathFun,
        at: &dyn ToTokens,
        recv: &syn::Expr,
        args: &[&syn::Expr],
        hint: Option<&Type>,
    ) -> Option<Expr> {
        let name = at.to_token_stream().to_string();
        if args.len() + 1 != fun.arity() {
            self.diag.error(
                at,
                format!(
                    "`{name}` takes {} argument(s) besides its receiver",
                    fun.arity() - 1
                ),
            );
            return None;
        }
        let mut operands: Vec<Expr> = Vec::new();
        if fun.arity() == 2 {
            let other_hint = (fun == MathFun::Powi).then_some(Type::Scalar(ScalarType::I32));
            let (a, b) = if fun == MathFun::Powi {
                let a = self.expr(recv, hint);
                (a, self.expr(args[0], other_hint.as_ref()))
            } else if is_flexible_literal(recv) && !is_flexible_literal(args[0]) {
                let b = self.expr(args[0], hint);
                let hb = b.as_ref().map(|b| b.ty.clone());
                (self.expr(recv, hb.as_ref().or(hint)), b)
            } else {
                let a = self.expr(recv, hint);
                let ha = a.as_ref().map(|a| a.ty.clone());
                (a, self.expr(args[0], ha.as_ref().or(hint)))
            };
            operands.push(a?);
            operands.push(b?);
        } else {
            operands.push(self.expr(recv, hint)?);
        }
        let Some(dtype) = operands[0].ty.dtype() else {
            self.diag
                .error(recv, format!("`{name}` does not apply to a tuple"));
            return None;
        };
        if fun.float_only() && !dtype.is_float() || !dtype.is_arithmetic() {
            self.diag.error(
                recv,
                format!(
                    "`{name}` needs a floating-point operand, but this is `{}`",
                    operands[0].ty
                ),
            );
            return None;
        }
        if fun == MathFun::Powi && !dtype.is_float() {
            self.diag.error(recv, "`powi` needs a floating-point base");
            return None;
        }
        let mut ty = operands[0].ty.clone();
        if let Some(second) = operands.get(1) {
            let expected = if fun == MathFun::Powi {
                ScalarType::I32
            } else {
                dtype
            };
            if second.ty.dtype() != Some(expected) {
                self.diag.error(
                    args[0],
                    format!(
                        "`{name}` expects `{}` here, but this is `{}`; gt4rs never converts implicitly",
                        expected.rust_name(),
                        second.ty
                    ),
                );
                return None;
            }
            let a = operands[0].ty.clone();
            let b = second.ty.clone();
            ty = match (&a, &b) {
                (Type::Scalar(_), Type::Scalar(_)) => a,
                _ => {
                    let dims = self.promote(args[0], a.dims()?, b.dims()?)?;
                    Type::Field { dims, dtype }
                }
            };
        }
        if fun.is_predicate() {
            ty = crate::frontend::expr::with_dtype(&ty, ScalarType::Bool);
        }
        Some(Expr::new(
            ty,
            ExprKind::Math {
                fun,
                args: operands,
            },
        ))
    }
}
