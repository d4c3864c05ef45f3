//! Stage 1: which paths of an item name dimensions, offsets or operators.
//!
//! Only the positions where the language allows such names are scanned: field types (their
//! dimensions and, unless primitive, their element type), scalar types of parameters, results,
//! `let` ascriptions and `as` casts (scalar aliases of `scalar_types!`), `.at(…)`
//! arguments, local indices `x[O(n)]`, reduction axes, `broadcast` dimensions, `concat_where`
//! conditions, `domain![…]` bounds, the scan `axis`, and called functions that are not builtins.
//! Each path is later resolved by calling its definition macro.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use syn::visit::Visit;
use syn::{Expr, ItemFn, Pat, Path, Type};

use crate::definitions::{path_key, ItemKind};
use crate::frontend::operator::scan_options;
use crate::frontend::recursion;

/// Functions the language defines itself; every other called path is an operator.
pub const BUILTIN_FUNCTIONS: &[&str] = &[
    "neighbor_sum",
    "max_over",
    "min_over",
    "select",
    "broadcast",
    "concat_where",
    "gamma",
];

/// Scalar type names usable as path prefixes of math functions (`f64::max(a, b)`).
const PRIMITIVES: &[&str] = &["f32", "f64", "i32", "i64", "bool"];

pub fn entity_paths(kind: ItemKind, attr: &TokenStream, func: &ItemFn) -> syn::Result<Vec<Path>> {
    let mut scan = Scan::default();
    scan.visit_signature_entities(func);
    if kind == ItemKind::ScanOperator {
        // `axis = K` in the attribute (the checker reports a malformed one).
        if let Ok(metas) = scan_options(attr) {
            for m in metas {
                if m.path.is_ident("axis") {
                    if let Expr::Path(p) = &m.value {
                        scan.push(&p.path);
                    }
                }
            }
        }
    }
    scan.visit_block(&func.block);
    let name = &func.sig.ident;
    if let Some(call) = scan.calls.iter().find(|p| names_item(p, name)) {
        let message = match kind {
            ItemKind::Program => format!(
                "`{name}` calls itself, and programs are not called: a program calls field or scan operators"
            ),
            _ => format!(
                "`{name}` calls itself: operators cannot be recursive (each call is inlined into its caller); a carry along the vertical is a `#[scan_operator]`"
            ),
        };
        return Err(syn::Error::new_spanned(call, message));
    }
    if kind != ItemKind::Program {
        if let Some(cycle) = recursion::find(func, &scan.calls) {
            return Err(syn::Error::new_spanned(&cycle.call, cycle.message()));
        }
    }
    Ok(scan.paths)
}

/// The paths that `func` calls as operators (every called path that is neither a builtin, a
/// primitive's math function nor a local).
pub fn operator_calls(func: &ItemFn) -> Vec<Path> {
    let mut scan = Scan::default();
    scan.visit_signature_entities(func);
    scan.visit_block(&func.block);
    scan.calls
}

/// Whether `path` is the item `name` itself as written in its own module: `name` or
/// `self::name`.
fn names_item(path: &Path, name: &syn::Ident) -> bool {
    let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
    match segments.as_slice() {
        [only] => path.leading_colon.is_none() && only.ident == *name,
        [first, last] => first.ident == "self" && last.ident == *name,
        _ => false,
    }
}

#[derive(Default)]
struct Scan {
    locals: HashSet<String>,
    seen: HashSet<String>,
    paths: Vec<Path>,
    /// The paths called as operators.
    calls: Vec<Path>,
}

impl Scan {
    /// Binds the parameters and scans the parameter and result types.
    fn visit_signature_entities(&mut self, func: &ItemFn) {
        for input in &func.sig.inputs {
            if let syn::FnArg::Typed(pt) = input {
                self.bind_pattern(&pt.pat);
                self.visit_type_entities(&pt.ty);
            }
        }
        if let syn::ReturnType::Type(_, ty) = &func.sig.output {
            self.visit_type_entities(ty);
        }
    }

    fn push(&mut self, path: &Path) {
        if path.segments.len() == 1 && self.locals.contains(&path.segments[0].ident.to_string()) {
            return;
        }
        if self.seen.insert(path_key(path)) {
            self.paths.push(path.clone());
        }
    }

