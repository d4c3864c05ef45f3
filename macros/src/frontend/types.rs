//! Dimension names and syn types to IR types.

use quote::ToTokens;
use syn::{GenericArgument, Path, PathArguments};

use gt4rs_ir::types::canonical_order;
use gt4rs_ir::{DimInfo, DimKind, OffsetInfo, ScalarType, Type};

use crate::definitions::{path_key, Def, Env};

/// Every dimension the item can see: declared dimensions, offsets (as local dimensions) and
/// dimensions mentioned only as an offset's source or target (horizontal by construction: an
/// offset connects horizontal points).
pub struct DimTable {
    pub infos: Vec<DimInfo>,
}

impl DimTable {
    pub fn new(env: &Env) -> DimTable {
        let mut infos: Vec<DimInfo> = env.bundle.dims.clone();
        let mut add = |name: &str, kind: DimKind| {
            if !infos.iter().any(|d| d.name == name) {
                infos.push(DimInfo {
                    name: name.to_string(),
                    kind,
                });
            }
        };
        for o in &env.bundle.offsets {
            add(&o.name, DimKind::Local);
        }
        for o in &env.bundle.offsets {
            add(&o.from, DimKind::Horizontal);
            add(&o.to, DimKind::Horizontal);
        }
        DimTable { infos }
    }

    pub fn kind(&self, name: &str) -> Option<DimKind> {
        self.infos.iter().find(|d| d.name == name).map(|d| d.kind)
    }

    pub fn is_local(&self, name: &str) -> bool {
        self.kind(name) == Some(DimKind::Local)
    }

    /// Dims in canonical order (unknown names sort last, which only happens for broken input).
    pub fn order(&self, dims: &[String]) -> Vec<String> {
        canonical_order(dims, &self.infos).unwrap_or_else(|| dims.to_vec())
    }
}

/// What a path names, for error messages.
pub fn describe(def: &Def) -> &'static str {
    match def {
        Def::Dim(_) => "a dimension",
        Def::Offset(_) => "a neighbour offset",
        Def::Operator { .. } => "an operator",
        Def::Scalar { .. } => "a scalar type",
        Def::Broken { .. } => "an operator with errors",
    }
}

/// Resolves a path that must name a dimension (an offset is also its local dimension).
pub fn resolve_dim(env: &Env, path: &Path) -> syn::Result<DimInfo> {
    match env.lookup(path) {
        Some(Def::Dim(d)) => Ok(d.clone()),
        Some(Def::Offset(o)) => Ok(DimInfo {
            name: o.name.clone(),
            kind: DimKind::Local,
        }),
        Some(other) => Err(syn::Error::new_spanned(
            path,
            format!(
                "`{}` is {}, not a dimension",
                path_key(path),
                describe(other)
            ),
        )),
        None => Err(syn::Error::new_spanned(
            path,
            format!(
                "unknown dimension `{}`: declare it with `gt4rs::dimensions!`",
                path_key(path)
            ),
        )),
    }
}

/// Resolves a path that must name a neighbour offset.
pub fn resolve_offset(env: &Env, path: &Path) -> syn::Result<OffsetInfo> {
    match env.lookup(path) {
        Some(Def::Offset(o)) => Ok(o.clone()),
        Some(other) => Err(syn::Error::new_spanned(
            path,
            format!(
                "`{}` is {}, not a neighbour offset (a local dimension declared with `gt4rs::offsets!`)",
                path_key(path),
                describe(other)
            ),
        )),
        None => Err(syn::Error::new_spanned(
            path,
            format!(
                "unknown neighbour offset `{}`: declare it with `gt4rs::offsets!`",
                path_key(path)
            ),
        )),
    }
}

/// A scalar type: a primitive name (`f64`, `i32`, `bool`, …) or a `scalar_types!` alias.
/// `Ok(None)` when `ty` is no scalar type at all; an error when it is a path naming something
/// else (a dimension used as an element type, say).
pub fn scalar_of(env: &Env, ty: &syn::Type) -> syn::Result<Option<ScalarType>> {
    match ty {
        syn::Type::Path(tp) if tp.qself.is_none() => {
            if let Some(primitive) = tp
                .path
                .get_ident()
                .and_then(|i| ScalarType::from_rust_name(&i.to_string()))
            {
                return Ok(Some(primitive));
            }
            match env.lookup(&tp.path) {
                Some(Def::Scalar { ty, .. }) => Ok(Some(*ty)),
                Some(other) => Err(syn::Error::new_spanned(
                    &tp.path,
                    format!(
                        "`{}` is {}, not a scalar type (`f32`, `f64`, `i32`, `i64`, `bool` or an alias declared with `gt4rs::scalar_types!`)",
                        path_key(&tp.path),
                        describe(other)
                    ),
                )),
                None => Ok(None),
            }
        }
        syn::Type::Paren(p) => scalar_of(env, &p.elem),
        _ => Ok(None),
    }
}

