//! `dimensions!` and `offsets!`: marker types plus their definition macros.

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{bracketed, Ident, LitInt, Path, Token, Visibility};

use gt4rs_ir::{DimInfo, DimKind, OffsetInfo, ScalarType};

use crate::definitions::{definition_macro, item_key, offset_key, Def, Payload};

struct DimGroup {
    attrs: Vec<syn::Attribute>,
    vis: Visibility,
    names: Vec<Ident>,
    kind: DimKind,
}

impl Parse for DimGroup {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let names = Punctuated::<Ident, Token![,]>::parse_separated_nonempty(input)?;
        input.parse::<Token![:]>()?;
        let kind_ident: Ident = input.parse()?;
        let kind = match kind_ident.to_string().as_str() {
            "horizontal" => DimKind::Horizontal,
            "vertical" => DimKind::Vertical,
            "local" => DimKind::Local,
            other => {
                return Err(syn::Error::new(
                    kind_ident.span(),
                    format!("unknown dimension kind `{other}`: expected `horizontal`, `vertical` or `local`"),
                ))
            }
        };
        Ok(DimGroup {
            attrs,
            vis,
            names: names.into_iter().collect(),
            kind,
        })
    }
}

/// `dimensions! { pub Cell, Edge: horizontal; pub K: vertical; }`
pub fn dimensions(input: TokenStream) -> TokenStream {
    let groups = match Parser::parse2(Punctuated::<DimGroup, Token![;]>::parse_terminated, input) {
        Ok(g) => g,
        Err(e) => return e.to_compile_error(),
    };
    let mut out = TokenStream::new();
    for group in groups {
        for name in &group.names {
            let info = DimInfo {
                name: name.to_string(),
                kind: group.kind,
            };
            out.extend(marker_type(&group.attrs, &group.vis, name, group.kind));
            let key = item_key(name, &quote!(dimension #name));
            out.extend(definition_macro(
                &group.vis,
                name,
                &key,
                &Payload::of(&Def::Dim(info)),
            ));
        }
    }
    out
}

struct OffsetDecl {
    attrs: Vec<syn::Attribute>,
    vis: Visibility,
    name: Ident,
    from: Path,
    to: Path,
    count: LitInt,
    skip_values: bool,
}

impl Parse for OffsetDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis = input.parse()?;
        let name = input.parse()?;
        input.parse::<Token![:]>()?;
        let from = input.parse()?;
        input.parse::<Token![=>]>()?;
        let to = input.parse()?;
        let content;
        bracketed!(content in input);
        let count = content.parse()?;
        let skip_values = parse_skip_values(input)?;
        Ok(OffsetDecl {
            attrs,
            vis,
            name,
            from,
            to,
            count,
            skip_values,
        })
    }
}

/// The optional `with skip_values` after the neighbour count.
fn parse_skip_values(input: ParseStream) -> syn::Result<bool> {
    const USAGE: &str = "`E2C: Edge => Cell [2] with skip_values` declares that its tables may hold -1 (no neighbour)";
    if input.is_empty() || input.peek(Token![;]) {
        return Ok(false);
    }
    let with: Ident = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected `;` or `with skip_values` after the neighbour count: {USAGE}"),
        )
    })?;
    if with != "with" {
        return Err(syn::Error::new(
            with.span(),
            format!("expected `;` or `with skip_values` after the neighbour count, found `{with}`: {USAGE}"),
        ));
    }
    if input.is_empty() || input.peek(Token![;]) {
        return Err(syn::Error::new(
            with.span(),
            format!("`with` needs `skip_values` after it: {USAGE}"),
        ));
    }
    let what: Ident = input.parse()?;
    if what != "skip_values" {
        return Err(syn::Error::new(
            what.span(),
            format!("expected `skip_values` after `with`, found `{what}`: {USAGE}"),
        ));
    }
    Ok(true)
}

