//! The expression checker: syn expressions to typed fieldview IR expressions.
//!
//! Each `check_*` function returns `None` after recording an error, so checking goes on and the
//! user sees every independent error at once. Names that failed to check are bound as "poisoned"
//! so their uses do not cascade into follow-up errors.

use quote::ToTokens;

use gt4rs_ir::fieldview::{BinaryOp, Expr, ExprKind, Literal, UnaryOp};
use gt4rs_ir::types::promote_dims;
use gt4rs_ir::{CmpOp, ScalarType, Type};

use crate::definitions::{path_key, Env};
use crate::frontend::diagnostics::Diagnostics;
use crate::frontend::types::{describe, parse_type, DimTable};

/// A `let`-bound name; `ty` is `None` when its value had errors.
struct Binding {
    name: String,
    var: u32,
    ty: Option<Type>,
}

pub struct Checker<'a> {
    pub env: &'a Env,
    pub table: DimTable,
    /// Parameters of the enclosing operator or program: `ExprKind::Param(i)` is `params[i]`.
    pub params: Vec<(String, Type)>,
    scopes: Vec<Binding>,
    next_var: u32,
    pub diag: Diagnostics,
}

/// Whether an expression is an unsuffixed numeric literal (possibly negated or parenthesised):
/// such a literal takes its type from the other operand.
pub fn is_flexible_literal(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.suffix().is_empty(),
            syn::Lit::Float(f) => f.suffix().is_empty(),
            _ => false,
        },
        syn::Expr::Paren(p) => is_flexible_literal(&p.expr),
        syn::Expr::Group(g) => is_flexible_literal(&g.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_flexible_literal(&u.expr),
        _ => false,
    }
}

/// An integer literal, possibly parenthesised or negated.
pub fn int_literal(e: &syn::Expr) -> Option<syn::Result<i64>> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => Some(i.base10_parse::<i64>()),
        syn::Expr::Paren(p) => int_literal(&p.expr),
        syn::Expr::Group(g) => int_literal(&g.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            int_literal(&u.expr).map(|r| r.map(|v| -v))
        }
        _ => None,
    }
}

fn scalar_hint(hint: Option<&Type>) -> Option<ScalarType> {
    hint.and_then(|t| t.dtype())
}

/// Replaces the dtype of a scalar or field type.
pub fn with_dtype(ty: &Type, dtype: ScalarType) -> Type {
    match ty {
        Type::Field { dims, .. } => Type::Field {
            dims: dims.clone(),
            dtype,
        },
        _ => Type::Scalar(dtype),
    }
}

pub fn describe_unsupported(e: &syn::Expr) -> Option<&'static str> {
    Some(match e {
        syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
            "loops are not allowed in an operator: compute on whole fields (a carry along the vertical is a `#[scan_operator]`)"
        }
        syn::Expr::Assign(_) => {
            "assignment is not allowed: operators are pure; bind a new name with `let` instead"
        }
        syn::Expr::Closure(_) => "closures are not part of the fieldview language",
        syn::Expr::Match(_) => {
            "`match` is not part of the fieldview language: use `if`/`else` on a scalar or `select` on a field"
        }
        syn::Expr::Macro(_) => "macros are not allowed inside an operator",
        syn::Expr::Reference(_) => "references are not part of the fieldview language",
        syn::Expr::Range(_) => "ranges are only allowed in a program's `domain![…]`",
        syn::Expr::Array(_) | syn::Expr::Repeat(_) => "arrays are not part of the fieldview language",
        syn::Expr::Struct(_) => "structs are not part of the fieldview language",
        syn::Expr::Async(_) | syn::Expr::Await(_) => "async is not part of the fieldview language",
        syn::Expr::Unsafe(_) => "`unsafe` is not part of the fieldview language",
        syn::Expr::Try(_) | syn::Expr::TryBlock(_) => "`?` is not part of the fieldview language",
        syn::Expr::Let(_) => "`if let` is not part of the fieldview language",
        syn::Expr::Break(_) | syn::Expr::Continue(_) => "`break`/`continue` are not part of the fieldview language",
        syn::Expr::Return(_) => "`return` is only allowed as the last statement of an operator body",
        _ => return None,
    })
}

