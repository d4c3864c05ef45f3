//! Builtin functions: reductions, `select`, `broadcast` and `concat_where`.

use quote::ToTokens;

use gt4rs_ir::fieldview::{DomainCond, Expr, ExprKind, MathFun, ReduceOp};
use gt4rs_ir::{CmpOp, ScalarType, Type};

use crate::definitions::Def;
use crate::frontend::expr::{is_flexible_literal, Checker};
use crate::frontend::shift::single_path;
use crate::frontend::types::resolve_dim;

pub fn reduce_op(name: &str) -> Option<ReduceOp> {
    Some(match name {
        "neighbor_sum" => ReduceOp::Sum,
        "max_over" => ReduceOp::Max,
        "min_over" => ReduceOp::Min,
        _ => return None,
    })
}
impl Checker<'_> {
    pub fn reduce(
        &mut self,
        c: &syn::ExprCall,
        op: ReduceOp,
        args: &[&syn::Expr],
        hint: Option<&Type>,
    ) -> Option<Expr> {
        let name = c.func.to_token_stream().to_string();
        if args.len() != 2 {
            self.diag.error(
                c,
                format!("`{name}` takes a field and a local dimension: `{name}(x, E2C)`"),
            );
            return None;
        }
        let arg = self.expr(args[0], hint);
        let Some(path) = single_path(args[1]) else {
            self.diag
                .error(args[1], "expected a local dimension (a neighbour offset)");
            return None;
        };
        let o = match self.env.lookup(path) {
            Some(Def::Offset(o)) => o.clone(),
            Some(Def::Dim(d)) => {
                self.diag.error(
                    path,
                    format!(
                        "cannot reduce over `{}`: it is not a local dimension; `{name}` reduces over neighbours (a neighbour offset such as `E2C`)",
                        d.name
                    ),
                );
                return None;
            }
            _ => {
                self.offset(path)?;
                return None;
            }
        };
        let arg = arg?;
        let (Type::Field { dims, dtype }, true) =
            (&arg.ty, arg.ty.dims().is_some_and(|d| d.contains(&o.name)))
        else {
            self.diag.error(
                args[0],
                format!(
                    "`{name}` over `{}` needs a field with the local dimension `{}`, but this is `{}`: take the neighbours with `.at({})` first",
                    o.name, o.name, arg.ty, o.name
                ),
            );
            return None;
        };
        if !dtype.is_arithmetic() {
            self.diag.error(
                args[0],
                format!("`{name}` needs numbers, not `{}`", dtype.rust_name()),
            );
            return None;
        }
        let ty = Type::Field {
            dims: dims.iter().filter(|d| **d != o.name).cloned().collect(),
            dtype: *dtype,
        };
        Some(Expr::new(
            ty,
            ExprKind::Reduce {
                op,
                local: o.name,
                arg: Box::new(arg),
            },
        ))
    }

    /// Checks the two branches of `select` / `concat_where` (a literal takes the other's type).
    fn branches(
        &mut self,
        a: &syn::Expr,
        b: &syn::Expr,
        hint: Option<&Type>,
    ) -> Option<(Expr, Expr)> {
        let (x, y) = if is_flexible_literal(a) && !is_flexible_literal(b) {
            let y = self.expr(b, hint);
            let hy = y.as_ref().map(|y| y.ty.clone());
            (self.expr(a, hy.as_ref().or(hint)), y)
        } else {
            let x = self.expr(a, hint);
            let hx = x.as_ref().map(|x| x.ty.clone());
            (x, self.expr(b, hx.as_ref().or(hint)))
        };
        Some((x?, y?))
    }

    /// The result type of choosing between `a` and `b` under a mask over `mask_dims`.
    fn choice_type(
        &mut self,
        at: &syn::ExprCall,
        mask_dims: &[String],
        a: &Type,
        b: &Type,
    ) -> Option<Type> {
        match (a, b) {
            (Type::Tuple(xs), Type::Tuple(ys)) if xs.len() == ys.len() => {
                let items: Option<Vec<Type>> = xs
                    .iter()
                    .zip(ys)
                    .map(|(x, y)| self.choice_type(at, mask_dims, x, y))
                    .collect();
                Some(Type::Tuple(items?))
            }
            (Type::Tuple(_), _) | (_, Type::Tuple(_)) => {
                self.diag.error(
                    at,
                    format!("the two choices have different shapes: `{a}` and `{b}`"),
                );
                None
            }
            _ => {
                let (da, db) = (a.dtype()?, b.dtype()?);
                if da != db {
                    self.diag.error(
                        at,
                        format!("the two choices have different element types: `{a}` and `{b}`; gt4rs never converts implicitly"),
                    );
                    return None;
                }
                if mask_dims.is_empty() && !a.is_field() && !b.is_field() {
                    return Some(Type::Scalar(da));
                }
                let dims = self.promote(at, mask_dims, a.dims()?)?;
                let dims = self.promote(at, &dims, b.dims()?)?;
                Some(Type::Field { dims, dtype: da })
            }
        }
    }

    pub fn select(
        &mut self,
        c: &syn::ExprCall,
        args: &[&syn::Expr],
        hint: Option<&Type>,
    ) -> Option<Expr> {
        if args.len() != 3 {
            self.diag.error(
                c,
                "`select` takes a mask and two values: `select(mask, a, b)`",
            );
            return None;
        }
        let mask = self.expr(args[0], Some(&Type::Scalar(ScalarType::Bool)));
        let branches = self.branches(args[1], args[2], hint);
        let mask = mask?;
        if mask.ty.dtype() != Some(ScalarType::Bool) {
            self.diag.error(
                args[0],
                format!(
                    "the mask of `select` must be `bool`, but this is `{}`",
                    mask.ty
                ),
            );
            return None;
        }
        let (a, b) = branches?;
        let mask_dims = mask.ty.dims()?.to_vec();
        let mask_is_field = mask.ty.is_field();
        let mut ty = self.choice_type(c, &mask_dims, &a.ty, &b.ty)?;
        if mask_is_field {
            ty = fieldify_keep(&ty, &mask_dims);
        }
        Some(Expr::new(
            ty,
            ExprKind::Select {
                cond: Box::new(mask),
                if_true: Box::new(a),
                if_false: Box::new(b),
            },
        ))
    }

    pub fn broadcast(
        &mut self,
        c: &syn::ExprCall,
        args: &[&syn::Expr],
        hint: Option<&Type>,
    ) -> Option<Expr> {
        if args.len() != 2 {
            self.diag.error(
                c,
                "`broadcast` takes a value and dimensions: `broadcast(x, (Edge, K))`",
            );
            return None;
        }
        let arg = self.expr(args[0], hint);
        let paths: Vec<&syn::Path> = match args[1] {
            syn::Expr::Tuple(t) => {
                let mut v = Vec::new();
                for e in &t.elems {
                    match single_path(e) {
                        Some(p) => v.push(p),
                        None => {
                            self.diag.error(e, "expected a dimension");
                            return None;
                        }
                    }
                }
                v
            }
            other => match single_path(other) {
                Some(p) => vec![p],
                None => {
                    self.diag.error(
                        other,
                        "expected a dimension or a tuple of dimensions: `(Edge, K)`",
                    );
                    return None;
                }
            },
        };
        let mut dims = Vec::new();
        for p in paths {
            match resolve_dim(self.env, p) {
                Ok(d) => dims.push(d.name),
                Err(e) => {
                    self.diag.push(e);
                    return None;
                }
            }
        }
        let arg = arg?;
        let Some(dtype) = arg.ty.dtype() else {
            self.diag.error(
                args[0],
                "a tuple cannot be broadcast: broadcast its elements",
            );
            return None;
        };
        if let Some(missing) = arg.ty.dims()?.iter().find(|d| !dims.contains(d)) {
            self.diag.error(
                args[1],
                format!(
                    "cannot broadcast `{}` to these dimensions: it would drop `{missing}`",
                    arg.ty
                ),
            );
            return None;
        }
        let dims = self.promote(args[1], &dims, &[])?;
        Some(Expr::new(
            Type::Field {
                dims: dims.clone(),
                dtype,
            },
            ExprKind::Broadcast {
                arg: Box::new(arg),
                dims,
            },
        ))
    }

    pub fn concat_where(
        &mut self,
        c: &syn::ExprCall,
        args: &[&syn::Expr],
        hint: Option<&Type>,
    ) -> Option<Expr> {
        if args.len() != 3 {
            self.diag.error(
                c,
                "`concat_where` takes a domain condition and two values: `concat_where(K > 0, a, b)`",
            );
            return None;
        }
        let mut cond_dims = Vec::new();
        let cond = self.domain_cond(args[0], &mut cond_dims);
        let branches = self.branches(args[1], args[2], hint);
        let (cond, (a, b)) = (cond?, branches?);
        let cond_dims = self.promote(args[0], &cond_dims, &[])?;
        let ty = self.choice_type(c, &cond_dims, &a.ty, &b.ty)?;
        let ty = fieldify_keep(&ty, &cond_dims);
        Some(Expr::new(
            ty,
            ExprKind::ConcatWhere {
                cond,
                if_true: Box::new(a),
                if_false: Box::new(b),
            },
        ))
    }

    /// `D op e`, `e op D`, combined with `&` and `|`; normalised to the dimension on the left.
    fn domain_cond(&mut self, e: &syn::Expr, dims: &mut Vec<String>) -> Option<DomainCond> {
        use syn::BinOp as B;
        let syn::Expr::Binary(b) = e else {
            if let syn::Expr::Paren(p) = e {
                return self.domain_cond(&p.expr, dims);
            }
            self.diag.error(
                e,
                "a `concat_where` condition compares a dimension with an integer (`K > 0`), combined with `&` and `|`",
            );
            return None;
        };
        let op = match b.op {
            B::BitAnd(_) | B::BitOr(_) => {
                let l = self.domain_cond(&b.left, dims);
                let r = self.domain_cond(&b.right, dims);
                let (l, r) = (Box::new(l?), Box::new(r?));
                return Some(if matches!(b.op, B::BitAnd(_)) {
                    DomainCond::And(l, r)
                } else {
                    DomainCond::Or(l, r)
                });
            }
            B::And(_) | B::Or(_) => {
                self.diag.error(
                    b.op,
                    "combine domain conditions with `&` and `|`, not `&&` and `||`",
                );
                return None;
            }
            B::Eq(_) => CmpOp::Eq,
            B::Ne(_) => CmpOp::Ne,
            B::Lt(_) => CmpOp::Lt,
            B::Le(_) => CmpOp::Le,
            B::Gt(_) => CmpOp::Gt,
            B::Ge(_) => CmpOp::Ge,
            _ => {
                self.diag.error(
                    b.op,
                    "a domain condition is a comparison: `==`, `!=`, `<`, `<=`, `>`, `>=`",
                );
                return None;
            }
        };
        let dim_of = |e: &syn::Expr| -> Option<String> {
            let p = single_path(e)?;
            match self.env.lookup(p) {
                Some(Def::Dim(d)) => Some(d.name.clone()),
                _ => None,
            }
        };
        let (dim, value, op) = if let Some(d) = dim_of(&b.left) {
            (d, &*b.right, op)
        } else if let Some(d) = dim_of(&b.right) {
            let flipped = match op {
                CmpOp::Lt => CmpOp::Gt,
                CmpOp::Le => CmpOp::Ge,
                CmpOp::Gt => CmpOp::Lt,
                CmpOp::Ge => CmpOp::Le,
                other => other,
            };
            (d, &*b.left, flipped)
        } else {
            self.diag.error(
                e,
                "a `concat_where` condition compares a dimension with an integer: `K > 0`, `Edge >= start`",
            );
            return None;
        };
        let v = self.expr(value, Some(&Type::Scalar(ScalarType::I32)))?;
        if v.ty != Type::Scalar(ScalarType::I32) || !is_index_expr(&v) {
            self.diag.error(
                value,
                format!(
                    "a domain bound is an `i32` scalar built from literals and scalar parameters, but this is `{}`",
                    v.ty
                ),
            );
            return None;
        }
        if !dims.contains(&dim) {
            dims.push(dim.clone());
        }
        Some(DomainCond::Cmp {
            dim,
            op,
            value: Box::new(v),
        })
    }
}

/// Whether `e` only uses literals, parameters, arithmetic and `min`/`max`: what a domain bound
/// may contain.
pub fn is_index_expr(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Param(_) => true,
        ExprKind::Binary { lhs, rhs, .. } => is_index_expr(lhs) && is_index_expr(rhs),
        ExprKind::Unary { arg, .. } => is_index_expr(arg),
        ExprKind::Math {
            fun: MathFun::Min | MathFun::Max,
            args,
        } => args.iter().all(is_index_expr),
        _ => false,
    }
}

/// Scalars become fields over `dims`; fields keep their (already promoted) dims.
fn fieldify_keep(ty: &Type, dims: &[String]) -> Type {
    match ty {
        Type::Tuple(items) => Type::Tuple(items.iter().map(|t| fieldify_keep(t, dims)).collect()),
        Type::Scalar(d) => Type::Field {
            dims: dims.to_vec(),
            dtype: *d,
        },
        field => field.clone(),
    }
}