/// `offsets! { pub E2C2V: Edge => Vertex [4]; pub V2E: Vertex => Edge [6] with skip_values; }`
pub fn offsets(input: TokenStream) -> TokenStream {
    let decls = match Parser::parse2(Punctuated::<OffsetDecl, Token![;]>::parse_terminated, input) {
        Ok(d) => d,
        Err(e) => return e.to_compile_error(),
    };
    let mut out = TokenStream::new();
    for OffsetDecl {
        attrs,
        vis,
        name,
        from,
        to,
        count,
        skip_values,
    } in decls
    {
        let n: u32 = match count.base10_parse() {
            Ok(n) if n > 0 => n,
            _ => {
                return syn::Error::new(
                    count.span(),
                    "the neighbour count must be a positive integer",
                )
                .to_compile_error()
            }
        };
        let last = |p: &Path| {
            p.segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default()
        };
        let identity = offset_key(&name);
        let info = OffsetInfo {
            name: name.to_string(),
            key: identity.clone(),
            from: last(&from),
            to: last(&to),
            count: n,
            skip_values,
        };
        out.extend(marker_type(&attrs, &vis, &name, DimKind::Local));
        let count_usize = n as usize;
        out.extend(quote! {
            impl ::gt4rs::Offset for #name {
                type From = #from;
                type To = #to;
                const COUNT: usize = #count_usize;
                const KEY: &'static str = #identity;
                const SKIP_VALUES: bool = #skip_values;
            }
        });
        let key = item_key(&name, &quote!(offset #name));
        out.extend(definition_macro(
            &vis,
            &name,
            &key,
            &Payload::of(&Def::Offset(info)),
        ));
    }
    out
}

fn marker_type(
    attrs: &[syn::Attribute],
    vis: &Visibility,
    name: &Ident,
    kind: DimKind,
) -> TokenStream {
    let name_str = name.to_string();
    let kind = match kind {
        DimKind::Horizontal => quote!(Horizontal),
        DimKind::Vertical => quote!(Vertical),
        DimKind::Local => quote!(Local),
    };
    quote! {
        #(#attrs)*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #vis struct #name;
        impl ::gt4rs::Dimension for #name {
            const NAME: &'static str = #name_str;
            const KIND: ::gt4rs::DimKind = ::gt4rs::DimKind::#kind;
        }
    }
}

struct ScalarAliasDecl {
    attrs: Vec<syn::Attribute>,
    vis: Visibility,
    name: Ident,
    target: Ident,
}

impl Parse for ScalarAliasDecl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis = input.parse()?;
        let name = input.parse()?;
        input.parse::<Token![=]>()?;
        let target = input.parse()?;
        Ok(ScalarAliasDecl {
            attrs,
            vis,
            name,
            target,
        })
    }
}

/// `scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }`: a Rust type alias per name (so
/// signatures and generated `Args` use it) plus a definition macro the checker resolves.
pub fn scalar_types(input: TokenStream) -> TokenStream {
    let decls = match Parser::parse2(
        Punctuated::<ScalarAliasDecl, Token![;]>::parse_terminated,
        input,
    ) {
        Ok(d) => d,
        Err(e) => return e.to_compile_error(),
    };
    let mut out = TokenStream::new();
    for ScalarAliasDecl {
        attrs,
        vis,
        name,
        target,
    } in decls
    {
        let Some(ty) = ScalarType::from_rust_name(&target.to_string()) else {
            return syn::Error::new(
                target.span(),
                format!(
                    "`{target}` is not a scalar type: a scalar alias stands for one of `f32`, `f64`, `i32`, `i64`, `bool`"
                ),
            )
            .to_compile_error();
        };
        out.extend(quote! {
            #(#attrs)*
            #[allow(non_camel_case_types)]
            #vis type #name = #target;
        });
        let key = item_key(&name, &quote!(scalar #name = #target));
        out.extend(definition_macro(
            &vis,
            &name,
            &key.clone(),
            &Payload::of(&Def::Scalar { ty, key }),
        ));
    }
    out
}
