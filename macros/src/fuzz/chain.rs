//! The chained expansion, in process: what rustc does between the macros' hops.
//!
//! An item's expansion either is its code or ends in `path! { @gt4rs_collect <state> }`; rustc
//! then expands the definition macro `path` names, which hands `<state> "<payload>"` to
//! `__collect!`. Here `path` is resolved by its last segment in a [`Registry`] of the payloads
//! the unit's items define, which is how the corpus names its items (each name once per unit).

use std::collections::HashMap;

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

use super::corpus::Macro;
use crate::{collect, entities};

/// The payload of every definition macro of a unit (its tokens as text, so that threads can
/// share it), by the name it is imported under.
pub type Registry = HashMap<String, String>;

/// More hops than any item has paths: a chain that long goes round in circles.
const MAX_HOPS: usize = 10_000;

/// How an expansion ended.
pub enum Outcome {
    /// The tokens the item finally expands to, after `hops` hops.
    Code { code: TokenStream, hops: usize },
    /// A hop to a definition macro the unit lacks: rustc's "cannot find macro" at `span`.
    Unresolved { name: String, span: Span },
}

/// Expands one macro input to its end, as rustc would.
pub fn expand(
    kind: Macro,
    attr: TokenStream,
    item: TokenStream,
    registry: &Registry,
) -> Result<Outcome, String> {
    let mut out = match kind {
        Macro::Attribute(kind) => collect::start(kind, attr, item),
        Macro::Dimensions => entities::dimensions(item),
        Macro::Offsets => entities::offsets(item),
        Macro::ScalarTypes => entities::scalar_types(item),
    };
    for hops in 0..MAX_HOPS {
        let Some((name, span, state)) = pending_hop(&out) else {
            return Ok(Outcome::Code { code: out, hops });
        };
        let Some(payload) = registry.get(&name) else {
            return Ok(Outcome::Unresolved { name, span });
        };
        let mut input = state;
        let payload: TokenStream = payload
            .parse()
            .map_err(|e| format!("the payload of `{name}` does not lex: {e}"))?;
        input.extend(payload);
        out = collect::resume(input);
    }
    Err(format!("the chain did not end after {MAX_HOPS} hops"))
}

/// `path ! { @ gt4rs_collect state… }`: the name (last segment) and span of `path`, and the
/// state.
fn pending_hop(out: &TokenStream) -> Option<(String, Span, TokenStream)> {
    let tokens: Vec<TokenTree> = out.clone().into_iter().collect();
    let [path @ .., TokenTree::Punct(bang), TokenTree::Group(body)] = tokens.as_slice() else {
        return None;
    };
    if bang.as_char() != '!' || body.delimiter() != Delimiter::Brace {
        return None;
    }
    let mut inside = body.stream().into_iter();
    let tagged = matches!(inside.next(), Some(TokenTree::Punct(p)) if p.as_char() == '@')
        && matches!(inside.next(), Some(TokenTree::Ident(i)) if i == "gt4rs_collect");
    if !tagged {
        return None;
    }
    let last = path.iter().rev().find_map(|t| match t {
        TokenTree::Ident(i) => Some(i.clone()),
        _ => None,
    })?;
    Some((last.to_string(), last.span(), inside.collect()))
}

/// The payloads `code` defines, by the name they are imported under: each hidden
/// `macro_rules!` that answers `@gt4rs_collect`, under its own name and under the names a
/// `use … as name` gives it.
pub fn definitions(code: &TokenStream, registry: &mut Registry) {
    let mut macros = Registry::new();
    let mut aliases = Vec::new();
    scan(code, &mut macros, &mut aliases);
    for (hidden, name) in aliases {
        if let Some(payload) = macros.get(&hidden) {
            registry.insert(name, payload.clone());
        }
    }
    registry.extend(macros);
}

fn scan(code: &TokenStream, macros: &mut Registry, aliases: &mut Vec<(String, String)>) {
    let tokens: Vec<TokenTree> = code.clone().into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        match (
            token,
            tokens.get(i + 1),
            tokens.get(i + 2),
            tokens.get(i + 3),
        ) {
            (
                TokenTree::Ident(kw),
                Some(TokenTree::Punct(bang)),
                Some(TokenTree::Ident(name)),
                Some(TokenTree::Group(rules)),
            ) if kw == "macro_rules" && bang.as_char() == '!' => {
                if let Some(payload) = collect_payload(&rules.stream()) {
                    macros.insert(name.to_string(), payload);
                }
            }
            (TokenTree::Ident(kw), ..) if kw == "use" => {
                let rest: Vec<&TokenTree> = tokens[i + 1..]
                    .iter()
                    .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
                    .collect();
                if let [.., TokenTree::Ident(hidden), TokenTree::Ident(as_kw), TokenTree::Ident(name)] =
                    rest.as_slice()
                {
                    if as_kw == "as" {
                        aliases.push((hidden.to_string(), name.to_string()));
                    }
                }
            }
            (TokenTree::Group(g), ..) => scan(&g.stream(), macros, aliases),
            _ => {}
        }
    }
}

/// The payload of the rule `(@ gt4rs_collect $($state:tt)*) => { … { $($state)* payload } }`.
fn collect_payload(rules: &TokenStream) -> Option<String> {
    // Rules are `(pattern) => {body};`: groups alternate, with `=>` and `;` between them.
    let groups: Vec<TokenStream> = rules
        .clone()
        .into_iter()
        .filter_map(|t| match t {
            TokenTree::Group(g) => Some(g.stream()),
            _ => None,
        })
        .collect();
    groups.chunks(2).find_map(|rule| match rule {
        [pattern, body] => {
            let mut p = pattern.clone().into_iter();
            let tagged = matches!(p.next(), Some(TokenTree::Punct(at)) if at.as_char() == '@')
                && matches!(p.next(), Some(TokenTree::Ident(i)) if i == "gt4rs_collect");
            tagged.then(|| after_state(body)).flatten()
        }
        _ => None,
    })
}

/// The tokens after `$($state)*` in the group of `tokens` that passes the state on.
fn after_state(tokens: &TokenStream) -> Option<String> {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    if let [TokenTree::Punct(dollar), TokenTree::Group(_), TokenTree::Punct(star), rest @ ..] =
        tokens.as_slice()
    {
        if dollar.as_char() == '$' && star.as_char() == '*' {
            return Some(rest.iter().cloned().collect::<TokenStream>().to_string());
        }
    }
    tokens.iter().find_map(|t| match t {
        TokenTree::Group(g) => after_state(&g.stream()),
        _ => None,
    })
}
