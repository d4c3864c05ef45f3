//! One scope for a block's values: its `let`s declared by one statement at the block's start and
//! assigned where they were.
//!
//! A fused kernel is thousands of `let`s in one block. Each `let` opens a lexical scope nested
//! in the one before, and with debuginfo LLVM walks those scopes recursively: a few thousand
//! overflow its stack (hand-written Rust does the same). Declared by one `let (a, b, …): (A,
//! B, …);` and assigned (`a = …;`), the values share one scope, and the code is the same.

use std::collections::HashSet;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::quote;

/// `stmts` with each `let name[: T] = value;` at the top level of the block declared at its
/// start and assigned in place. A `let` is left as it is where its name appears before it (it
/// may shadow an outer name read there, or repeat a name of the block), and where it is not a
/// plain binding with a value (`let … else`, patterns).
pub fn one_scope(stmts: impl IntoIterator<Item = TokenStream>) -> TokenStream {
    let tokens: Vec<TokenTree> = stmts.into_iter().flatten().collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut declared: Vec<(TokenStream, TokenStream)> = Vec::new();
    let mut body: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if starts_statement(&tokens, i) {
            if let Some(binding) = plain_let(&tokens, i) {
                let mut in_value = HashSet::new();
                note_idents(&tokens[binding.value.clone()], &mut in_value);
                if !seen.contains(&binding.name) && !in_value.contains(&binding.name) {
                    seen.extend(in_value);
                    seen.insert(binding.name.clone());
                    let name = &tokens[binding.name_at];
                    let mutable = binding.mutable.then(|| quote!(mut));
                    let ty = match &binding.ty {
                        Some(range) => tokens[range.clone()].iter().cloned().collect(),
                        None => quote!(_),
                    };
                    declared.push((quote!(#mutable #name), ty));
                    body.push(name.clone());
                    body.extend(tokens[binding.equals..binding.end].iter().cloned());
                    i = binding.end;
                    continue;
                }
            }
        }
        note_idents(std::slice::from_ref(&tokens[i]), &mut seen);
        body.push(tokens[i].clone());
        i += 1;
    }
    let body: TokenStream = body.into_iter().collect();
    if declared.is_empty() {
        return body;
    }
    let (names, types): (Vec<_>, Vec<_>) = declared.into_iter().unzip();
    quote! {
        let (#(#names,)*): (#(#types,)*);
        #body
    }
}

/// Whether a statement can start at `tokens[i]`: the first token, or one after a `;` or a
/// block (`if … { … } let …`).
fn starts_statement(tokens: &[TokenTree], i: usize) -> bool {
    match i.checked_sub(1).map(|j| &tokens[j]) {
        None => true,
        Some(TokenTree::Punct(p)) => p.as_char() == ';',
        Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::Brace,
        _ => false,
    }
}

/// A `let [mut] name [: T] = value;` of tokens `start..end` (`end` past the `;`).
struct PlainLet {
    name: String,
    name_at: usize,
    mutable: bool,
    ty: Option<std::ops::Range<usize>>,
    /// The `=`: the assignment is the name, then `equals..end`.
    equals: usize,
    value: std::ops::Range<usize>,
    end: usize,
}

fn plain_let(tokens: &[TokenTree], start: usize) -> Option<PlainLet> {
    let is_ident = |t: &TokenTree, s: &str| matches!(t, TokenTree::Ident(i) if i == s);
    let is_punct = |t: &TokenTree, c: char| matches!(t, TokenTree::Punct(p) if p.as_char() == c);
    if !is_ident(tokens.get(start)?, "let") {
        return None;
    }
    let mut at = start + 1;
    let mutable = is_ident(tokens.get(at)?, "mut");
    if mutable {
        at += 1;
    }
    let name_at = at;
    let name = match tokens.get(at)? {
        TokenTree::Ident(i) if i != "mut" && i != "ref" => i.to_string(),
        _ => return None,
    };
    at += 1;
    let mut ty = None;
    if is_punct(tokens.get(at)?, ':') {
        let from = at + 1;
        let mut to = from;
        while !is_assignment(tokens.get(to)?) {
            to += 1;
        }
        if to == from {
            return None;
        }
        ty = Some(from..to);
        at = to;
    }
    if !is_assignment(tokens.get(at)?) {
        return None;
    }
    let equals = at;
    let mut end = at + 1;
    while !is_punct(tokens.get(end)?, ';') {
        if is_ident(&tokens[end], "else") {
            return None;
        }
        end += 1;
    }
    Some(PlainLet {
        name,
        name_at,
        mutable,
        ty,
        equals,
        value: equals + 1..end,
        end: end + 1,
    })
}

/// A lone `=` (not part of `==`, `<=`, `=>` and the like).
fn is_assignment(t: &TokenTree) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == '=' && p.spacing() == Spacing::Alone)
}

fn note_idents(tokens: &[TokenTree], seen: &mut HashSet<String>) {
    for t in tokens {
        match t {
            TokenTree::Ident(i) => {
                seen.insert(i.to_string());
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                note_idents(&inner, seen);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scoped(code: &str) -> String {
        let stmts: TokenStream = code.parse().expect("test code");
        one_scope([stmts]).to_string()
    }

    fn tokens(code: &str) -> String {
        code.parse::<TokenStream>().expect("test code").to_string()
    }

    #[test]
    fn a_blocks_lets_are_declared_once_and_assigned_in_place() {
        assert_eq!(
            scoped("let a: f64 = x * 2.0; if c { f(a); } let mut b = a + 1.0; b += 1.0; let p: *mut f64 = q;"),
            tokens(
                "let (a, mut b, p,): (f64, _, *mut f64,); a = x * 2.0; if c { f(a); } \
                 b = a + 1.0; b += 1.0; p = q;"
            )
        );
    }

    #[test]
    fn lets_that_could_change_what_a_name_means_are_left_alone() {
        // A name read before its `let` (an outer binding) or in its own value, a name declared
        // twice, `let … else`, patterns, `if let` and lets inside blocks keep their form.
        let kept = [
            "let k: i64 = k + 1;",
            "f(n); let n = 3;",
            "let a = 1; let a = 2;",
            "let Some(x) = y else { return };",
            "let (x, y) = t;",
            "if let Some(x) = y { g(x); }",
            "loop { let inner = 1; }",
        ];
        for code in kept {
            let out = scoped(code);
            let hoisted = code
                .starts_with("let a = 1")
                .then(|| tokens("let (a,): (_,); a = 1; let a = 2;"));
            assert_eq!(out, hoisted.unwrap_or_else(|| tokens(code)), "{code}");
        }
    }
}