/// `Field<(A, B), T>`, `Field<A, T>`, scalars and tuples of these.
pub fn parse_type(env: &Env, table: &DimTable, ty: &syn::Type) -> syn::Result<Type> {
    if let Some(s) = scalar_of(env, ty)? {
        return Ok(Type::Scalar(s));
    }
    match ty {
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            let mut items = Vec::new();
            let mut errors: Option<syn::Error> = None;
            for e in &t.elems {
                match parse_type(env, table, e) {
                    Ok(t) => items.push(t),
                    Err(e) => match &mut errors {
                        Some(acc) => acc.combine(e),
                        None => errors = Some(e),
                    },
                }
            }
            match errors {
                Some(e) => Err(e),
                None => Ok(Type::Tuple(items)),
            }
        }
        syn::Type::Paren(p) => parse_type(env, table, &p.elem),
        syn::Type::Path(tp) if tp.qself.is_none() => {
            let last = tp
                .path
                .segments
                .last()
                .ok_or_else(|| unsupported_type(ty))?;
            if last.ident != "Field" {
                return Err(unsupported_type(ty));
            }
            let PathArguments::AngleBracketed(args) = &last.arguments else {
                return Err(syn::Error::new_spanned(
                    ty,
                    "a field type needs dimensions and an element type: `Field<(Edge, K), f64>`",
                ));
            };
            let args: Vec<&GenericArgument> = args.args.iter().collect();
            let (Some(GenericArgument::Type(dims_ty)), Some(GenericArgument::Type(dtype_ty)), 2) =
                (args.first(), args.get(1), args.len())
            else {
                return Err(syn::Error::new_spanned(
                    ty,
                    "a field type has two arguments: `Field<(Edge, K), f64>`",
                ));
            };
            let dtype = scalar_of(env, dtype_ty)?.ok_or_else(|| {
                syn::Error::new_spanned(
                    dtype_ty,
                    "a field's element type is one of `f32`, `f64`, `i32`, `i64`, `bool` or an alias declared with `gt4rs::scalar_types!`",
                )
            })?;
            let dims = field_dims(env, table, dims_ty)?;
            Ok(Type::Field { dims, dtype })
        }
        _ => Err(unsupported_type(ty)),
    }
}

fn unsupported_type(ty: &syn::Type) -> syn::Error {
    syn::Error::new_spanned(
        ty,
        format!(
            "unsupported type `{}`: expected `Field<(Dims…), T>`, a scalar (`f32`, `f64`, `i32`, `i64`, `bool` or a `scalar_types!` alias) or a tuple of these",
            ty.to_token_stream()
        ),
    )
}

/// The dimensions of a field type, checked to be in canonical order with at most one local.
fn field_dims(env: &Env, table: &DimTable, dims_ty: &syn::Type) -> syn::Result<Vec<String>> {
    let paths: Vec<&Path> = match dims_ty {
        syn::Type::Tuple(t) => {
            let mut v = Vec::new();
            for e in &t.elems {
                match e {
                    syn::Type::Path(p) if p.qself.is_none() => v.push(&p.path),
                    other => {
                        return Err(syn::Error::new_spanned(other, "expected a dimension name"))
                    }
                }
            }
            v
        }
        syn::Type::Path(p) if p.qself.is_none() => vec![&p.path],
        syn::Type::Paren(p) => return field_dims(env, table, &p.elem),
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "expected a dimension or a tuple of dimensions: `(Edge, K)`",
            ))
        }
    };
    let mut dims: Vec<String> = Vec::new();
    let mut error: Option<syn::Error> = None;
    let mut record = |e: syn::Error| match &mut error {
        Some(acc) => acc.combine(e),
        None => error = Some(e),
    };
    for p in &paths {
        match resolve_dim(env, p) {
            Ok(d) if dims.contains(&d.name) => record(syn::Error::new_spanned(
                p,
                format!("dimension `{}` appears twice", d.name),
            )),
            Ok(d) => dims.push(d.name),
            Err(e) => record(e),
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    let ordered = table.order(&dims);
    if ordered != dims {
        return Err(syn::Error::new_spanned(
            dims_ty,
            format!(
                "dimensions must be in canonical order (horizontal, local, vertical, then by name): write `({})`",
                ordered.join(", ")
            ),
        ));
    }
    let locals: Vec<&String> = dims.iter().filter(|d| table.is_local(d)).collect();
    if locals.len() > 1 {
        return Err(syn::Error::new_spanned(
            dims_ty,
            format!(
                "a field holds at most one local dimension, but this type has `{}` and `{}`",
                locals[0], locals[1]
            ),
        ));
    }
    Ok(dims)
}
