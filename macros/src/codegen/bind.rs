//! Bound arguments: `gt4rs::bind! { pub mod vn_update = path::to::program(a, b, start); }`.
//!
//! Every `#[program]` emits a definition macro under its own name (macro namespace; its module
//! lives in the type namespace) whose payload lists its parameters. `bind!` calls it by the
//! path the user wrote, so the path resolves exactly as in the user's module:
//!
//! ```text
//! bind! { pub mod m = p(a, b); }
//!   ==> p! { @gt4rs_bind { pub mod m } { p } { a, b } }
//!   ==> ::gt4rs::__private::__bind! { { pub mod m } { p } { a, b } "<parameters>" }
//!   ==> pub mod m { NAME, Bound, Args (the other parameters), compile, Compiled::call }
//! ```
//!
//! The bound values are stored once (fields behind `Arc`, so several bound programs share one
//! metric field; scalars by value); `Args` has no field for a bound parameter, so passing one
//! again does not compile.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use serde::{Deserialize, Serialize};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, parenthesized, Ident, LitStr, Path, Token, Visibility};

use gt4rs_ir::fieldview::{Program, Role};

use crate::definitions::{hidden_definition_macro, location_hash, path_key, Chain};

/// How a program uses one parameter.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A field the program only reads.
    FieldRead,
    /// A field the program writes (`&mut`): it cannot be bound.
    FieldWritten,
    Scalar,
}

/// One parameter as the definition macro hands it over.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ParamDef {
    pub name: String,
    pub kind: ParamKind,
    pub is_static: bool,
    /// The element type (`f64`, `i32`, …) of a field or scalar; `None` for a tuple.
    #[serde(default)]
    pub dtype: Option<String>,
    /// A field's dimensions, in order.
    #[serde(default)]
    pub dims: Vec<String>,
}

/// The parameters of `program`, in order.
pub fn params_of(program: &Program) -> Vec<ParamDef> {
    program
        .params
        .iter()
        .map(|p| ParamDef {
            name: p.name.clone(),
            kind: match (p.ty.is_field(), p.role) {
                (true, Role::In) => ParamKind::FieldRead,
                (true, _) => ParamKind::FieldWritten,
                (false, _) => ParamKind::Scalar,
            },
            is_static: p.is_static,
            dtype: p.ty.dtype().map(|t| t.rust_name().to_string()),
            dims: p.ty.dims().map(<[String]>::to_vec).unwrap_or_default(),
        })
        .collect()
}