    fn bind_pattern(&mut self, pat: &Pat) {
        match pat {
            Pat::Ident(p) => {
                self.locals.insert(p.ident.to_string());
            }
            Pat::Tuple(t) => t.elems.iter().for_each(|p| self.bind_pattern(p)),
            Pat::Type(t) => self.bind_pattern(&t.pat),
            Pat::Paren(p) => self.bind_pattern(&p.pat),
            _ => {}
        }
    }

    /// A scalar type that is not primitive: a `scalar_types!` alias (or a mistake the checker
    /// reports once the path is resolved).
    fn scalar_type(&mut self, ty: &Type) {
        match ty {
            Type::Path(tp) if tp.qself.is_none() => {
                let plain = tp
                    .path
                    .segments
                    .iter()
                    .all(|s| matches!(s.arguments, syn::PathArguments::None));
                let primitive = tp
                    .path
                    .get_ident()
                    .is_some_and(|i| PRIMITIVES.contains(&i.to_string().as_str()));
                if plain && !primitive {
                    self.push(&tp.path);
                }
            }
            Type::Paren(p) => self.scalar_type(&p.elem),
            _ => {}
        }
    }

    /// Dimension and scalar type paths of `Field<…>` and scalar types (also behind references
    /// and in tuples).
    fn visit_type_entities(&mut self, ty: &Type) {
        match ty {
            Type::Reference(r) => self.visit_type_entities(&r.elem),
            Type::Tuple(t) => t.elems.iter().for_each(|e| self.visit_type_entities(e)),
            Type::Paren(p) => self.visit_type_entities(&p.elem),
            Type::Path(tp) => {
                let Some(last) = tp.path.segments.last() else {
                    return;
                };
                if last.ident != "Field" {
                    self.scalar_type(ty);
                    return;
                }
                if let syn::PathArguments::AngleBracketed(args) = &last.arguments {
                    if let Some(syn::GenericArgument::Type(dims)) = args.args.first() {
                        self.dims_of(dims);
                    }
                    if let Some(syn::GenericArgument::Type(element)) = args.args.get(1) {
                        self.scalar_type(element);
                    }
                }
            }
            _ => {}
        }
    }

    fn dims_of(&mut self, ty: &Type) {
        match ty {
            Type::Path(tp) => self.push(&tp.path),
            Type::Tuple(t) => t.elems.iter().for_each(|e| self.dims_of(e)),
            Type::Paren(p) => self.dims_of(&p.elem),
            _ => {}
        }
    }

    /// Paths in a shift argument: `O`, `O[n]`, `D + n`, `D - e`, or a tuple of these.
    fn shift_entities(&mut self, e: &Expr) {
        match e {
            Expr::Path(p) => self.push(&p.path),
            Expr::Index(i) => {
                if let Expr::Path(p) = &*i.expr {
                    self.push(&p.path);
                }
                self.visit_expr(&i.index);
            }
            Expr::Binary(b) => {
                if let Expr::Path(p) = &*b.left {
                    self.push(&p.path);
                }
                self.visit_expr(&b.right);
            }
            Expr::Tuple(t) => t.elems.iter().for_each(|x| self.shift_entities(x)),
            Expr::Paren(p) => self.shift_entities(&p.expr),
            other => self.visit_expr(other),
        }
    }

    /// Paths in a `concat_where` condition: comparisons joined by `&` and `|`.
    fn condition_entities(&mut self, e: &Expr) {
        match e {
            Expr::Binary(b) => {
                for side in [&*b.left, &*b.right] {
                    match side {
                        Expr::Path(p) => self.push(&p.path),
                        other => self.condition_entities(other),
                    }
                }
            }
            Expr::Paren(p) => self.condition_entities(&p.expr),
            other => self.visit_expr(other),
        }
    }

    /// `domain![D: a..b, …]` (also `domain!(…)`).
    fn domain_entities(&mut self, mac: &syn::Macro) {
        let entries = mac.parse_body_with(
            syn::punctuated::Punctuated::<DomainEntry, syn::Token![,]>::parse_terminated,
        );
        if let Ok(entries) = entries {
            for entry in entries {
                self.push(&entry.dim);
                self.visit_expr(&entry.range);
            }
        }
    }
}