impl<'a> Checker<'a> {
    pub fn new(env: &'a Env, params: Vec<(String, Type)>) -> Checker<'a> {
        Checker {
            env,
            table: DimTable::new(env),
            params,
            scopes: Vec::new(),
            next_var: 0,
            diag: Diagnostics::default(),
        }
    }

    pub fn parse_type(&mut self, ty: &syn::Type) -> Option<Type> {
        match parse_type(self.env, &self.table, ty) {
            Ok(t) => Some(t),
            Err(e) => {
                self.diag.push(e);
                None
            }
        }
    }

    /// The union of two dimension lists in canonical order, or an error at `at`.
    pub fn promote(
        &mut self,
        at: &dyn ToTokens,
        a: &[String],
        b: &[String],
    ) -> Option<Vec<String>> {
        match promote_dims(a, b, &self.table.infos) {
            Ok(d) => Some(d),
            Err(msg) => {
                self.diag
                    .error(at, format!("these dimensions cannot be combined: {msg}"));
                None
            }
        }
    }

    /// The type of an elementwise result of `dtype` over the dimensions of `a` and `b`.
    fn combine(
        &mut self,
        at: &dyn ToTokens,
        a: &Type,
        b: &Type,
        dtype: ScalarType,
    ) -> Option<Type> {
        match (a, b) {
            (Type::Scalar(_), Type::Scalar(_)) => Some(Type::Scalar(dtype)),
            _ => {
                let dims = self.promote(at, a.dims()?, b.dims()?)?;
                Some(Type::Field { dims, dtype })
            }
        }
    }

    // ----- blocks and statements -------------------------------------------------------------

    /// A block: `let` statements then a final expression (or a final `return e;` when
    /// `allow_return`).
    pub fn block(
        &mut self,
        block: &syn::Block,
        hint: Option<&Type>,
        allow_return: bool,
    ) -> Option<Expr> {
        let mark = self.scopes.len();
        let mut lets: Vec<(u32, Expr)> = Vec::new();
        let mut result: Option<Expr> = None;
        let mut ended = false;
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == n;
            match stmt {
                syn::Stmt::Local(local) => self.let_stmt(local, &mut lets),
                syn::Stmt::Expr(syn::Expr::Return(r), _) if last && allow_return => {
                    ended = true;
                    match &r.expr {
                        Some(e) => result = self.expr(e, hint),
                        None => self.diag.error(r, "an operator must return a value"),
                    }
                }
                syn::Stmt::Expr(e, None) if last => {
                    ended = true;
                    result = self.expr(e, hint);
                }
                syn::Stmt::Expr(e, semi) => {
                    ended |= last;
                    if let Some(msg) = describe_unsupported(e) {
                        self.diag.error(e, msg);
                    } else if let syn::Expr::Binary(b) = e {
                        if is_compound_assign(&b.op) {
                            self.diag.error(
                                e,
                                "compound assignment is not allowed: operators are pure; bind a new name with `let` instead",
                            );
                        } else {
                            self.diag.error(e, "this statement has no effect: an operator body is `let` statements and a final expression");
                        }
                    } else if last && semi.is_some() {
                        self.diag
                            .error(semi, "this `;` discards the operator's result: remove it");
                    } else {
                        self.diag.error(e, "this statement has no effect: an operator body is `let` statements and a final expression");
                    }
                }
                syn::Stmt::Macro(m) => {
                    ended |= last;
                    self.diag
                        .error(&m.mac, "macros are not allowed inside an operator");
                }
                syn::Stmt::Item(item) => {
                    ended |= last;
                    self.diag.error(
                        item,
                        "items (functions, structs, …) cannot be declared inside an operator",
                    );
                }
            }
        }
        if !ended {
            self.diag.error(
                block,
                "this block has no result: end it with an expression (without `;`)",
            );
        }
        self.scopes.truncate(mark);
        let mut body = result?;
        for (var, value) in lets.into_iter().rev() {
            body = Expr::new(
                body.ty.clone(),
                ExprKind::Let {
                    var,
                    value: Box::new(value),
                    body: Box::new(body),
                },
            );
        }
        Some(body)
    }

