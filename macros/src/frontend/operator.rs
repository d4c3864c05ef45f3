//! `#[field_operator]` and `#[scan_operator]`: signature, scan attribute and body.

use proc_macro2::TokenStream;
use syn::punctuated::Punctuated;
use syn::{FnArg, ItemFn, Pat, ReturnType, Token};

use gt4rs_ir::fieldview::{Operator, OperatorKind, Param};
use gt4rs_ir::{DimKind, Type};

use crate::definitions::{path_key, Env, ItemKind};
use crate::frontend::expr::Checker;
use crate::frontend::types::resolve_dim;

/// Rejects what a fieldview function signature cannot have (generics, `async`, …).
pub fn check_plain_signature(func: &ItemFn, checker: &mut Checker) {
    let sig = &func.sig;
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        checker
            .diag
            .error(&sig.generics, "generic parameters are not supported here");
    }
    if let Some(t) = &sig.asyncness {
        checker.diag.error(t, "`async` is not supported here");
    }
    if let Some(t) = &sig.unsafety {
        checker.diag.error(t, "`unsafe` is not supported here");
    }
    if let Some(t) = &sig.constness {
        checker.diag.error(t, "`const` is not supported here");
    }
    if let Some(v) = &sig.variadic {
        checker
            .diag
            .error(v, "variadic parameters are not supported");
    }
}

/// The name bound by a parameter pattern (a plain identifier).
pub fn param_name(pat: &Pat, checker: &mut Checker) -> Option<String> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            if let Some(m) = &p.mutability {
                checker.diag.error(
                    m,
                    "`mut`: parameters are immutable (mutation is not allowed)",
                );
            }
            Some(p.ident.to_string())
        }
        other => {
            checker.diag.error(
                other,
                "a parameter is a plain name: `u: Field<(Edge, K), f64>`",
            );
            None
        }
    }
}

