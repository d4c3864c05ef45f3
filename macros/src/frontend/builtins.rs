//! Shifts, local indices, math methods, builtin functions and operator calls.

use quote::ToTokens;

use gt4rs_ir::fieldview::{DomainCond, Expr, ExprKind, MathFun, OperatorKind, ReduceOp, UnaryOp};
use gt4rs_ir::{CmpOp, DimKind, OffsetInfo, ScalarType, Type};

use crate::collect::{path_key, Def};
use crate::frontend::expr::{int_literal, is_flexible_literal, Checker};
use crate::frontend::types::{describe, resolve_dim, resolve_offset};

fn math_fun(name: &str) -> Option<MathFun> {
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

fn single_path(e: &syn::Expr) -> Option<&syn::Path> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => Some(&p.path),
        syn::Expr::Paren(p) => single_path(&p.expr),
        syn::Expr::Group(g) => single_path(&g.expr),
        _ => None,
    }
}

fn reduce_op(name: &str) -> Option<ReduceOp> {
    Some(match name {
        "neighbor_sum" => ReduceOp::Sum,
        "max_over" => ReduceOp::Max,
        "min_over" => ReduceOp::Min,
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
    fn math(
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

    // ----- shifts ----------------------------------------------------------------------------

    fn shift(&mut self, recv: Expr, arg: &syn::Expr) -> Option<Expr> {
        match arg {
            syn::Expr::Tuple(t) => {
                let mut cur = Some(recv);
                for e in &t.elems {
                    cur = self.shift_one(cur?, e);
                }
                cur
            }
            syn::Expr::Paren(p) => self.shift(recv, &p.expr),
            other => self.shift_one(recv, other),
        }
    }

    fn shift_one(&mut self, recv: Expr, arg: &syn::Expr) -> Option<Expr> {
        let Type::Field { dims, dtype } = &recv.ty else {
            self.diag.error(
                arg,
                format!("only fields can be shifted, but this is `{}`", recv.ty),
            );
            return None;
        };
        let (dims, dtype) = (dims.clone(), *dtype);
        if let Some(path) = single_path(arg) {
            if let Some(Def::Dim(d)) = self.env.lookup(path) {
                self.diag.error(
                    arg,
                    format!(
                        "`{}` is a dimension: a Cartesian shift needs a distance, e.g. `{} + 1`",
                        d.name, d.name
                    ),
                );
                return None;
            }
            let o = self.offset(path)?;
            return self.neighbor_shift(recv, &dims, dtype, &o, None, arg);
        }
        match arg {
            syn::Expr::Index(ix) => {
                let Some(path) = single_path(&ix.expr) else {
                    self.diag.error(arg, "expected a neighbour slot `O[n]`");
                    return None;
                };
                let o = self.offset(path)?;
                let slot = self.slot(&ix.index, &o)?;
                self.neighbor_shift(recv, &dims, dtype, &o, Some(slot), arg)
            }
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_)) => {
                let Some(path) = single_path(&b.left) else {
                    self.diag.error(&b.left, "expected a dimension: `D + n`");
                    return None;
                };
                let d = match resolve_dim(self.env, path) {
                    Ok(d) => d,
                    Err(e) => {
                        self.diag.push(e);
                        return None;
                    }
                };
                if d.kind == DimKind::Local {
                    self.diag.error(
                        path,
                        format!(
                            "`{}` is a neighbour offset: shift with `.at({})` or `.at({}[n])`",
                            d.name, d.name, d.name
                        ),
                    );
                    return None;
                }
                if !dims.contains(&d.name) {
                    self.diag.error(
                        path,
                        format!("cannot shift along `{}`: the field has no such dimension (its type is `{}`)", d.name, recv.ty),
                    );
                    return None;
                }
                let negative = matches!(b.op, syn::BinOp::Sub(_));
                if let Some(n) = int_literal(&b.right) {
                    let n = match n {
                        Ok(n) => n,
                        Err(e) => {
                            self.diag.push(e);
                            return None;
                        }
                    };
                    let offset = if negative { -n } else { n };
                    return Some(Expr::new(
                        recv.ty.clone(),
                        ExprKind::CartesianShift {
                            arg: Box::new(recv),
                            dim: d.name,
                            offset,
                        },
                    ));
                }
                let off = self.expr(&b.right, Some(&Type::Scalar(ScalarType::I32)))?;
                if !off.ty.dtype().is_some_and(|t| t.is_int()) {
                    self.diag.error(
                        &b.right,
                        format!(
                            "a shift distance is an integer field or scalar, but this is `{}`",
                            off.ty
                        ),
                    );
                    return None;
                }
                let out_dims = self.promote(&b.right, &dims, off.ty.dims()?)?;
                let off = if negative {
                    Expr::new(
                        off.ty.clone(),
                        ExprKind::Unary {
                            op: UnaryOp::Neg,
                            arg: Box::new(off),
                        },
                    )
                } else {
                    off
                };
                Some(Expr::new(
                    Type::Field {
                        dims: out_dims,
                        dtype,
                    },
                    ExprKind::DynamicShift {
                        arg: Box::new(recv),
                        dim: d.name,
                        offset: Box::new(off),
                    },
                ))
            }
            other => {
                self.diag.error(
                    other,
                    "expected a shift: `O` (all neighbours), `O[n]` (one neighbour), `D + n`, `D - n` or a tuple of these",
                );
                None
            }
        }
    }

    fn offset(&mut self, path: &syn::Path) -> Option<OffsetInfo> {
        match resolve_offset(self.env, path) {
            Ok(o) => Some(o),
            Err(e) => {
                self.diag.push(e);
                None
            }
        }
    }

    /// A neighbour slot: an integer literal below the offset's count.
    fn slot(&mut self, e: &syn::Expr, o: &OffsetInfo) -> Option<u32> {
        match int_literal(e) {
            Some(Ok(n)) if n >= 0 && n < o.count as i64 => Some(n as u32),
            Some(Ok(n)) => {
                self.diag.error(
                    e,
                    format!(
                        "neighbour slot {n} is out of range: `{}` has {} neighbours (slots 0..{})",
                        o.name, o.count, o.count
                    ),
                );
                None
            }
            Some(Err(err)) => {
                self.diag.push(err);
                None
            }
            None => {
                self.diag.error(e, "a neighbour slot is an integer literal");
                None
            }
        }
    }

    fn neighbor_shift(
        &mut self,
        recv: Expr,
        dims: &[String],
        dtype: ScalarType,
        o: &OffsetInfo,
        slot: Option<u32>,
        at: &syn::Expr,
    ) -> Option<Expr> {
        if !dims.contains(&o.to) {
            self.diag.error(
                at,
                format!(
                    "cannot shift by `{}` ({} => {}): the field has no dimension `{}` (its type is `{}`)",
                    o.name, o.from, o.to, o.to, recv.ty
                ),
            );
            return None;
        }
        if slot.is_none() {
            if let Some(local) = dims.iter().find(|d| self.table.is_local(d)) {
                self.diag.error(
                    at,
                    format!(
                        "cannot take all neighbours of a field that already has the local dimension `{local}`"
                    ),
                );
                return None;
            }
        }
        let mut out: Vec<String> = dims
            .iter()
            .map(|d| {
                if *d == o.to {
                    o.from.clone()
                } else {
                    d.clone()
                }
            })
            .collect();
        if slot.is_none() {
            out.push(o.name.clone());
        }
        let out = self.table.order(&out);
        Some(Expr::new(
            Type::Field { dims: out, dtype },
            ExprKind::NeighborShift {
                arg: Box::new(recv),
                offset: o.name.clone(),
                slot,
            },
        ))
    }

    /// `x[O(n)]`
    pub fn local_index(&mut self, i: &syn::ExprIndex) -> Option<Expr> {
        let arg = self.expr(&i.expr, None);
        let syn::Expr::Call(c) = &*i.index else {
            self.diag.error(
                &i.index,
                "indexing picks one neighbour: `x[O(n)]` with `O` a neighbour offset (index tuples with `.0`)",
            );
            return None;
        };
        let (Some(path), 1) = (single_path(&c.func), c.args.len()) else {
            self.diag
                .error(&i.index, "expected a neighbour slot `O(n)`");
            return None;
        };
        let o = self.offset(path)?;
        let slot = self.slot(&c.args[0], &o)?;
        let arg = arg?;
        let Type::Field { dims, dtype } = &arg.ty else {
            self.diag.error(
                &i.expr,
                format!(
                    "only fields with a local dimension can be indexed, but this is `{}`",
                    arg.ty
                ),
            );
            return None;
        };
        if !dims.contains(&o.name) {
            self.diag.error(
                &i.expr,
                format!(
                    "this field has no local dimension `{}` (its type is `{}`)",
                    o.name, arg.ty
                ),
            );
            return None;
        }
        let ty = Type::Field {
            dims: dims.iter().filter(|d| **d != o.name).cloned().collect(),
            dtype: *dtype,
        };
        Some(Expr::new(
            ty,
            ExprKind::LocalIndex {
                arg: Box::new(arg),
                local: o.name,
                slot,
            },
        ))
    }

    // ----- calls -----------------------------------------------------------------------------

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

    fn reduce(
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

    fn select(
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

    fn broadcast(
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

    fn concat_where(
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
