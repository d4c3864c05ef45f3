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
//!
//! This is the driver only: it walks the chain and joins `frontend` to `codegen`. What the hops
//! carry (`Def`, `Env`, keys, the definition macros) is in `definitions.rs`, which both sides
//! share without depending on the driver.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{braced, Ident, ItemFn, LitStr, Path, Token};

use crate::definitions::{item_key, key_with_scalar_aliases, path_key, Env, ItemKind, Payload};
use crate::{codegen, frontend};

/// Entry point of `#[field_operator]`, `#[scan_operator]` and `#[program]`.
pub fn start(kind: ItemKind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    let key = item_key(&func.sig.ident, &item);
    let pending = match frontend::names::entity_paths(kind, &attr, &func) {
        Ok(p) => p,
        Err(e) => {
            let err = e.to_compile_error();
            if kind == ItemKind::Program {
                return err;
            }
            // A recursive operator is not collected (its callees may be waiting on it): its
            // callers learn that it has errors instead of missing its macro.
            let def = codegen::operator::emit_broken(&func, &key);
            return quote!(#err #def);
        }
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
                if let Some(payload) = payload {
                    state.resolved.push((path_key(&cur), payload));
                }
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
    /// The payloads collected so far, by path, passed on as they came.
    resolved: Vec<(String, Payload)>,
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
        let resolved = self.resolved.iter().map(|(k, v)| {
            let v = v.to_tokens();
            quote!(#k #v ;)
        });
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
        for (key, payload) in &self.resolved {
            // A broken operator is recorded too: the checker reports it where it is used.
            if let Err(e) = env.add_payload(key.clone(), payload) {
                let msg = format!("gt4rs: corrupt definition payload for `{key}`: {e}");
                return quote!(::core::compile_error!(#msg););
            }
        }
        if self.kind == ItemKind::Program {
            if let Err(e) = env.decode_operators() {
                let msg = format!("gt4rs: corrupt operator in a definition payload: {e}");
                return quote!(::core::compile_error!(#msg););
            }
        }
        if let Some(conflict) = env.offset_conflicts.first() {
            let ((one, one_route), (other, other_route)) = (&conflict.one, &conflict.other);
            return syn::Error::new(
                func.sig.ident.span(),
                format!(
                    "two different offsets named `{}` meet in `{}` (declared at {one}, {one_route}, and at \
                     {other}, {other_route}): one item names each offset once, so it cannot tell them \
                     apart; rename one of them",
                    conflict.name, func.sig.ident
                ),
            )
            .to_compile_error();
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

/// The input of `__collect!`: a state, then (after a hop) the payload of `current`.
struct Resumed {
    state: State,
    current: Option<Path>,
    payload: Option<Payload>,
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
            let v = Payload::parse(&content)?;
            content.parse::<Token![;]>()?;
            resolved.push((k.value(), v));
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
            payload = Some(Payload::parse(input)?);
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