/// `Dim: start..end` inside `domain![…]`.
pub struct DomainEntry {
    pub dim: Path,
    pub range: Expr,
}

impl syn::parse::Parse for DomainEntry {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let dim = input.parse()?;
        input.parse::<syn::Token![:]>()?;
        let range = input.parse()?;
        Ok(DomainEntry { dim, range })
    }
}

impl<'ast> Visit<'ast> for Scan {
    fn visit_expr(&mut self, e: &'ast Expr) {
        // One level of a recursion as deep as the user's expression.
        gt4rs_ir::stack::grow(|| syn::visit::visit_expr(self, e))
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
        }
        // `let x: Field<(Edge, K), f64> = …`: the ascription names dimensions too.
        if let Pat::Type(pt) = &local.pat {
            self.visit_type_entities(&pt.ty);
        }
        self.bind_pattern(&local.pat);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.visit_expr(&call.receiver);
        let method = call.method.to_string();
        if method == "at" {
            call.args.iter().for_each(|a| self.shift_entities(a));
        } else if method == "write_to" {
            for a in &call.args {
                self.visit_domain_arg(a);
            }
        } else {
            call.args.iter().for_each(|a| self.visit_expr(a));
        }
    }

    fn visit_expr_index(&mut self, index: &'ast syn::ExprIndex) {
        self.visit_expr(&index.expr);
        match &*index.index {
            Expr::Call(c) => {
                if let Expr::Path(p) = &*c.func {
                    self.push(&p.path);
                }
                c.args.iter().for_each(|a| self.visit_expr(a));
            }
            other => self.visit_expr(other),
        }
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        let Expr::Path(func) = &*call.func else {
            syn::visit::visit_expr_call(self, call);
            return;
        };
        let path = &func.path;
        let first = path
            .segments
            .first()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let name = path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let builtin = path.segments.len() == 1 && BUILTIN_FUNCTIONS.contains(&name.as_str());
        let primitive_method = path.segments.len() == 2 && PRIMITIVES.contains(&first.as_str());
        let args: Vec<&Expr> = call.args.iter().collect();
        if builtin {
            match name.as_str() {
                "neighbor_sum" | "max_over" | "min_over" => {
                    if let Some(a) = args.first() {
                        self.visit_expr(a);
                    }
                    if let Some(axis) = args.get(1) {
                        self.shift_entities(axis);
                    }
                }
                "broadcast" => {
                    if let Some(a) = args.first() {
                        self.visit_expr(a);
                    }
                    if let Some(d) = args.get(1) {
                        self.shift_entities(d);
                    }
                }
                "concat_where" => {
                    if let Some(c) = args.first() {
                        self.condition_entities(c);
                    }
                    args.iter().skip(1).for_each(|a| self.visit_expr(a));
                }
                _ => args.iter().for_each(|a| self.visit_expr(a)),
            }
        } else if primitive_method {
            args.iter().for_each(|a| self.visit_expr(a));
        } else {
            let local = path
                .get_ident()
                .is_some_and(|i| self.locals.contains(&i.to_string()));
            if !local {
                self.calls.push(path.clone());
            }
            self.push(path);
            args.iter().for_each(|a| self.visit_expr(a));
        }
    }

    fn visit_expr_cast(&mut self, cast: &'ast syn::ExprCast) {
        self.visit_expr(&cast.expr);
        self.scalar_type(&cast.ty);
    }

    fn visit_expr_path(&mut self, _path: &'ast syn::ExprPath) {
        // A bare path in expression position is a variable; the checker reports unknown ones.
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        // Closures are rejected by the checker; their parameters are locals here.
        closure.inputs.iter().for_each(|p| self.bind_pattern(p));
        self.visit_expr(&closure.body);
    }
}

impl Scan {
    fn visit_domain_arg(&mut self, e: &Expr) {
        match e {
            Expr::Macro(m) if m.mac.path.is_ident("domain") => self.domain_entities(&m.mac),
            Expr::Tuple(t) => t.elems.iter().for_each(|x| self.visit_domain_arg(x)),
            Expr::Paren(p) => self.visit_domain_arg(&p.expr),
            other => self.visit_expr(other),
        }
    }
}
