//! `#[program]`: parameters with roles, `value.write_to(target, domain![…])` statements.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use syn::{FnArg, ItemFn};

use gt4rs_ir::fieldview::{
    Bundle, DomainRange, Expr, ExprKind, Program, ProgramCall, ProgramParam, Role, Target,
};
use gt4rs_ir::{DimKind, ScalarType, Type};

use crate::definitions::Env;
use crate::frontend::builtins::is_index_expr;
use crate::frontend::expr::{stray_semicolon, Checker};
use crate::frontend::names::DomainEntry;
use crate::frontend::operator::{check_plain_signature, param_name};
use crate::frontend::types::resolve_dim;

/// How a parameter was declared.
#[derive(Clone, Copy, PartialEq)]
enum Passing {
    Value,
    Shared,
    Mutable,
}

struct Declared {
    passing: Passing,
    is_static: bool,
}

pub fn check(attr: &TokenStream, func: &ItemFn, env: &Env) -> syn::Result<Program> {
    let mut checker = Checker::new(env, Vec::new());
    checker.diag.fallback = Some(func.sig.ident.span());
    check_plain_signature(func, &mut checker);
    if !attr.is_empty() {
        checker.diag.error(attr, "`#[program]` takes no arguments");
    }
    if let syn::ReturnType::Type(arrow, _) = &func.sig.output {
        checker.diag.error(
            arrow,
            "a program returns nothing: it writes its results with `.write_to(out, domain![…])`",
        );
    }
    let mut declared: Vec<Declared> = Vec::new();
    let mut params: Vec<(String, Type)> = Vec::new();
    let mut broken = false;
    for input in &func.sig.inputs {
        let FnArg::Typed(pt) = input else {
            checker
                .diag
                .error(input, "a program is a free function: it cannot take `self`");
            continue;
        };
        let mut is_static = false;
        for a in &pt.attrs {
            if a.path().is_ident("static_arg") {
                is_static = true;
            } else if !a.path().is_ident("doc") {
                checker.diag.error(
                    a,
                    "unknown parameter attribute: only `#[static_arg]` is allowed",
                );
            }
        }
        let name = param_name(&pt.pat, &mut checker);
        let (passing, inner) = match &*pt.ty {
            syn::Type::Reference(r) if r.mutability.is_some() => (Passing::Mutable, &*r.elem),
            syn::Type::Reference(r) => (Passing::Shared, &*r.elem),
            other => (Passing::Value, other),
        };
        let ty = checker.parse_type(inner);
        match (&ty, passing) {
            (Some(Type::Field { .. }), Passing::Value) => checker.diag.error(
                &pt.ty,
                "take fields by reference: `&Field<…>` (input) or `&mut Field<…>` (output)",
            ),
            (Some(Type::Scalar(_)), Passing::Shared | Passing::Mutable) => checker
                .diag
                .error(&pt.ty, "scalars are passed by value: drop the `&`"),
            (Some(Type::Tuple(_)), _) => checker.diag.error(
                &pt.ty,
                "program parameters are fields (`&Field<…>`, `&mut Field<…>`) or scalars",
            ),
            _ => {}
        }
        if is_static && !matches!(ty, Some(Type::Scalar(_))) {
            let at = pt
                .attrs
                .iter()
                .find(|a| a.path().is_ident("static_arg"))
                .map(|a| quote::quote!(#a))
                .unwrap_or_else(|| quote::quote!(#pt));
            checker.diag.error(
                at,
                "`#[static_arg]` applies to scalar parameters only (a value `compile()` specialises on)",
            );
        }
        broken |= ty.is_none();
        if let Some(name) = name {
            params.push((name, ty.unwrap_or(Type::Tuple(Vec::new()))));
            declared.push(Declared { passing, is_static });
        }
    }
    checker.params = params.clone();
    let mut calls: Vec<ProgramCall> = Vec::new();
    let bundle = program_bundle(env, &checker);
    if !broken {
        for stmt in &func.block.stmts {
            if let Some(call) = statement(&mut checker, &declared, stmt) {
                calls.push(call);
            }
        }
    }
    let diag = std::mem::take(&mut checker.diag);
    diag.finish()?;
    let mut written = HashSet::new();
    let mut read = HashSet::new();
    for c in &calls {
        collect_targets(&c.target, &mut written);
        c.value.walk(&mut |e| {
            if let ExprKind::Param(p) = e.kind {
                read.insert(p);
            }
        });
    }
    let params = params
        .into_iter()
        .zip(&declared)
        .enumerate()
        .map(|(i, ((name, ty), d))| {
            let i = i as u32;
            let role = match d.passing {
                Passing::Mutable if written.contains(&i) && read.contains(&i) => Role::InOut,
                Passing::Mutable if read.contains(&i) => Role::InOut,
                Passing::Mutable => Role::Out,
                _ => Role::In,
            };
            ProgramParam {
                name,
                ty,
                role,
                is_static: d.is_static,
            }
        })
        .collect();
    Ok(Program {
        name: func.sig.ident.to_string(),
        params,
        calls,
        bundle,
    })
}

/// Everything collected (offsets are there as local dimensions too), plus the dimensions known
/// only as an offset's source or target.
fn program_bundle(env: &Env, checker: &Checker) -> Bundle {
    let mut bundle = env.bundle.clone();
    for d in &checker.table.infos {
        if bundle.dim(&d.name).is_none() {
            bundle.dims.push(d.clone());
        }
    }
    bundle
}

fn target_params(t: &Target, out: &mut Vec<u32>) {
    match t {
        Target::Field { param, .. } => out.push(*param),
        Target::Tuple(items) => items.iter().for_each(|t| target_params(t, out)),
    }
}

fn collect_targets(t: &Target, out: &mut HashSet<u32>) {
    match t {
        Target::Field { param, .. } => {
            out.insert(*param);
        }
        Target::Tuple(items) => items.iter().for_each(|t| collect_targets(t, out)),
    }
}

/// One statement: the call it makes.
fn statement(
    checker: &mut Checker,
    declared: &[Declared],
    stmt: &syn::Stmt,
) -> Option<ProgramCall> {
    if let Some(semi) = stray_semicolon(stmt) {
        checker
            .diag
            .error(semi, "this `;` ends no statement: remove it");
        return None;
    }
    let e = match stmt {
        syn::Stmt::Expr(e, _) => e,
        syn::Stmt::Local(l) => {
            checker.diag.error(
                l,
                "`let` is not allowed in a program: write each result with `.write_to(out, domain![…])`",
            );
            return None;
        }
        syn::Stmt::Macro(m) => {
            checker
                .diag
                .error(&m.mac, "macros are not allowed in a program body");
            return None;
        }
        syn::Stmt::Item(i) => {
            checker
                .diag
                .error(i, "items cannot be declared inside a program");
            return None;
        }
    };
    let syn::Expr::MethodCall(m) = e else {
        let msg = if matches!(e, syn::Expr::Call(_)) {
            "the result of this call is not written anywhere: add `.write_to(out, domain![…])`"
        } else {
            "a program body is a sequence of `value.write_to(out, domain![…]);` statements"
        };
        checker.diag.error(e, msg);
        return None;
    };
    if m.method != "write_to" {
        checker.diag.error(
            e,
            "the result of this expression is not written anywhere: add `.write_to(out, domain![…])`",
        );
        return None;
    }
    if m.args.is_empty() || m.args.len() > 2 {
        checker.diag.error(
            m,
            "`write_to` takes an output and optionally a domain: `.write_to(out, domain![Edge: a..b, K: c..d])`",
        );
        return None;
    }
    let target = target(checker, declared, &m.args[0]);
    let domain = m.args.get(1);
    let target_ty = target.as_ref().map(|(_, ty)| ty.clone());
    let value = checker.expr(&m.receiver, target_ty.as_ref());
    let (mut target, target_ty) = target?;
    let mut params = Vec::new();
    target_params(&target, &mut params);
    if let Some(dup) = params
        .iter()
        .enumerate()
        .find(|(i, p)| params[..*i].contains(p))
    {
        let name = &checker.params[*dup.1 as usize].0;
        checker.diag.error(
            &m.args[0],
            format!("`{name}` appears twice in this output: each field is written once per call"),
        );
        return None;
    }
    if let Some(d) = domain {
        apply_domain(checker, &mut target, &target_ty, d)?;
    }
    let value = value?;
    if value.ty != target_ty {
        checker.diag.error(
            &m.receiver,
            format!(
                "this value has type `{}`, but the output has type `{target_ty}`",
                value.ty
            ),
        );
        return None;
    }
    Some(ProgramCall { value, target })
}

/// A `&mut` field parameter or a tuple of targets.
fn target(checker: &mut Checker, declared: &[Declared], e: &syn::Expr) -> Option<(Target, Type)> {
    match e {
        syn::Expr::Paren(p) => target(checker, declared, &p.expr),
        syn::Expr::Tuple(t) if !t.elems.is_empty() => {
            let items: Vec<Option<(Target, Type)>> = t
                .elems
                .iter()
                .map(|x| target(checker, declared, x))
                .collect();
            let items: Vec<(Target, Type)> = items.into_iter().collect::<Option<_>>()?;
            let (targets, types) = items.into_iter().unzip();
            Some((Target::Tuple(targets), Type::Tuple(types)))
        }
        syn::Expr::Path(p) if p.path.get_ident().is_some() => {
            let name = p.path.get_ident()?.to_string();
            let Some(index) = checker.params.iter().position(|(n, _)| *n == name) else {
                checker.diag.error(p, format!("unknown output `{name}`"));
                return None;
            };
            let ty = checker.params[index].1.clone();
            if !ty.is_field() {
                checker.diag.error(
                    p,
                    format!("`{name}` is a scalar (`{ty}`): only `&mut Field<…>` parameters can be written"),
                );
                return None;
            }
            if declared[index].passing != Passing::Mutable {
                checker.diag.error(
                    p,
                    format!("cannot write to `{name}`: it is an input (`&Field`); declare it `&mut Field<…>`"),
                );
                return None;
            }
            Some((
                Target::Field {
                    param: index as u32,
                    domain: Vec::new(),
                },
                ty,
            ))
        }
        other => {
            checker.diag.error(
                other,
                "an output is a `&mut Field<…>` parameter or a tuple of them",
            );
            None
        }
    }
}

/// Sets the domains of `target`: one `domain![…]` (for every element of a tuple target) or a
/// tuple of domains mirroring the tuple target.
fn apply_domain(
    checker: &mut Checker,
    target: &mut Target,
    ty: &Type,
    d: &syn::Expr,
) -> Option<()> {
    match (target, ty, d) {
        (t, ty, syn::Expr::Paren(p)) => apply_domain(checker, t, ty, &p.expr),
        (Target::Tuple(ts), Type::Tuple(tys), syn::Expr::Tuple(ds)) => {
            if ts.len() != ds.elems.len() {
                checker.diag.error(
                    ds,
                    format!(
                        "{} domains for a tuple of {} outputs",
                        ds.elems.len(),
                        ts.len()
                    ),
                );
                return None;
            }
            let mut ok = true;
            for ((t, ty), d) in ts.iter_mut().zip(tys).zip(&ds.elems) {
                ok &= apply_domain(checker, t, ty, d).is_some();
            }
            ok.then_some(())
        }
        (Target::Tuple(ts), Type::Tuple(tys), d) => {
            let mut ok = true;
            for (t, ty) in ts.iter_mut().zip(tys) {
                ok &= apply_domain(checker, t, ty, d).is_some();
            }
            ok.then_some(())
        }
        (Target::Field { domain, .. }, Type::Field { dims, .. }, syn::Expr::Macro(m))
            if m.mac.path.is_ident("domain") =>
        {
            *domain = parse_domain(checker, dims, &m.mac, ty)?;
            Some(())
        }
        (_, _, other) => {
            checker.diag.error(
                other,
                "expected a domain `domain![Edge: start..end, K: start..end]` (or a tuple of them for a tuple of outputs)",
            );
            None
        }
    }
}

fn parse_domain(
    checker: &mut Checker,
    dims: &[String],
    mac: &syn::Macro,
    ty: &Type,
) -> Option<Vec<DomainRange>> {
    let entries = match mac.parse_body_with(
        syn::punctuated::Punctuated::<DomainEntry, syn::Token![,]>::parse_terminated,
    ) {
        Ok(e) => e,
        Err(e) => {
            checker.diag.push(e);
            return None;
        }
    };
    let mut ranges = Vec::new();
    let mut ok = true;
    for entry in entries {
        let (dim, kind) = match resolve_dim(checker.env, &entry.dim) {
            Ok(d) => (d.name, d.kind),
            Err(e) => {
                checker.diag.push(e);
                ok = false;
                continue;
            }
        };
        if !dims.contains(&dim) {
            checker.diag.error(
                &entry.dim,
                format!("`{dim}` is not a dimension of the output (`{ty}`)"),
            );
            ok = false;
            continue;
        }
        if kind == DimKind::Local {
            checker.diag.error(
                &entry.dim,
                format!(
                    "`{dim}` is the local dimension of this sparse output, which every backend writes at all of its neighbour slots: a domain cannot restrict it (leave `{dim}` out of the domain)"
                ),
            );
            ok = false;
            continue;
        }
        if ranges.iter().any(|r: &DomainRange| r.dim == dim) {
            checker
                .diag
                .error(&entry.dim, format!("`{dim}` appears twice in this domain"));
            ok = false;
            continue;
        }
        let syn::Expr::Range(r) = &entry.range else {
            checker
                .diag
                .error(&entry.range, "expected a half-open range `start..end`");
            ok = false;
            continue;
        };
        let (Some(start), Some(end), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, r.limits)
        else {
            checker.diag.error(
                r,
                "expected a half-open range with both bounds: `start..end`",
            );
            ok = false;
            continue;
        };
        let start = bound(checker, start);
        let end = bound(checker, end);
        match (start, end) {
            (Some(start), Some(end)) => ranges.push(DomainRange { dim, start, end }),
            _ => ok = false,
        }
    }
    ok.then_some(ranges)
}

/// A domain bound: an `i32` expression of literals and scalar parameters.
fn bound(checker: &mut Checker, e: &syn::Expr) -> Option<Expr> {
    let i32_ty = Type::Scalar(ScalarType::I32);
    let v = checker.expr(e, Some(&i32_ty))?;
    if v.ty != i32_ty || !is_index_expr(&v) {
        checker.diag.error(
            e,
            format!(
                "a domain bound is an `i32` built from literals and scalar parameters (with + - * / and `.min()`/`.max()`), but this is `{}`",
                v.ty
            ),
        );
        return None;
    }
    Some(v)
}
