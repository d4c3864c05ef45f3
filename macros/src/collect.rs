//! The chained expansion that gives every operator and program the checked IR of the items it
//! mentions.
//!
//! `start` scans an item for the paths of dimensions, offsets and operators it names (in the
//! positions where the language allows them) and calls the definition macro of the first one:
//!
//! ```text
//! first_path! { @gt4rs_collect <state> }
//!   ==> ::gt4rs::__private::__collect! { <state> "<payload of first_path>" }
//!   ==> second_path! { @gt4rs_collect <state'> } ==> …
//! ```
//!
//! Each hop happens in the user's module, so every path resolves exactly as the user wrote it:
//! across modules, through `use`, and across crates. When nothing is pending, `resume` checks
//! the item against the collected definitions and emits its code.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use serde::{Deserialize, Serialize};
use syn::parse::{Parse, ParseStream};
use syn::{braced, Ident, ItemFn, LitStr, Path, Token};

use gt4rs_ir::fieldview::Bundle;
use gt4rs_ir::{DimInfo, OffsetInfo, ScalarType};

use crate::{codegen, frontend};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    FieldOperator,
    ScanOperator,
    Program,
}

impl ItemKind {
    fn keyword(self) -> &'static str {
        match self {
            ItemKind::FieldOperator => "field_operator",
            ItemKind::ScanOperator => "scan_operator",
            ItemKind::Program => "program",
        }
    }
    fn from_keyword(s: &str) -> Option<Self> {
        Some(match s {
            "field_operator" => ItemKind::FieldOperator,
            "scan_operator" => ItemKind::ScanOperator,
            "program" => ItemKind::Program,
            _ => return None,
        })
    }
}

/// What a definition macro hands over.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Def {
    Dim(DimInfo),
    Offset(OffsetInfo),
    /// A field or scan operator: its key and a bundle holding it and all it depends on.
    Operator {
        key: String,
        bundle: Bundle,
    },
    /// A scalar-type alias (`scalar_types! { pub vpfloat = f32; }`): the primitive it stands
    /// for, and the key of its declaration, which makes the items that use it distinct per
    /// declaration (one source instantiated with `vpfloat = f64` and with `vpfloat = f32`).
    Scalar {
        ty: ScalarType,
        key: String,
    },
    /// The item named here failed to compile; the message says so at the use site.
    Broken {
        name: String,
    },
}

/// The collected definitions, keyed by the path as written in the item ([`path_key`]).
#[derive(Default, Debug)]
pub struct Env {
    pub names: HashMap<String, Def>,
    /// Union of all collected bundles, dimensions and offsets.
    pub bundle: Bundle,
}

impl Env {
    pub fn lookup(&self, path: &Path) -> Option<&Def> {
        self.names.get(&path_key(path))
    }

    fn add(&mut self, key: String, def: Def) {
        match &def {
            Def::Dim(d) => {
                if self.bundle.dim(&d.name).is_none() {
                    self.bundle.dims.push(d.clone());
                }
            }
            Def::Offset(o) => {
                if self.bundle.offset(&o.name).is_none() {
                    self.bundle.offsets.push(o.clone());
                }
                // An offset is also the local dimension indexing its neighbours.
                if self.bundle.dim(&o.name).is_none() {
                    let local = DimInfo {
                        name: o.name.clone(),
                        kind: gt4rs_ir::DimKind::Local,
                    };
                    self.bundle.dims.push(local);
                }
            }
            Def::Operator { bundle, .. } => self.bundle.merge(bundle),
            Def::Scalar { .. } | Def::Broken { .. } => {}
        }
        self.names.insert(key, def);
    }
}

/// The identity of a path as written: its tokens without whitespace (`crate::ops::lap`).
pub fn path_key(path: &Path) -> String {
    path.to_token_stream()
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// A key unique to this item: its name plus a hash of its location and tokens.
pub fn item_key(name: &Ident, item: &TokenStream) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    if proc_macro::is_available() {
        let span = proc_macro::Span::call_site();
        span.file().hash(&mut hasher);
        span.line().hash(&mut hasher);
        span.column().hash(&mut hasher);
    }
    item.to_string().hash(&mut hasher);
    format!("{}_{:016x}", name, hasher.finish())
}

/// Entry point of `#[field_operator]`, `#[scan_operator]` and `#[program]`.
pub fn start(kind: ItemKind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    let key = item_key(&func.sig.ident, &item);
    let pending = match crate::frontend::names::entity_paths(kind, &attr, &func) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    let state = State {
        kind,
        attr,
        key,
        pending,
        resolved: Vec::new(),
        item,
    };
    state.advance()
}

/// Entry point of `__collect!`: one more definition has arrived.
pub fn resume(input: TokenStream) -> TokenStream {
    match syn::parse2::<Resumed>(input) {
        Ok(Resumed {
            state,
            current,
            payload,
        }) => {
            let mut state = state;
            if let Some(cur) = current {
                state.resolved.push((
                    path_key(&cur),
                    payload.map(|p| p.value()).unwrap_or_default(),
                ));
            }
            state.advance()
        }
        Err(e) => e.to_compile_error(),
    }
}

struct State {
    kind: ItemKind,
    attr: TokenStream,
    key: String,
    pending: Vec<Path>,
    resolved: Vec<(String, String)>,
    item: TokenStream,
}