/// The definition macro of a program: `name! { @gt4rs_bind … }` appends its parameters.
pub fn definition_macro(vis: &Visibility, name: &Ident, program: &Program) -> TokenStream {
    let payload = serde_json::to_string(&params_of(program)).expect("parameters serialise");
    let hash = location_hash(&program.to_json());
    let hidden = format_ident!("__gt4rs_program_{}_{:016x}", name, hash);
    hidden_definition_macro(vis, name, &hidden, Chain::Bind, quote::quote!(#payload))
}

/// One `vis mod name = path(args…);` of `bind!`.
struct BindItem {
    vis: Visibility,
    name: Ident,
    path: Path,
    bound: Vec<Ident>,
}

impl Parse for BindItem {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let vis: Visibility = input.parse()?;
        input.parse::<Token![mod]>()?;
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let path: Path = input.parse()?;
        let content;
        parenthesized!(content in input);
        let bound = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?
            .into_iter()
            .collect();
        Ok(BindItem {
            vis,
            name,
            path,
            bound,
        })
    }
}

/// Entry point of `bind!`: calls the definition macro of each named program.
pub fn start(input: TokenStream) -> TokenStream {
    let parsed = syn::parse::Parser::parse2(
        |stream: ParseStream| {
            let mut items = Vec::new();
            while !stream.is_empty() {
                items.push(stream.parse::<BindItem>()?);
                stream.parse::<Token![;]>()?;
            }
            Ok(items)
        },
        input,
    );
    let items = match parsed {
        Ok(items) => items,
        Err(e) => return e.to_compile_error(),
    };
    items
        .into_iter()
        .map(|item| {
            let BindItem {
                vis,
                name,
                path,
                bound,
            } = item;
            quote!( #path ! { @gt4rs_bind { #vis mod #name } { #path } { #( #bound ),* } } )
        })
        .collect()
}

/// The input of `__bind!`: the item, then the program's parameters.
struct Resumed {
    vis: Visibility,
    name: Ident,
    path: Path,
    bound: Vec<Ident>,
    payload: LitStr,
}

impl Parse for Resumed {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let head;
        braced!(head in input);
        let vis: Visibility = head.parse()?;
        head.parse::<Token![mod]>()?;
        let name: Ident = head.parse()?;
        let path_tokens;
        braced!(path_tokens in input);
        let path: Path = path_tokens.parse()?;
        let args;
        braced!(args in input);
        let bound = Punctuated::<Ident, Token![,]>::parse_terminated(&args)?
            .into_iter()
            .collect();
        let payload: LitStr = input.parse()?;
        Ok(Resumed {
            vis,
            name,
            path,
            bound,
            payload,
        })
    }
}

/// Entry point of `__bind!`: the program's parameters have arrived; emits the bound module.
pub fn resume(input: TokenStream) -> TokenStream {
    let resumed = match syn::parse2::<Resumed>(input) {
        Ok(r) => r,
        Err(e) => return e.to_compile_error(),
    };
    let params: Vec<ParamDef> = match serde_json::from_str(&resumed.payload.value()) {
        Ok(p) => p,
        Err(e) => {
            let msg = format!("gt4rs: corrupt program payload: {e}");
            return syn::Error::new(
                resumed
                    .path
                    .segments
                    .last()
                    .map_or(Span::call_site(), |s| s.ident.span()),
                msg,
            )
            .to_compile_error();
        }
    };
    match emit(&resumed, &params) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

/// Checks the bound names against the parameters: each must exist, be read-only and appear once.
fn check_bound(resumed: &Resumed, params: &[ParamDef]) -> syn::Result<HashSet<String>> {
    let program = path_key(&resumed.path);
    let mut seen = HashSet::new();
    for ident in &resumed.bound {
        let name = ident.to_string();
        let Some(param) = params.iter().find(|p| p.name == name) else {
            let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            return Err(syn::Error::new(
                ident.span(),
                format!(
                    "program `{program}` has no parameter `{name}` (parameters: {})",
                    names.join(", ")
                ),
            ));
        };
        if param.kind == ParamKind::FieldWritten {
            return Err(syn::Error::new(
                ident.span(),
                format!(
                    "`{name}` is written by program `{program}`; only fields it reads and \
                     scalars can be bound"
                ),
            ));
        }
        if !seen.insert(name.clone()) {
            return Err(syn::Error::new(
                ident.span(),
                format!("`{name}` is bound twice"),
            ));
        }
    }
    Ok(seen)
}

/// The program's path as seen from inside the generated module (one level deeper).
pub(crate) fn path_from_inside(path: &Path) -> TokenStream {
    let first = path.segments.first().map(|s| s.ident.to_string());
    match first.as_deref() {
        Some("self") if path.leading_colon.is_none() => {
            let rest = path.segments.iter().skip(1);
            quote!(super #( :: #rest )*)
        }
        Some("super") if path.leading_colon.is_none() => quote!(super :: #path),
        _ => quote!(#path),
    }
}

fn emit(resumed: &Resumed, params: &[ParamDef]) -> syn::Result<TokenStream> {
    let bound = check_bound(resumed, params)?;
    let vis = &resumed.vis;
    let name = &resumed.name;
    let program = path_from_inside(&resumed.path);
    let program_text = path_key(&resumed.path);
    let span = Span::call_site();
    let mut bound_fields = Vec::new();
    let mut arg_fields = Vec::new();
    let mut view_fields = Vec::new();
    let mut forwards = Vec::new();
    let mut view_forwards = Vec::new();
    let mut has_refs = false;
    let mut bound_takes = Vec::new();
    let mut dyn_takes = Vec::new();
    let mut dyn_args = Vec::new();
    let mut dyn_gives = Vec::new();
    let dynamic = quote!(::gt4rs::__private::dynamic);
    for param in params {
        let ident = Ident::new(&param.name, span);
        let name_str = &param.name;
        let local = format_ident!("arg_{}", param.name);
        let ty = quote!(#program::types::#ident);
        let take = match param.kind {
            ParamKind::Scalar => quote!(#dynamic::take_scalar(#program::NAME, source, #name_str)?),
            _ => quote!(#dynamic::take_field(#program::NAME, source, #name_str)?),
        };
        if bound.contains(&param.name) {
            bound_takes.push(match param.kind {
                ParamKind::FieldRead => quote!(#ident: ::std::sync::Arc::new(#take)),
                _ => quote!(#ident: #take),
            });
        } else {
            match param.kind {
                ParamKind::FieldRead => {
                    dyn_takes.push(quote!(let #local: #ty = #take;));
                    dyn_args.push(quote!(#ident: &#local));
                }
                ParamKind::FieldWritten => {
                    dyn_takes.push(quote!(let mut #local: #ty = #take;));
                    dyn_args.push(quote!(#ident: &mut #local));
                    dyn_gives.push(quote!(#dynamic::give_field(source, #name_str, #local)?;));
                }
                ParamKind::Scalar => {
                    dyn_takes.push(quote!(let #local: #ty = #take;));
                    dyn_args.push(quote!(#ident: #local));
                }
            }
        }
        if bound.contains(&param.name) {
            match param.kind {
                ParamKind::FieldRead => {
                    let doc = format!("`{}`: a field the program reads, shared.", param.name);
                    bound_fields.push(quote!(#[doc = #doc] pub #ident: ::std::sync::Arc<#ty>));
                    forwards.push(quote!(#ident: &*self.bound.#ident));
                    view_forwards
                        .push(quote!(#ident: ::gt4rs::view::FieldRef::of(&*self.bound.#ident)));
                }
                _ => {
                    let doc = format!("`{}`: a scalar.", param.name);
                    bound_fields.push(quote!(#[doc = #doc] pub #ident: #ty));
                    forwards.push(quote!(#ident: self.bound.#ident));
                    view_forwards.push(quote!(#ident: self.bound.#ident));
                }
            }
        } else {
            let (field, view) = match param.kind {
                ParamKind::FieldRead => {
                    has_refs = true;
                    (
                        quote!(pub #ident: &'a #ty),
                        quote!(pub #ident: ::gt4rs::view::RefOf<'a, #ty>),
                    )
                }
                ParamKind::FieldWritten => {
                    has_refs = true;
                    (
                        quote!(pub #ident: &'a mut #ty),
                        quote!(pub #ident: ::gt4rs::view::MutOf<'a, #ty>),
                    )
                }
                ParamKind::Scalar => (quote!(pub #ident: #ty), quote!(pub #ident: #ty)),
            };
            arg_fields.push(field);
            view_fields.push(view);
            forwards.push(quote!(#ident: args.#ident));
            view_forwards.push(quote!(#ident: args.#ident));
        }
    }
    let (args_decl, args_ty, views_decl, views_ty) = if has_refs {
        (
            quote!(Args<'a>),
            quote!(Args<'_>),
            quote!(Views<'a>),
            quote!(Views<'_>),
        )
    } else {
        (quote!(Args), quote!(Args), quote!(Views), quote!(Views))
    };
    let mod_doc = format!(
        "Program `{program_text}` with some arguments bound at `compile()`: see [`compile`] \
         and [`Compiled::call`]."
    );
    Ok(quote! {
        #[doc = #mod_doc]
        #[allow(non_snake_case, unused_imports, unused_variables, clippy::all)]
        #vis mod #name {
            use super::*;

            /// The program's name (its `NAME`).
            pub const NAME: &str = #program::NAME;

            /// The values bound once, at `compile()`.
            pub struct Bound {
                #( #bound_fields, )*
            }

            impl Bound {
                /// Takes every bound value from `source` by name (as `gt4rs verify` does).
                pub fn from_source(
                    source: &mut dyn #dynamic::ArgSource,
                ) -> ::core::result::Result<Bound, ::gt4rs::Error> {
                    Ok(Bound { #( #bound_takes, )* })
                }
            }

            /// The arguments of one call: the program's parameters that are not bound.
            pub struct #args_decl {
                #( #arg_fields, )*
            }

            /// The parameters that are not bound, as views of memory the caller owns (see the
            /// program's `Views`).
            pub struct #views_decl {
                #( #view_fields, )*
            }

            /// The compiled program with its bound values.
            pub struct Compiled {
                inner: #program::Compiled,
                bound: Bound,
            }

            /// Compiles the program (see its `compile`) and stores the bound values.
            pub fn compile(
                options: &::gt4rs::Options,
                bound: Bound,
            ) -> ::core::result::Result<Compiled, ::gt4rs::Error> {
                Ok(Compiled { inner: #program::compile(options)?, bound })
            }

            impl Compiled {
                /// Runs the program with the bound values and `args`.
                pub fn call(&self, args: #args_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    self.inner.call(#program::Args { #( #forwards, )* })
                }

                /// Runs the program with the bound values and the views in `args`.
                pub fn call_views(&self, args: #views_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    self.inner.call_views(#program::Views { #( #view_forwards, )* })
                }

                /// The bound values.
                pub fn bound(&self) -> &Bound {
                    &self.bound
                }

                /// The program compiled without bound values.
                pub fn program(&self) -> &#program::Compiled {
                    &self.inner
                }
            }

            impl #dynamic::DynProgram for Compiled {
                fn name(&self) -> &'static str {
                    NAME
                }
                /// The whole program's signature; the bound parameters are not taken by
                /// `call_dynamic`.
                fn signature(&self) -> ::gt4rs::Signature {
                    #program::signature()
                }
                /// Takes the parameters that are not bound from `source` by name once, calls
                /// `calls` times (timing each call), and hands the outputs back.
                fn call_dynamic_timed(
                    &self,
                    source: &mut dyn #dynamic::ArgSource,
                    calls: usize,
                ) -> ::core::result::Result<::std::vec::Vec<::std::time::Duration>, ::gt4rs::Error> {
                    #( #dyn_takes )*
                    let times = ::gt4rs::__private::dynamic::timed_calls(calls, || {
                        self.call(Args { #( #dyn_args, )* })
                    })?;
                    #( #dyn_gives )*
                    Ok(times)
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> String {
        let params = [
            ("a", ParamKind::FieldRead, false),
            ("out", ParamKind::FieldWritten, false),
            ("flag", ParamKind::Scalar, true),
            ("start", ParamKind::Scalar, false),
        ]
        .map(|(name, kind, is_static)| ParamDef {
            name: name.to_string(),
            kind,
            is_static,
            dtype: Some("f64".to_string()),
            dims: Vec::new(),
        });
        serde_json::to_string(&params).expect("serialises")
    }

    fn resume_with(bound: &str) -> String {
        let payload = params();
        let input: TokenStream =
            format!("{{ pub mod m }} {{ super::p }} {{ {bound} }} {payload:?}")
                .parse()
                .expect("tokens");
        resume(input).to_string()
    }

    #[test]
    fn bound_parameters_leave_args_and_enter_bound() {
        let out = resume_with("a, start");
        assert!(out.contains("pub struct Bound { # [doc"), "{out}");
        assert!(out.contains(":: std :: sync :: Arc < super :: super :: p :: types :: a >"));
        assert!(out.contains("pub start : super :: super :: p :: types :: start"));
        assert!(out.contains("pub out : & 'a mut super :: super :: p :: types :: out"));
        assert!(!out.contains("pub a : & 'a"), "{out}");
        assert!(
            out.contains("pub const NAME : & str = super :: super :: p :: NAME ;"),
            "{out}"
        );
    }

    #[test]
    fn written_unknown_and_repeated_names_are_errors() {
        assert!(resume_with("out").contains("is written by program"));
        assert!(resume_with("b").contains("has no parameter `b`"));
        assert!(resume_with("a, a").contains("is bound twice"));
    }

    #[test]
    fn paths_are_seen_from_one_module_deeper() {
        let path = |s: &str| path_from_inside(&syn::parse_str(s).expect("path")).to_string();
        assert_eq!(path("self::x::p"), "super :: x :: p");
        assert_eq!(path("super::p"), "super :: super :: p");
        assert_eq!(path("crate::p"), "crate :: p");
        assert_eq!(path("p"), "p");
    }
}
