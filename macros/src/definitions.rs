//! What items hand each other: the definitions a definition macro carries ([`Def`]), the
//! environment they are collected into ([`Env`]), the keys that name items and paths, and the
//! hidden definition macros themselves.
//!
//! The checker (`frontend`) reads this vocabulary, the emitters (`codegen`, `entities`) write
//! it, and the driver (`collect`) carries it from one item to the next. It is a module of its
//! own so that each of them depends on it alone: neither `frontend` nor `codegen` needs the
//! driver, and this module needs neither of them.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use serde::{Deserialize, Serialize};
use syn::{Ident, Path, Visibility};

use gt4rs_ir::fieldview::Bundle;
use gt4rs_ir::{stack, DimInfo, OffsetInfo, ScalarType};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    FieldOperator,
    ScanOperator,
    Program,
}

impl ItemKind {
    /// The attribute's name, which also stands for the kind in the driver's state.
    pub fn keyword(self) -> &'static str {
        match self {
            ItemKind::FieldOperator => "field_operator",
            ItemKind::ScanOperator => "scan_operator",
            ItemKind::Program => "program",
        }
    }

    pub fn from_keyword(s: &str) -> Option<Self> {
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
    /// A program (which answers an item that collects it as if it were an operator, so that
    /// the item can say that programs are not called).
    Program {
        name: String,
    },
}

/// A definition as its macro hands it over: the JSON of its [`Def`] and, for an operator, every
/// operator of its bundle as a JSON literal of its own, by key (the `Def`'s bundle then holds
/// none). An operator's payload holds every operator it calls, transitively, so a chain of `n`
/// operators carries `n²/2` operators in all; kept as literal tokens, an item copies the ones it
/// does not look at (rustc hands them on as interned symbols) and decodes only those it needs:
/// an operator its direct callees, a program all. Decoding every one at every item made a
/// chain's expansion quadratic in the IR's size (docs/performance.md, *Build time*).
#[derive(Clone, Debug)]
pub struct Payload {
    pub def: Literal,
    pub operators: Vec<(String, Literal)>,
}

impl Payload {
    /// The payload of a definition without operators of its own to hand on.
    pub fn of(def: &Def) -> Self {
        Payload {
            def: Literal::string(&serialise(def)),
            operators: Vec::new(),
        }
    }

