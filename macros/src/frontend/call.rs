//! Calls: builtins by name, math in path form (`f64::max`) and field/scan operator calls.

use gt4rs_ir::fieldview::{Expr, ExprKind, MathFun, OperatorKind};
use gt4rs_ir::{ScalarType, Type};

use crate::definitions::{path_key, Def};
use crate::frontend::builtins::reduce_op;
use crate::frontend::expr::Checker;
use crate::frontend::math::math_fun;
use crate::frontend::shift::single_path;
use crate::frontend::types::describe;

impl Checker<'_> {
    pub fn call(&mut self, c: &syn::ExprCall, hint: Option<&Type>) -> Option<Expr> {
        let Some(path) = single_path(&c.func) else {
            self.diag
                .error(&c.func, "only named operators and builtins can be called");
            return None;
        };
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() == 2 {
            if let Some(prefix) = ScalarType::from_rust_name(&segments[0]) {
                let Some(fun) = math_fun(&segments[1]) else {
                    self.diag
                        .error(path, format!("unknown math function `{}`", path_key(path)));
                    return None;
                };
                if args.is_empty() {
                    self.diag
                        .error(c, format!("`{}` needs an argument", path_key(path)));
                    return None;
                }
                let result = self.math(
                    fun,
                    &path.segments[1].ident,
                    args[0],
                    &args[1..],
                    Some(&Type::Scalar(prefix)),
                )?;
                if result.ty.dtype() != Some(prefix) && !fun.is_predicate() {
                    self.diag.error(
                        c,
                        format!("`{}` applied to `{}`", path_key(path), result.ty),
                    );
                    return None;
                }
                return Some(result);
            }
        }
        if segments.len() == 1 {
            let name = segments[0].as_str();
            if let Some(op) = reduce_op(name) {
                return self.reduce(c, op, &args, hint);
            }
            match name {
                "select" => return self.select(c, &args, hint),
                "broadcast" => return self.broadcast(c, &args, hint),
                "concat_where" => return self.concat_where(c, &args, hint),
                "gamma" => {
                    if args.len() != 1 {
                        self.diag.error(c, "`gamma` takes one argument");
                        return None;
                    }
                    return self.math(MathFun::Gamma, &c.func, args[0], &[], hint);
                }
                _ => {}
            }
        }
        match self.env.lookup(path) {
            Some(Def::Operator { key, bundle }) => {
                let Some(op) = bundle.operator(key) else {
                    self.diag.error(
                        path,
                        format!(
                            "gt4rs: the definition of `{}` lacks its operator",
                            path_key(path)
                        ),
                    );
                    return None;
                };
                let op = op.clone();
                self.operator_call(c, &op, &args)
            }
            Some(Def::Broken { name }) => {
                self.diag.error(
                    path,
                    format!(
                        "`{}` names the operator `{name}`, which has errors: fix them first",
                        path_key(path)
                    ),
                );
                None
            }
            Some(def) => {
                self.diag.error(
                    path,
                    format!("`{}` is {}, not an operator", path_key(path), describe(def)),
                );
                None
            }
            None => {
                self.diag.error(
                    path,
                    format!(
                        "unknown function `{}`: call a `#[field_operator]`, a `#[scan_operator]` or a builtin",
                        path_key(path)
                    ),
                );
                None
            }
        }
    }

    fn operator_call(
        &mut self,
        c: &syn::ExprCall,
        op: &gt4rs_ir::fieldview::Operator,
        args: &[&syn::Expr],
    ) -> Option<Expr> {
        let is_scan = matches!(op.kind, OperatorKind::Scan { .. });
        let params = if is_scan {
            op.params.get(1..).unwrap_or(&[])
        } else {
            &op.params[..]
        };
        if params.len() != args.len() {
            let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            self.diag.error(
                c,
                format!(
                    "`{}` takes {} argument(s) ({}) but {} were given",
                    op.name,
                    params.len(),
                    names.join(", "),
                    args.len()
                ),
            );
            return None;
        }
        let mut checked = Vec::new();
        let mut ok = true;
        for (param, arg) in params.iter().zip(args) {
            let hint = if is_scan {
                Type::Scalar(param.ty.dtype().unwrap_or(ScalarType::F64))
            } else {
                param.ty.clone()
            };
            let Some(e) = self.expr(arg, Some(&hint)) else {
                ok = false;
                continue;
            };
            let fits = if is_scan {
                e.ty.is_field() && e.ty.dtype() == param.ty.dtype() || e.ty == param.ty
            } else {
                e.ty == param.ty
            };
            if !fits {
                let expected = if is_scan {
                    format!("`{}` or a field of `{}`", param.ty, param.ty)
                } else {
                    format!("`{}`", param.ty)
                };
                self.diag.error(
                    arg,
                    format!(
                        "argument `{}` of `{}` expects {expected}, but this is `{}`",
                        param.name, op.name, e.ty
                    ),
                );
                ok = false;
                continue;
            }
            checked.push(e);
        }
        if !ok {
            return None;
        }
        let ret = match &op.kind {
            OperatorKind::Field => op.ret.clone(),
            OperatorKind::Scan { axis, .. } => {
                let mut dims: Vec<String> = Vec::new();
                for e in &checked {
                    if let Type::Field { dims: d, .. } = &e.ty {
                        dims = self.promote(c, &dims, d)?;
                    }
                }
                if !dims.contains(axis) {
                    self.diag.error(
                        c,
                        format!(
                            "the scan `{}` runs along `{axis}`, but none of its field arguments has that dimension",
                            op.name
                        ),
                    );
                    return None;
                }
                fieldify(&op.ret, &dims)
            }
        };
        Some(Expr::new(
            ret,
            ExprKind::Call {
                callee: op.key.clone(),
                args: checked,
            },
        ))
    }
}

/// A scan's return type lifted to fields over `dims` (tuples element by element).
fn fieldify(ty: &Type, dims: &[String]) -> Type {
    match ty {
        Type::Tuple(items) => Type::Tuple(items.iter().map(|t| fieldify(t, dims)).collect()),
        Type::Scalar(d) | Type::Field { dtype: d, .. } => Type::Field {
            dims: dims.to_vec(),
            dtype: *d,
        },
    }
}