impl State {
    /// Calls the next definition macro, or finishes when none is pending.
    fn advance(mut self) -> TokenStream {
        if self.pending.is_empty() {
            return self.finish();
        }
        let next = self.pending.remove(0);
        let state = self.to_tokens_with_current(&next);
        quote!( #next ! { @gt4rs_collect #state } )
    }

    fn to_tokens_with_current(&self, current: &Path) -> TokenStream {
        let kind = Ident::new(self.kind.keyword(), Span::call_site());
        let attr = &self.attr;
        let key = &self.key;
        let pending = &self.pending;
        let resolved = self.resolved.iter().map(|(k, v)| quote!(#k #v ;));
        let item = &self.item;
        quote! {
            #kind { #attr }
            #key
            { #( #pending ; )* }
            { #( #resolved )* }
            { #item }
            { #current }
        }
    }

    fn finish(mut self) -> TokenStream {
        let func: ItemFn = match syn::parse2(self.item.clone()) {
            Ok(f) => f,
            Err(e) => return e.to_compile_error(),
        };
        let mut env = Env::default();
        for (key, json) in &self.resolved {
            // A broken operator is recorded too: the checker reports it where it is used.
            match serde_json::from_str::<Def>(json) {
                Ok(def) => env.add(key.clone(), def),
                Err(e) => {
                    let msg = format!("gt4rs: corrupt definition payload for `{key}`: {e}");
                    return quote!(::core::compile_error!(#msg););
                }
            }
        }
        self.key = key_with_scalar_aliases(&self.key, &env);
        match self.kind {
            ItemKind::FieldOperator | ItemKind::ScanOperator => {
                match frontend::check_operator(self.kind, &self.attr, &func, &env, &self.key) {
                    Ok(op) => codegen::operator::emit(&func, &op, &env),
                    Err(err) => {
                        let def = codegen::operator::emit_broken(&func, &self.key);
                        let err = err.to_compile_error();
                        quote!(#err #def)
                    }
                }
            }
            ItemKind::Program => match frontend::check_program(&self.attr, &func, &env) {
                Ok(program) => codegen::program::emit(&func, &program),
                Err(err) => err.to_compile_error(),
            },
        }
    }
}

/// The item key, extended by the declarations of the scalar aliases it uses.
///
/// One source included in two modules, each with its own `scalar_types!`, yields items with
/// equal tokens and locations; the aliases' declarations tell them apart, so their exported
/// definition macros do not clash.
fn key_with_scalar_aliases(key: &str, env: &Env) -> String {
    let mut alias_keys: Vec<&str> = env
        .names
        .values()
        .filter_map(|def| match def {
            Def::Scalar { key, .. } => Some(key.as_str()),
            _ => None,
        })
        .collect();
    if alias_keys.is_empty() {
        return key.to_string();
    }
    alias_keys.sort_unstable();
    alias_keys.dedup();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    alias_keys.hash(&mut hasher);
    format!("{key}_{:016x}", hasher.finish())
}

/// The input of `__collect!`: a state, then (after a hop) the payload of `current`.
struct Resumed {
    state: State,
    current: Option<Path>,
    payload: Option<LitStr>,
}

impl Parse for Resumed {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let kind_ident: Ident = input.parse()?;
        let kind = ItemKind::from_keyword(&kind_ident.to_string())
            .ok_or_else(|| syn::Error::new(kind_ident.span(), "gt4rs: unknown item kind"))?;
        let content;
        braced!(content in input);
        let attr: TokenStream = content.parse()?;
        let key: LitStr = input.parse()?;
        let content;
        braced!(content in input);
        let mut pending = Vec::new();
        while !content.is_empty() {
            pending.push(content.parse::<Path>()?);
            content.parse::<Token![;]>()?;
        }
        let content;
        braced!(content in input);
        let mut resolved = Vec::new();
        while !content.is_empty() {
            let k: LitStr = content.parse()?;
            let v: LitStr = content.parse()?;
            content.parse::<Token![;]>()?;
            resolved.push((k.value(), v.value()));
        }
        let content;
        braced!(content in input);
        let item: TokenStream = content.parse()?;
        let mut current = None;
        let mut payload = None;
        if !input.is_empty() {
            let content;
            braced!(content in input);
            current = Some(content.parse::<Path>()?);
            payload = Some(input.parse::<LitStr>()?);
        }
        Ok(Resumed {
            state: State {
                kind,
                attr,
                key: key.value(),
                pending,
                resolved,
                item,
            },
            current,
            payload,
        })
    }
}

/// The hidden definition macro of an item: `name! { @gt4rs_collect … }` appends `def`.
///
/// Public items get `#[macro_export]` (so other crates reach them) and a `pub use` under the
/// item's own name; other items a `use` with the item's visibility.
pub fn definition_macro(vis: &syn::Visibility, name: &Ident, key: &str, def: &Def) -> TokenStream {
    let payload = serde_json::to_string(def).expect("definitions serialise");
    let hidden = format_ident!("__gt4rs_def_{}", sanitize(key));
    let export = matches!(vis, syn::Visibility::Public(_)).then(|| quote!(#[macro_export]));
    quote! {
        #[doc(hidden)]
        #export
        macro_rules! #hidden {
            (@gt4rs_collect $($state:tt)*) => {
                ::gt4rs::__private::__collect! { $($state)* #payload }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #hidden as #name;
    }
}

fn sanitize(key: &str) -> String {
    key.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