    /// `"<def>" [ "key" "<operator>" … ]`.
    pub fn to_tokens(&self) -> TokenStream {
        let def = &self.def;
        let operators = self.operators.iter().map(|(key, op)| quote!(#key #op));
        quote!( #def [ #( #operators )* ] )
    }

    /// Reads what [`Payload::to_tokens`] wrote.
    pub fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let def: Literal = input.parse()?;
        let content;
        syn::bracketed!(content in input);
        let mut operators = Vec::new();
        while !content.is_empty() {
            let key: syn::LitStr = content.parse()?;
            let op: Literal = content.parse()?;
            operators.push((key.value(), op));
        }
        Ok(Payload { def, operators })
    }
}

/// The text of a string literal of a payload.
pub fn literal_text(literal: &Literal) -> Result<String, String> {
    match syn::Lit::new(literal.clone()) {
        syn::Lit::Str(s) => Ok(s.value()),
        _ => Err(format!("not a string literal: {literal}")),
    }
}

/// The collected definitions, keyed by the path as written in the item ([`path_key`]).
#[derive(Default, Debug)]
pub struct Env {
    pub names: HashMap<String, Def>,
    /// Union of all collected bundles, dimensions and offsets.
    pub bundle: Bundle,
    /// Two different offset declarations sharing one name: the item's IR names offsets by
    /// name, so it could not tell them apart.
    pub offset_conflicts: Vec<OffsetConflict>,
    /// How each offset declaration (by [`OffsetInfo::declared_at`]) first reached the item:
    /// named by a path of its own, or through an operator it calls.
    offset_routes: HashMap<String, String>,
    /// Every operator the collected operators' payloads carry, still as JSON literals, by key
    /// (each once, in the order they came): handed on by an operator's payload, decoded into
    /// [`Env::bundle`] by a program ([`Env::decode_operators`]).
    pub operators: Vec<(String, Literal)>,
    operator_keys: std::collections::HashSet<String>,
}

/// Two offset declarations of one name that meet in one item.
#[derive(Debug, PartialEq)]
pub struct OffsetConflict {
    pub name: String,
    /// Each declaration's place and how it reached the item: "named `coarse::E2C`" or
    /// "through `fine::second`".
    pub one: (String, String),
    pub other: (String, String),
}

impl Env {
    pub fn lookup(&self, path: &Path) -> Option<&Def> {
        self.names.get(&path_key(path))
    }

    /// Adds the definition `payload` carries under `key`. An operator's own IR is decoded
    /// (the item may call it); the other operators of its payload are kept as they came.
    pub fn add_payload(&mut self, key: String, payload: &Payload) -> Result<(), String> {
        let text = literal_text(&payload.def)?;
        let mut def = stack::from_json::<Def>(&text).map_err(|e| e.to_string())?;
        // The head carries no operators (`codegen::operator::emit`): the operator's own comes
        // from the list.
        if let Def::Operator { key: own, bundle } = &mut def {
            if let Some((_, op)) = payload.operators.iter().find(|(k, _)| k == own) {
                let text = literal_text(op)?;
                bundle
                    .operators
                    .push(stack::from_json(&text).map_err(|e| e.to_string())?);
            }
        }
        for (k, op) in &payload.operators {
            if self.operator_keys.insert(k.clone()) {
                self.operators.push((k.clone(), op.clone()));
            }
        }
        self.add(key, def);
        Ok(())
    }

    /// Decodes every operator the payloads carried into [`Env::bundle`]: what a program
    /// needs to lower its calls.
    pub fn decode_operators(&mut self) -> Result<(), String> {
        for (key, op) in &self.operators {
            if self.bundle.operator(key).is_none() {
                let text = literal_text(op)?;
                let op = stack::from_json(&text).map_err(|e| format!("`{key}`: {e}"))?;
                self.bundle.operators.push(op);
            }
        }
        Ok(())
    }

    pub fn add(&mut self, key: String, def: Def) {
        let incoming: &[OffsetInfo] = match &def {
            Def::Offset(o) => std::slice::from_ref(o),
            Def::Operator { bundle, .. } => &bundle.offsets,
            _ => &[],
        };
        let route = match &def {
            Def::Operator { .. } => format!("through `{key}`"),
            _ => format!("named `{key}`"),
        };
        for o in incoming {
            self.offset_routes
                .entry(o.declared_at().to_string())
                .or_insert_with(|| route.clone());
        }
        for o in incoming {
            if let Some(present) = self.bundle.conflicting_offset(o) {
                let place = |at: &str| {
                    let route = self.offset_routes.get(at).cloned().unwrap_or_default();
                    (at.to_string(), route)
                };
                let conflict = OffsetConflict {
                    name: o.name.clone(),
                    one: place(present.declared_at()),
                    other: place(o.declared_at()),
                };
                if !self.offset_conflicts.contains(&conflict) {
                    self.offset_conflicts.push(conflict);
                }
            }
        }
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
            Def::Scalar { .. } | Def::Broken { .. } | Def::Program { .. } => {}
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

/// A hash of the macro call's location and `text`: equal names in different places, or in one
/// place with different contents, get different definition macros.
pub fn location_hash(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    if proc_macro::is_available() {
        let span = proc_macro::Span::call_site();
        span.file().hash(&mut hasher);
        span.line().hash(&mut hasher);
        span.column().hash(&mut hasher);
    }
    text.hash(&mut hasher);
    hasher.finish()
}

/// The identity of an offset declaration: its name, the crate and the place of the
/// `offsets!` call (`E2C@src/grid.rs:12:5 in crate my_crate`). Readable, since messages about tables
/// bound to the wrong declaration show it; the crate tells apart equal paths in two crates.
pub fn offset_key(name: &Ident) -> String {
    if !proc_macro::is_available() {
        return name.to_string();
    }
    let span = name.span().unwrap();
    let krate = std::env::var("CARGO_CRATE_NAME").unwrap_or_default();
    format!(
        "{name}@{}:{}:{} in crate {krate}",
        span.file(),
        span.line(),
        span.column()
    )
}

/// A key unique to this item: its name plus a hash of its location and tokens.
pub fn item_key(name: &Ident, item: &TokenStream) -> String {
    format!("{}_{:016x}", name, location_hash(&item.to_string()))
}

/// The item key, extended by the declarations of the scalar aliases it uses.
///
/// One source included in two modules, each with its own `scalar_types!`, yields items with
/// equal tokens and locations; the aliases' declarations tell them apart, so their exported
/// definition macros do not clash.
pub fn key_with_scalar_aliases(key: &str, env: &Env) -> String {
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

/// The chained expansion a definition macro answers: the tag its callers put first, and the
/// proc macro its payload goes on to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    /// `name! { @gt4rs_collect … }` ==> `__collect! { … "<Def>" }`: an item gathering the
    /// definitions it mentions.
    Collect,
    /// `name! { @gt4rs_bind … }` ==> `__bind! { … "<parameters>" }`: `bind!` learning a
    /// program's parameters.
    Bind,
    /// `name! { @gt4rs_export … }` ==> `__export_c! { … "<parameters>" }`: `export_c!`
    /// learning a program's parameters (a program's macro answers it with the payload of
    /// [`Chain::Bind`]).
    Export,
}

impl Chain {
    fn tag(self) -> Ident {
        let tag = match self {
            Chain::Collect => "gt4rs_collect",
            Chain::Bind => "gt4rs_bind",
            Chain::Export => "gt4rs_export",
        };
        Ident::new(tag, Span::call_site())
    }

    fn continuation(self) -> Ident {
        let continuation = match self {
            Chain::Collect => "__collect",
            Chain::Bind => "__bind",
            Chain::Export => "__export_c",
        };
        Ident::new(continuation, Span::call_site())
    }
}

/// A hidden definition macro `hidden` that appends `payload` on the way to `chain`'s
/// continuation, imported as `name` in the macro namespace.
///
/// Public items get `#[macro_export]` (so other crates reach them) and a `pub use` under the
/// item's own name. Other items get a macro named `name` itself, in a hidden module `hidden`
/// of its own (so its textual scope ends there), imported with the item's visibility: a use
/// where the item is private is refused by rustc naming the item and pointing at it, not at a
/// hidden name.
///
/// A program's macro (the `bind!` chain) also answers an item that collects it as an operator
/// with [`Def::Program`], so that the item reports that programs are not called, and
/// `export_c!` with the same parameters as `bind!`.
pub fn hidden_definition_macro(
    vis: &Visibility,
    name: &Ident,
    hidden: &Ident,
    chain: Chain,
    payload: TokenStream,
) -> TokenStream {
    let tag = chain.tag();
    let continuation = chain.continuation();
    let collected_as_operator = (chain == Chain::Bind).then(|| {
        let collect = Chain::Collect;
        let (tag, continuation) = (collect.tag(), collect.continuation());
        let program = Payload::of(&Def::Program {
            name: name.to_string(),
        })
        .to_tokens();
        let export = Chain::Export;
        let (export_tag, export_continuation) = (export.tag(), export.continuation());
        quote! {
            (@ #tag $($state:tt)*) => {
                ::gt4rs::__private::#continuation! { $($state)* #program }
            };
            (@ #export_tag $($state:tt)*) => {
                ::gt4rs::__private::#export_continuation! { $($state)* #payload }
            };
        }
    });
    let rules = quote! {
        (@ #tag $($state:tt)*) => {
            ::gt4rs::__private::#continuation! { $($state)* #payload }
        };
        #collected_as_operator
    };
    if matches!(vis, Visibility::Public(_)) {
        return quote! {
            #[doc(hidden)]
            #[macro_export]
            macro_rules! #hidden { #rules }
            #[doc(hidden)]
            #[allow(unused_imports)]
            #vis use #hidden as #name;
        };
    }
    // At the item's name: rustc's notes on a refused import point at the item.
    let hidden = Ident::new(&hidden.to_string(), name.span());
    quote_spanned! {name.span()=>
        #[doc(hidden)]
        #[allow(non_snake_case)]
        mod #hidden {
            #[allow(unused_macros)]
            macro_rules! #name { #rules }
            #[allow(unused_imports)]
            pub(crate) use #name;
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #hidden::#name;
    }
}

/// An operator as JSON, for a payload's list of operators.
pub fn serialise_operator(op: &gt4rs_ir::fieldview::Operator) -> String {
    // As for a `Def`: nothing in an operator fails to serialise.
    serde_json::to_string(op).unwrap_or_default()
}

/// A definition as JSON.
pub fn serialise(def: &Def) -> String {
    // Nothing in a `Def` fails to serialise: no maps, only strings and numbers as leaves.
    serde_json::to_string(def).unwrap_or_default()
}

/// The definition macro of an item: `name! { @gt4rs_collect … }` appends `payload`.
pub fn definition_macro(
    vis: &Visibility,
    name: &Ident,
    key: &str,
    payload: &Payload,
) -> TokenStream {
    let hidden = format_ident!("__gt4rs_def_{}", sanitize(key));
    hidden_definition_macro(vis, name, &hidden, Chain::Collect, payload.to_tokens())
}

/// `key` as part of an identifier: a raw name's `r#` and anything else not allowed become `_`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_conflict_says_how_each_declaration_came() {
        let e2c = |place: &str| OffsetInfo {
            name: "E2C".into(),
            key: format!("E2C@{place}"),
            from: "Edge".into(),
            to: "Cell".into(),
            count: 2,
            skip_values: false,
        };
        let mut env = Env::default();
        env.add("coarse::E2C".into(), Def::Offset(e2c("a.rs:1:1")));
        let bundle = Bundle {
            offsets: vec![e2c("b.rs:2:2")],
            ..Bundle::default()
        };
        let key = "op_0".to_string();
        env.add("fine::op".into(), Def::Operator { key, bundle });
        assert_eq!(
            env.offset_conflicts,
            vec![OffsetConflict {
                name: "E2C".into(),
                one: ("a.rs:1:1".into(), "named `coarse::E2C`".into()),
                other: ("b.rs:2:2".into(), "through `fine::op`".into()),
            }]
        );
    }

    #[test]
    fn each_chain_hands_its_payload_to_its_own_continuation() {
        let vis: Visibility = syn::parse_str("pub").expect("visibility");
        let name = format_ident!("lap");
        let hidden = format_ident!("__gt4rs_def_lap");
        let expected = [
            (Chain::Collect, "gt4rs_collect", "__collect"),
            (Chain::Bind, "gt4rs_bind", "__bind"),
        ];
        for (chain, tag, continuation) in expected {
            let out =
                hidden_definition_macro(&vis, &name, &hidden, chain, quote!("{}")).to_string();
            let arm = format!(
                "(@ {tag} $ ($ state : tt) *) => {{ :: gt4rs :: __private :: {continuation} ! \
                 {{ $ ($ state) * \"{{}}\" }} }} ;"
            );
            assert!(out.contains(&arm), "{out}");
            assert!(out.contains("# [macro_export]"), "{out}");
            assert!(out.contains("pub use __gt4rs_def_lap as lap ;"), "{out}");
        }
    }
}