pub fn check(
    kind: ItemKind,
    attr: &TokenStream,
    func: &ItemFn,
    env: &Env,
    key: &str,
) -> syn::Result<Operator> {
    let mut checker = Checker::new(env, Vec::new());
    check_plain_signature(func, &mut checker);
    if kind == ItemKind::FieldOperator && !attr.is_empty() {
        checker
            .diag
            .error(attr, "`#[field_operator]` takes no arguments");
    }
    let mut params: Vec<(String, Option<Type>, &syn::Type)> = Vec::new();
    for input in &func.sig.inputs {
        match input {
            FnArg::Receiver(r) => checker
                .diag
                .error(r, "an operator is a free function: it cannot take `self`"),
            FnArg::Typed(pt) => {
                let name = param_name(&pt.pat, &mut checker);
                if let syn::Type::Reference(r) = &*pt.ty {
                    checker.diag.error(
                        r.and_token,
                        "operator parameters are values: write `Field<…>` without `&`",
                    );
                    continue;
                }
                let ty = checker.parse_type(&pt.ty);
                if let Some(name) = name {
                    params.push((name, ty, &pt.ty));
                }
            }
        }
    }
    let ret = match &func.sig.output {
        ReturnType::Default => {
            checker.diag.error(
                &func.sig,
                "an operator must declare its return type: `-> Field<(Edge, K), f64>`",
            );
            None
        }
        ReturnType::Type(_, ty) => checker.parse_type(ty),
    };
    let op_kind = match kind {
        ItemKind::ScanOperator => scan_kind(attr, func, &params, ret.as_ref(), env, &mut checker),
        _ => Some(OperatorKind::Field),
    };
    // Parameters with broken types still bind their names, so the body reports its own errors
    // only; their uses are silently poisoned.
    checker.params = params
        .iter()
        .map(|(n, t, _)| (n.clone(), t.clone().unwrap_or(Type::Tuple(Vec::new()))))
        .collect();
    let poisoned: Vec<String> = params
        .iter()
        .filter(|(_, t, _)| t.is_none())
        .map(|(n, _, _)| n.clone())
        .collect();
    let body = if poisoned.is_empty() {
        checker.block(&func.block, ret.as_ref(), true)
    } else {
        // Checking the body against unknown parameter types would only produce follow-up noise.
        None
    };
    if let (Some(body), Some(ret), ReturnType::Type(_, ret_ty)) = (&body, &ret, &func.sig.output) {
        if &body.ty != ret {
            let at = last_expression(&func.block).map(|e| quote::quote!(#e));
            checker.diag.error(
                at.unwrap_or_else(|| quote::quote!(#ret_ty)),
                format!(
                    "the body returns `{}`, but the signature declares `{ret}`",
                    body.ty
                ),
            );
        }
    }
    let diag = std::mem::take(&mut checker.diag);
    diag.finish()?;
    let (Some(body), Some(ret), Some(kind)) = (body, ret, op_kind) else {
        return Err(syn::Error::new_spanned(
            &func.sig.ident,
            "gt4rs: this operator could not be checked",
        ));
    };
    Ok(Operator {
        key: key.to_string(),
        name: func.sig.ident.to_string(),
        params: params
            .into_iter()
            .filter_map(|(name, ty, _)| Some(Param { name, ty: ty? }))
            .collect(),
        ret,
        body,
        kind,
    })
}

/// The final expression of a block (for pointing at what is returned).
fn last_expression(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.last()? {
        syn::Stmt::Expr(syn::Expr::Return(r), _) => r.expr.as_deref(),
        syn::Stmt::Expr(e, None) => Some(e),
        _ => None,
    }
}

fn is_scalar_code_type(ty: &Type) -> bool {
    match ty {
        Type::Scalar(_) => true,
        Type::Tuple(items) => !items.is_empty() && items.iter().all(is_scalar_code_type),
        Type::Field { .. } => false,
    }
}

/// `axis = K, forward = true, init = (0.0, 0.0)` and the carry rules.
fn scan_kind(
    attr: &TokenStream,
    func: &ItemFn,
    params: &[(String, Option<Type>, &syn::Type)],
    ret: Option<&Type>,
    env: &Env,
    checker: &mut Checker,
) -> Option<OperatorKind> {
    let metas = match syn::parse::Parser::parse2(
        Punctuated::<syn::MetaNameValue, Token![,]>::parse_terminated,
        attr.clone(),
    ) {
        Ok(m) => m,
        Err(e) => {
            checker.diag.push(syn::Error::new(
                e.span(),
                format!("{e}: expected `#[scan_operator(axis = K, forward = true, init = 0.0)]`"),
            ));
            return None;
        }
    };
    let mut axis = None;
    let mut forward = true;
    let mut init_expr = None;
    for m in &metas {
        let key = path_key(&m.path);
        match key.as_str() {
            "axis" => match &m.value {
                syn::Expr::Path(p) => match resolve_dim(env, &p.path) {
                    Ok(d) if d.kind == DimKind::Vertical => axis = Some(d.name),
                    Ok(d) => checker.diag.error(
                        &m.value,
                        format!(
                            "a scan runs along a vertical dimension, but `{}` is {}",
                            d.name,
                            match d.kind {
                                DimKind::Horizontal => "horizontal",
                                DimKind::Local => "local",
                                DimKind::Vertical => "vertical",
                            }
                        ),
                    ),
                    Err(e) => checker.diag.push(e),
                },
                other => checker
                    .diag
                    .error(other, "`axis` names a vertical dimension: `axis = K`"),
            },
            "forward" => match &m.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Bool(b),
                    ..
                }) => forward = b.value,
                other => checker
                    .diag
                    .error(other, "`forward` is `true` (upwards in K) or `false`"),
            },
            "init" => init_expr = Some(&m.value),
            _ => checker.diag.error(
                &m.path,
                format!("unknown scan option `{key}`: expected `axis`, `forward` or `init`"),
            ),
        }
    }
    if axis.is_none() && !metas.iter().any(|m| m.path.is_ident("axis")) {
        checker.diag.error(
            attr_or_ident(attr, func),
            "a scan needs its axis: `#[scan_operator(axis = K, forward = true, init = 0.0)]`",
        );
    }
    let carry = match params.first() {
        None => {
            checker.diag.error(
                &func.sig,
                "a scan's first parameter is its carry: `fn f(state: f64, …) -> f64`",
            );
            None
        }
        Some((name, ty, syn_ty)) => {
            if let (Some(ty), Some(ret)) = (ty, ret) {
                if !is_scalar_code_type(ty) {
                    checker.diag.error(
                        syn_ty,
                        format!(
                            "the carry `{name}` of a scan is a scalar or a tuple of scalars, not `{ty}`"
                        ),
                    );
                } else if ty != ret {
                    checker.diag.error(
                        syn_ty,
                        format!(
                            "the carry `{name}` has type `{ty}`, but the scan returns `{ret}`: they must be equal"
                        ),
                    );
                }
            }
            ty.clone()
        }
    };
    for (name, ty, syn_ty) in params.iter().skip(1) {
        if let Some(ty) = ty {
            if !matches!(ty, Type::Scalar(_)) {
                checker.diag.error(
                    syn_ty,
                    format!(
                        "a scan's parameters after the carry are scalars (one level at a time), but `{name}` is `{ty}`"
                    ),
                );
            }
        }
    }
    let init = match (init_expr, &carry) {
        (None, _) => {
            checker.diag.error(
                attr_or_ident(attr, func),
                "a scan needs the carry's initial value: `init = 0.0`",
            );
            None
        }
        (Some(e), carry) => {
            let mut init_checker = Checker::new(env, Vec::new());
            let init = init_checker.expr(e, carry.as_ref());
            let diag = std::mem::take(&mut init_checker.diag);
            if let Err(err) = diag.finish() {
                checker.diag.push(err);
            }
            match (init, carry) {
                (Some(init), Some(carry)) if &init.ty != carry => {
                    checker.diag.error(
                        e,
                        format!(
                            "the initial value has type `{}`, but the carry is `{carry}`",
                            init.ty
                        ),
                    );
                    None
                }
                (init, _) => init,
            }
        }
    };
    Some(OperatorKind::Scan {
        axis: axis?,
        forward,
        init: init?,
    })
}

fn attr_or_ident(attr: &TokenStream, func: &ItemFn) -> TokenStream {
    if attr.is_empty() {
        let ident = &func.sig.ident;
        quote::quote!(#ident)
    } else {
        attr.clone()
    }
}
