//! `#[gt4rs::export_c(library)]` on a Rust function whose parameters are views
//! (`FieldRef<'_, D, T>`, `FieldMut<'_, D, T>`, either in an `Option`) and scalars (`bool`,
//! `i32`, `i64`, `f32`, `f64`), returning `Result<(), E>` with `E` into
//! `gt4rs::ffi::Failure` (`gt4rs::Error` is): the function stays as written, and a module of
//! the same name holds its C entry `<library>_<name>` and its `BINDING`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{FnArg, GenericArgument, Ident, ItemFn, Pat, PathArguments, Type};

use gt4rs_ir::ScalarType;

use super::{check_fortran_name, entry, text, Arg, Array, CFunction};

/// The last segment of a type path and its generic arguments.
fn last_segment(ty: &Type) -> Option<(&Ident, Vec<&GenericArgument>)> {
    let Type::Path(p) = ty else { return None };
    let segment = p.path.segments.last()?;
    let args = match &segment.arguments {
        PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        _ => Vec::new(),
    };
    Some((&segment.ident, args))
}

/// The dimension names of a view's `D` (a tuple of paths or one path).
fn dims_of(ty: &Type) -> Option<Vec<String>> {
    let name = |t: &Type| match t {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    };
    match ty {
        Type::Tuple(t) => t.elems.iter().map(name).collect(),
        Type::Paren(p) => name(&p.elem).map(|n| vec![n]),
        other => name(other).map(|n| vec![n]),
    }
}

/// The element type named by a type (`f64`, …).
fn scalar_of(ty: &Type) -> Option<ScalarType> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .and_then(|i| ScalarType::from_rust_name(&i.to_string())),
        _ => None,
    }
}

/// One parameter as a C argument, and for a view the statement checking, when the crate
/// compiles, that its dimensions have the rank read from their spelling (an alias of a tuple
/// would hide it).
fn arg_of(name: &str, ty: &Type) -> syn::Result<(Arg, Option<TokenStream>)> {
    let unsupported = || {
        syn::Error::new_spanned(
            ty,
            "a C entry takes views (`FieldRef<'_, D, T>`, `FieldMut<'_, D, T>`, optionally in an `Option`) and scalars (bool, i32, i64, f32, f64)",
        )
    };
    if let Some(dtype) = scalar_of(ty) {
        return Ok((
            Arg::Scalar {
                name: name.to_string(),
                dtype,
            },
            None,
        ));
    }
    let (mut head, mut args) = last_segment(ty).ok_or_else(unsupported)?;
    let mut view_ty = ty.clone();
    let optional = head == "Option";
    if optional {
        let Some(GenericArgument::Type(inner)) = args.first() else {
            return Err(unsupported());
        };
        view_ty = inner.clone();
        (head, args) = last_segment(inner).ok_or_else(unsupported)?;
    }
    let writes = match head.to_string().as_str() {
        "FieldRef" => false,
        "FieldMut" => true,
        _ => return Err(unsupported()),
    };
    let types: Vec<&Type> = args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    let [dims, elem] = types.as_slice() else {
        return Err(unsupported());
    };
    let dims_ty = *dims;
    let dims = dims_of(dims_ty).ok_or_else(unsupported)?;
    let dtype = scalar_of(elem).ok_or_else(|| {
        syn::Error::new_spanned(
            elem,
            "the element type of a C entry's view is written out: bool, i32, i64, f32 or f64",
        )
    })?;
    let rank = dims.len();
    let message = format!(
        "`{name}`: a C entry's view spells its dimensions out (a tuple of them, not an alias)"
    );
    let rank_check = quote! {
        const _: () = ::core::assert!(<#dims_ty as ::gt4rs::Dims>::RANK == #rank, #message);
    };
    Ok((
        Arg::Array(Array {
            name: name.to_string(),
            dtype,
            dims,
            writes,
            optional,
            view: quote!(#view_ty),
        }),
        Some(rank_check),
    ))
}

/// The `library` named in `#[export_c(library)]`.
fn library_of(attr: TokenStream) -> syn::Result<Ident> {
    syn::parse2::<Ident>(attr).map_err(|e| {
        syn::Error::new(
            e.span(),
            "`#[gt4rs::export_c(library)]` names the library whose bindings list the function (its C prefix)",
        )
    })
}

/// Entry point of `#[export_c(library)]`.
pub fn emit(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    match emit_for(attr, &func) {
        Ok(tokens) => quote!(#func #tokens),
        Err(e) => {
            let error = e.to_compile_error();
            quote!(#func #error)
        }
    }
}

fn emit_for(attr: TokenStream, func: &ItemFn) -> syn::Result<TokenStream> {
    let library = library_of(attr)?.to_string();
    let name = &func.sig.ident;
    let name_str = name.to_string();
    check_fortran_name(&name_str, name.span())?;
    check_fortran_name(
        &text::interface_name(&format!("{library}_{name_str}")),
        name.span(),
    )?;
    let mut args = Vec::new();
    let mut rank_checks = Vec::new();
    let mut forwards = Vec::new();
    for input in &func.sig.inputs {
        let FnArg::Typed(pt) = input else {
            return Err(syn::Error::new_spanned(
                input,
                "a C entry is a free function",
            ));
        };
        let Pat::Ident(ident) = &*pt.pat else {
            return Err(syn::Error::new_spanned(
                &pt.pat,
                "a C entry's parameters are plain names",
            ));
        };
        let (arg, rank_check) = arg_of(&ident.ident.to_string(), &pt.ty)?;
        args.push(arg);
        rank_checks.extend(rank_check);
        let id = &ident.ident;
        forwards.push(quote!(#id));
    }
    let doc: Vec<String> = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let doc = if doc.is_empty() {
        format!("`{name_str}`.")
    } else {
        doc.join("\n")
    };
    let c_function = CFunction {
        c_name: format!("{library}_{name_str}"),
        fortran_name: name_str.clone(),
        doc,
        args,
        body: quote! {
            super::#name(#(#forwards),*).map_err(::core::convert::Into::<::gt4rs::ffi::Failure>::into)
        },
    };
    let entry = entry::emit(&c_function);
    let c = text::c_declaration(&c_function);
    let fortran_interfaces = text::fortran_interface(&c_function);
    let fortran_procedures = text::fortran_wrapper(&c_function);
    let vis = &func.vis;
    let mod_doc = format!("The C entry of [`{name_str}`] (see `BINDING`).");
    let span = Span::call_site();
    let module = Ident::new(&name_str, span);
    Ok(quote! {
        #[doc = #mod_doc]
        #[allow(non_snake_case, non_camel_case_types, unused_imports)]
        #vis mod #module {
            use super::*;

            #(#rank_checks)*

            #entry

            /// The C declaration and Fortran interface of the entry.
            pub const BINDING: ::gt4rs::ffi::bindings::Binding = ::gt4rs::ffi::bindings::Binding {
                name: #name_str,
                c_types: "",
                c: #c,
                fortran_types: "",
                fortran_interfaces: #fortran_interfaces,
                fortran_procedures: #fortran_procedures,
                fortran_public: #name_str,
            };
        }
    })
}