    fn fresh_var(&mut self) -> u32 {
        let v = self.next_var;
        self.next_var += 1;
        v
    }

    fn let_stmt(&mut self, local: &syn::Local, lets: &mut Vec<(u32, Expr)>) {
        let (pat, ascribed) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            other => (other, None),
        };
        let ascribed_ty = ascribed.and_then(|t| self.parse_type(t));
        let value = match &local.init {
            None => {
                self.diag
                    .error(local, "a `let` needs a value: `let x = …;`");
                None
            }
            Some(init) => {
                if let Some((else_token, _)) = &init.diverge {
                    self.diag.error(
                        else_token,
                        "`let … else` is not part of the fieldview language",
                    );
                }
                let v = self.expr(&init.expr, ascribed_ty.as_ref());
                match (v, &ascribed_ty) {
                    (Some(v), Some(t)) if &v.ty != t => {
                        self.diag.error(
                            &init.expr,
                            format!(
                                "this value has type `{}`, but the `let` declares `{t}`",
                                v.ty
                            ),
                        );
                        None
                    }
                    (v, _) => v,
                }
            }
        };
        self.bind(pat, value, lets);
    }

    fn bind(&mut self, pat: &syn::Pat, value: Option<Expr>, lets: &mut Vec<(u32, Expr)>) {
        match pat {
            syn::Pat::Ident(p) => {
                if p.mutability.is_some() {
                    self.diag.error(
                        p.mutability,
                        "`mut`: values in an operator are immutable (mutation is not allowed)",
                    );
                }
                if p.by_ref.is_some() || p.subpat.is_some() {
                    self.diag.error(p, "unsupported pattern: use a plain name");
                }
                let var = self.fresh_var();
                let ty = value.as_ref().map(|v| v.ty.clone());
                if let Some(v) = value {
                    lets.push((var, v));
                }
                self.scopes.push(Binding {
                    name: p.ident.to_string(),
                    var,
                    ty,
                });
            }
            syn::Pat::Wild(_) => {}
            syn::Pat::Paren(p) => self.bind(&p.pat, value, lets),
            syn::Pat::Tuple(t) => {
                let items = match &value {
                    Some(v) => match &v.ty {
                        Type::Tuple(items) if items.len() == t.elems.len() => Some(items.clone()),
                        other => {
                            self.diag.error(
                                t,
                                format!(
                                    "this pattern unpacks a tuple of {} elements, but the value has type `{other}`",
                                    t.elems.len()
                                ),
                            );
                            None
                        }
                    },
                    None => None,
                };
                match (value, items) {
                    (Some(v), Some(items)) => {
                        let var = self.fresh_var();
                        lets.push((var, v.clone()));
                        for (i, (p, ty)) in t.elems.iter().zip(items).enumerate() {
                            let whole = Expr::new(v.ty.clone(), ExprKind::Var(var));
                            let elem = Expr::new(
                                ty,
                                ExprKind::TupleGet {
                                    arg: Box::new(whole),
                                    index: i as u32,
                                },
                            );
                            self.bind(p, Some(elem), lets);
                        }
                    }
                    _ => {
                        for p in &t.elems {
                            self.bind(p, None, lets);
                        }
                    }
                }
            }
            other => self
                .diag
                .error(other, "unsupported pattern: use a name or a tuple of names"),
        }
    }

    // ----- expressions -----------------------------------------------------------------------

    /// Checks an expression; `hint` is the type the context expects, which only fixes the
    /// type of unsuffixed literals.
    pub fn expr(&mut self, e: &syn::Expr, hint: Option<&Type>) -> Option<Expr> {
        match e {
            syn::Expr::Lit(l) => self.literal(&l.lit, scalar_hint(hint)),
            syn::Expr::Paren(p) => self.expr(&p.expr, hint),
            syn::Expr::Group(g) => self.expr(&g.expr, hint),
            syn::Expr::Path(p) => self.variable(p),
            syn::Expr::Binary(b) => self.binary(b, hint),
            syn::Expr::Unary(u) => self.unary(u, hint),
            syn::Expr::Tuple(t) => self.tuple(t, hint),
            syn::Expr::Field(f) => self.tuple_get(f),
            syn::Expr::Cast(c) => self.cast(c),
            syn::Expr::MethodCall(m) => self.method_call(m, hint),
            syn::Expr::Call(c) => self.call(c, hint),
            syn::Expr::Index(i) => self.local_index(i),
            syn::Expr::If(i) => self.if_else(i, hint),
            syn::Expr::Block(b) if b.label.is_none() => self.block(&b.block, hint, false),
            other => {
                let msg = describe_unsupported(other)
                    .unwrap_or("unsupported syntax: this is not part of the fieldview language");
                self.diag.error(other, msg);
                None
            }
        }
    }

    fn literal(&mut self, lit: &syn::Lit, hint: Option<ScalarType>) -> Option<Expr> {
        let scalar =
            |t: ScalarType, l: Literal| Some(Expr::new(Type::Scalar(t), ExprKind::Literal(l)));
        match lit {
            syn::Lit::Bool(b) => scalar(ScalarType::Bool, Literal::Bool(b.value)),
            syn::Lit::Float(f) => {
                let value: f64 = match f.base10_parse() {
                    Ok(v) => v,
                    Err(e) => {
                        self.diag.push(e);
                        return None;
                    }
                };
                let ty = match f.suffix() {
                    "" => match hint {
                        Some(t) if t.is_float() => t,
                        _ => ScalarType::F64,
                    },
                    "f32" => ScalarType::F32,
                    "f64" => ScalarType::F64,
                    other => {
                        self.diag.error(
                            f,
                            format!("unsupported literal suffix `{other}`: use `f32` or `f64`"),
                        );
                        return None;
                    }
                };
                scalar(ty, Literal::float(value))
            }
            syn::Lit::Int(i) => {
                let suffix = i.suffix();
                if suffix == "f32" || suffix == "f64" {
                    let value: f64 = match i.base10_digits().parse() {
                        Ok(v) => v,
                        Err(_) => {
                            self.diag.error(i, "invalid literal");
                            return None;
                        }
                    };
                    let ty = ScalarType::from_rust_name(suffix).unwrap_or(ScalarType::F64);
                    return scalar(ty, Literal::float(value));
                }
                let value: i64 = match i.base10_parse() {
                    Ok(v) => v,
                    Err(e) => {
                        self.diag.push(e);
                        return None;
                    }
                };
                let ty = match suffix {
                    "" => match hint {
                        Some(t) if t.is_int() => t,
                        Some(t) if t.is_float() => {
                            self.diag.error(
                                i,
                                format!(
                                    "an integer literal cannot be used as `{}`: gt4rs never converts implicitly; write `{}.0`",
                                    t.rust_name(),
                                    i.base10_digits()
                                ),
                            );
                            return None;
                        }
                        _ => ScalarType::I32,
                    },
                    "i32" => ScalarType::I32,
                    "i64" => ScalarType::I64,
                    other => {
                        self.diag.error(
                            i,
                            format!("unsupported literal suffix `{other}`: use `i32`, `i64`, `f32` or `f64`"),
                        );
                        return None;
                    }
                };
                if ty == ScalarType::I32 && i32::try_from(value).is_err() {
                    self.diag.error(
                        i,
                        "this literal does not fit in `i32`: add the suffix `i64`",
                    );
                    return None;
                }
                scalar(ty, Literal::Int(value))
            }
            other => {
                self.diag
                    .error(other, "unsupported literal: use a number or `true`/`false`");
                None
            }
        }
    }

    fn variable(&mut self, p: &syn::ExprPath) -> Option<Expr> {
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            if let Some(b) = self.scopes.iter().rev().find(|b| b.name == name) {
                let ty = b.ty.clone()?;
                return Some(Expr::new(ty, ExprKind::Var(b.var)));
            }
            if let Some(i) = self.params.iter().position(|(n, _)| *n == name) {
                return Some(Expr::new(
                    self.params[i].1.clone(),
                    ExprKind::Param(i as u32),
                ));
            }
        }
        let key = path_key(&p.path);
        match self.env.lookup(&p.path) {
            Some(def) => self
                .diag
                .error(p, format!("`{key}` is {}, not a value", describe(def))),
            None => self.diag.error(p, format!("unknown variable `{key}`")),
        }
        None
    }

    /// Checks two operands; an unsuffixed literal takes the type of the other operand.
    fn pair(
        &mut self,
        a: &syn::Expr,
        b: &syn::Expr,
        hint: Option<&Type>,
    ) -> (Option<Expr>, Option<Expr>) {
        if is_flexible_literal(a) && !is_flexible_literal(b) {
            let eb = self.expr(b, hint);
            let ha = eb.as_ref().map(|x| x.ty.clone());
            let ea = self.expr(a, ha.as_ref().or(hint));
            (ea, eb)
        } else {
            let ea = self.expr(a, hint);
            let hb = ea.as_ref().map(|x| x.ty.clone());
            let eb = self.expr(b, hb.as_ref().or(hint));
            (ea, eb)
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary, hint: Option<&Type>) -> Option<Expr> {
        use syn::BinOp as B;
        enum Class {
            Arith(BinaryOp),
            Bits(BinaryOp),
            Cmp(CmpOp),
        }
        let class = match b.op {
            B::Add(_) => Class::Arith(BinaryOp::Add),
            B::Sub(_) => Class::Arith(BinaryOp::Sub),
            B::Mul(_) => Class::Arith(BinaryOp::Mul),
            B::Div(_) => Class::Arith(BinaryOp::Div),
            B::Rem(_) => Class::Arith(BinaryOp::Rem),
            B::BitAnd(_) => Class::Bits(BinaryOp::BitAnd),
            B::BitOr(_) => Class::Bits(BinaryOp::BitOr),
            B::BitXor(_) => Class::Bits(BinaryOp::BitXor),
            B::Eq(_) => Class::Cmp(CmpOp::Eq),
            B::Ne(_) => Class::Cmp(CmpOp::Ne),
            B::Lt(_) => Class::Cmp(CmpOp::Lt),
            B::Le(_) => Class::Cmp(CmpOp::Le),
            B::Gt(_) => Class::Cmp(CmpOp::Gt),
            B::Ge(_) => Class::Cmp(CmpOp::Ge),
            B::And(_) => {
                self.diag.error(
                    b.op,
                    "`&&` is not supported: conditions are combined elementwise with `&`",
                );
                return None;
            }
            B::Or(_) => {
                self.diag.error(
                    b.op,
                    "`||` is not supported: conditions are combined elementwise with `|`",
                );
                return None;
            }
            op if is_compound_assign(&op) => {
                self.diag.error(
                    b,
                    "compound assignment is not allowed: operators are pure; bind a new name with `let` instead",
                );
                return None;
            }
            _ => {
                self.diag
                    .error(b.op, "unsupported operator in the fieldview language");
                return None;
            }
        };
        let operand_hint = match class {
            Class::Cmp(_) => None,
            _ => hint,
        };
        let (l, r) = self.pair(&b.left, &b.right, operand_hint);
        let (l, r) = (l?, r?);
        let (Some(ld), Some(rd)) = (l.ty.dtype(), r.ty.dtype()) else {
            self.diag.error(
                b,
                format!(
                    "operators apply to fields and scalars, not tuples (`{}` {} `{}`)",
                    l.ty,
                    b.op.to_token_stream(),
                    r.ty
                ),
            );
            return None;
        };
        if ld != rd {
            self.diag.error(
                b,
                format!(
                    "mismatched element types: `{}` {} `{}`; gt4rs never converts implicitly: convert one side with `as {}`",
                    l.ty,
                    b.op.to_token_stream(),
                    r.ty,
                    ld.rust_name()
                ),
            );
            return None;
        }
        let (kind, dtype) = match class {
            Class::Arith(op) => {
                if !ld.is_arithmetic() {
                    self.diag.error(
                        b.op,
                        format!("arithmetic needs numbers, not `{}`", ld.rust_name()),
                    );
                    return None;
                }
                (
                    ExprKind::Binary {
                        op,
                        lhs: Box::new(l.clone()),
                        rhs: Box::new(r.clone()),
                    },
                    ld,
                )
            }
            Class::Bits(op) => {
                if !(ld == ScalarType::Bool || ld.is_int()) {
                    self.diag.error(
                        b.op,
                        format!(
                            "`{}` needs bool or integer operands, not `{}`",
                            b.op.to_token_stream(),
                            ld.rust_name()
                        ),
                    );
                    return None;
                }
                (
                    ExprKind::Binary {
                        op,
                        lhs: Box::new(l.clone()),
                        rhs: Box::new(r.clone()),
                    },
                    ld,
                )
            }
            Class::Cmp(op) => (
                ExprKind::Compare {
                    op,
                    lhs: Box::new(l.clone()),
                    rhs: Box::new(r.clone()),
                },
                ScalarType::Bool,
            ),
        };
        let ty = self.combine(b, &l.ty, &r.ty, dtype)?;
        Some(Expr::new(ty, kind))
    }

    fn unary(&mut self, u: &syn::ExprUnary, hint: Option<&Type>) -> Option<Expr> {
        let op = match u.op {
            syn::UnOp::Neg(_) => UnaryOp::Neg,
            syn::UnOp::Not(_) => UnaryOp::Not,
            _ => {
                self.diag
                    .error(u, "dereferencing is not part of the fieldview language");
                return None;
            }
        };
        let arg = self.expr(&u.expr, hint)?;
        // A negated literal is a literal: backends see `-2.0`, not `-(2.0)`.
        if let (UnaryOp::Neg, ExprKind::Literal(lit)) = (op, &arg.kind) {
            let negated = match *lit {
                Literal::Int(i) => Some(Literal::Int(-i)),
                Literal::Float(bits) => Some(Literal::float(-f64::from_bits(bits))),
                Literal::Bool(_) => None,
            };
            if let Some(l) = negated {
                return Some(Expr::new(arg.ty, ExprKind::Literal(l)));
            }
        }
        let Some(dtype) = arg.ty.dtype() else {
            self.diag.error(
                u,
                format!("`{}` does not apply to a tuple", u.op.to_token_stream()),
            );
            return None;
        };
        let ok = match op {
            UnaryOp::Neg => dtype.is_arithmetic(),
            UnaryOp::Not => dtype == ScalarType::Bool || dtype.is_int(),
        };
        if !ok {
            self.diag.error(
                u,
                format!(
                    "`{}` does not apply to `{}`",
                    u.op.to_token_stream(),
                    dtype.rust_name()
                ),
            );
            return None;
        }
        Some(Expr::new(
            arg.ty.clone(),
            ExprKind::Unary {
                op,
                arg: Box::new(arg),
            },
        ))
    }

    fn tuple(&mut self, t: &syn::ExprTuple, hint: Option<&Type>) -> Option<Expr> {
        if t.elems.is_empty() {
            self.diag.error(
                t,
                "the unit value `()` is not part of the fieldview language",
            );
            return None;
        }
        let hints: Vec<Option<&Type>> = match hint {
            Some(Type::Tuple(items)) if items.len() == t.elems.len() => {
                items.iter().map(Some).collect()
            }
            _ => vec![None; t.elems.len()],
        };
        let items: Vec<Option<Expr>> = t
            .elems
            .iter()
            .zip(hints)
            .map(|(e, h)| self.expr(e, h))
            .collect();
        let items: Vec<Expr> = items.into_iter().collect::<Option<_>>()?;
        let ty = Type::Tuple(items.iter().map(|e| e.ty.clone()).collect());
        Some(Expr::new(ty, ExprKind::Tuple(items)))
    }

    fn tuple_get(&mut self, f: &syn::ExprField) -> Option<Expr> {
        let syn::Member::Unnamed(index) = &f.member else {
            self.diag.error(
                &f.member,
                "named fields are not part of the fieldview language: index tuples with `.0`, `.1`, …",
            );
            return None;
        };
        let base = self.expr(&f.base, None)?;
        let Type::Tuple(items) = &base.ty else {
            self.diag.error(
                f,
                format!(
                    "`.{}` indexes a tuple, but this has type `{}`",
                    index.index, base.ty
                ),
            );
            return None;
        };
        let Some(ty) = items.get(index.index as usize).cloned() else {
            self.diag.error(
                index,
                format!(
                    "index {} is out of range for a tuple of {} elements",
                    index.index,
                    items.len()
                ),
            );
            return None;
        };
        Some(Expr::new(
            ty,
            ExprKind::TupleGet {
                arg: Box::new(base),
                index: index.index,
            },
        ))
    }

    fn cast(&mut self, c: &syn::ExprCast) -> Option<Expr> {
        let to = match crate::frontend::types::scalar_of(self.env, &c.ty) {
            Ok(Some(to)) => to,
            Ok(None) => {
                self.diag.error(
                    &c.ty,
                    "casts convert to a scalar type: `f32`, `f64`, `i32`, `i64`, `bool` or a `scalar_types!` alias",
                );
                return None;
            }
            Err(e) => {
                self.diag.push(e);
                return None;
            }
        };
        let arg = self.expr(&c.expr, None)?;
        if arg.ty.dtype().is_none() {
            self.diag
                .error(c, "a tuple cannot be cast: cast its elements");
            return None;
        }
        Some(Expr::new(
            with_dtype(&arg.ty, to),
            ExprKind::Cast {
                arg: Box::new(arg),
                to,
            },
        ))
    }

    fn else_branch(&mut self, i: &syn::ExprIf, hint: Option<&Type>) -> Option<Expr> {
        match &i.else_branch {
            None => {
                self.diag.error(
                    i,
                    "an `if` in an operator is an expression and needs an `else` branch",
                );
                None
            }
            Some((_, e)) => match &**e {
                syn::Expr::If(nested) => self.if_else(nested, hint),
                syn::Expr::Block(b) => self.block(&b.block, hint, false),
                other => self.expr(other, hint),
            },
        }
    }

    fn if_else(&mut self, i: &syn::ExprIf, hint: Option<&Type>) -> Option<Expr> {
        let cond = self.expr(&i.cond, Some(&Type::Scalar(ScalarType::Bool)));
        if let Some(c) = &cond {
            if c.ty != Type::Scalar(ScalarType::Bool) {
                self.diag.error(
                    &i.cond,
                    format!(
                        "an `if` condition must be a scalar `bool`, but this is `{}`; choose elementwise with `select(mask, a, b)`",
                        c.ty
                    ),
                );
            }
        }
        // `if c { 0.0 } else { x }`: the literal branch takes its type from the other one.
        let then_is_literal = block_is_flexible_literal(&i.then_branch);
        let else_is_literal = match &i.else_branch {
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => block_is_flexible_literal(&b.block),
                _ => false,
            },
            None => false,
        };
        let (then, otherwise) = if then_is_literal && !else_is_literal {
            let otherwise = self.else_branch(i, hint);
            let then_hint = otherwise.as_ref().map(|t| t.ty.clone());
            let then = self.block(&i.then_branch, then_hint.as_ref().or(hint), false);
            (then, otherwise)
        } else {
            let then = self.block(&i.then_branch, hint, false);
            let else_hint = then.as_ref().map(|t| t.ty.clone());
            let otherwise = self.else_branch(i, else_hint.as_ref().or(hint));
            (then, otherwise)
        };
        let (cond, then, otherwise) = (cond?, then?, otherwise?);
        if cond.ty != Type::Scalar(ScalarType::Bool) {
            return None;
        }
        if then.ty != otherwise.ty {
            self.diag.error(
                i,
                format!(
                    "the branches of this `if` have different types: `{}` and `{}`",
                    then.ty, otherwise.ty
                ),
            );
            return None;
        }
        Some(Expr::new(
            then.ty.clone(),
            ExprKind::IfElse {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
        ))
    }
}

fn block_is_flexible_literal(block: &syn::Block) -> bool {
    matches!(block.stmts.as_slice(), [syn::Stmt::Expr(e, None)] if is_flexible_literal(e))
}

pub fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}
