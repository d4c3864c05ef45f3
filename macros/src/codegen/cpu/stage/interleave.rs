//! Scans over several columns side by side.
//!
//! A scan's level `k` needs its carry from level `k - 1`: a column's levels form one chain of
//! dependent operations (the forward sweep of a tridiagonal solve divides by a value computed
//! from the previous level's quotient), so one column at a time runs at the latency of that
//! chain, not at the machine's throughput. Walking [`COLUMNS`] columns level by level, each
//! level of each column in turn, gives the core independent chains to overlap.
//!
//! The interleaved loop is made from the tokens of the one-column point body the emitter
//! already builds (its values declared once per block by [`super::scope::one_scope`]): the
//! statements before the level loop (the column's values, its output bases, the carries'
//! initial values) are copied once per column and the level loop's body once per column inside
//! one level loop, each copy's names renamed apart, for scans of at most [`MAX_NODES`] nodes.
//! Points that do not fill a group, a group one of whose columns fails a check before its
//! levels (the group stops there), and every stage whose levels could fail other than by an
//! undefined write (a read outside a field) take the one-column loop.

use std::collections::HashSet;

use proc_macro2::{Delimiter, Group, Ident, Spacing, TokenStream, TokenTree};
use quote::{format_ident, quote};

/// The columns a scan walks side by side: enough independent chains to cover a division's
/// latency on current cores, few enough that their values mostly stay in registers.
pub const COLUMNS: usize = 4;

/// The most nodes a scan stage may have to walk its columns side by side. Beyond it a level's
/// own work already overlaps the chain, and four copies of it keep more values live than the
/// registers hold: ICON4Py's fused solver steps (a forward scan of some 180 nodes reading 44
/// columns) took 126–155 → 160–187 ms at R2B5 side by side, while the forward sweep alone (49
/// nodes) gained 12–17 % (docs/performance.md).
pub const MAX_NODES: usize = 64;

/// The loop over a tile's points `lo..hi` in groups of [`COLUMNS`] columns, leaving the first
/// point no group took in `first`; `None` where the point body does not have the shape this
/// needs (its values declared by `one_scope`, then the level loop last, no early exit).
pub fn interleaved_columns(
    point_body: &TokenStream,
    undefined_writes_only: bool,
) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = point_body.clone().into_iter().collect();
    let for_at = tokens.iter().rposition(|t| is_ident(t, "for"))?;
    let (prelude, level_loop) = tokens.split_at(for_at);
    // A column's checks (a table row outside its table) leave the group: its points then walk
    // one column at a time, which reports the failure where it did. An odometer over several
    // horizontal dimensions, advanced by each column's copy, would be left too far on.
    let prelude_exits = exits_early(prelude);
    let odometer = prelude
        .windows(2)
        .any(|w| matches!((&w[0], &w[1]), (TokenTree::Punct(a), TokenTree::Punct(b)) if a.as_char() == '+' && b.as_char() == '='));
    let prelude: Vec<TokenTree> = left_for_one_column(prelude.iter().cloned().collect())
        .into_iter()
        .collect();
    if exits_early(&prelude) || (prelude_exits && odometer) {
        return None;
    }
    // `for k in <range> { <body> }`, nothing after it.
    let body = match level_loop.last()? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => g.stream(),
        _ => return None,
    };
    let header: TokenStream = level_loop[..level_loop.len() - 1].iter().cloned().collect();
    if exits_early(&level_loop[..level_loop.len() - 1]) {
        return None;
    }
    if !is_ident(level_loop.get(1)?, "k") || !is_ident(level_loop.get(2)?, "in") {
        return None;
    }
    let mut names = declared_names(&prelude)?;
    let body_tokens: Vec<TokenTree> = body.clone().into_iter().collect();
    names.extend(hoisted_names(&body_tokens));
    names.insert("p".to_string());
    let mut preludes = Vec::with_capacity(COLUMNS);
    let mut bodies = Vec::with_capacity(COLUMNS);
    for w in 0..COLUMNS {
        let suffix = format!("_c{w}");
        let point = format_ident!("p{}", suffix);
        let failed = format_ident!("failed{}", suffix);
        let body = renamed(body.clone(), &names, &suffix);
        let body = if undefined_writes_only {
            recorded_once(body, &failed)
        } else {
            body
        };
        if exits_early(&body.clone().into_iter().collect::<Vec<_>>()) {
            return None;
        }
        preludes.push(quote! {
            let #point: usize = p + #w;
            let mut #failed = false;
        });
        preludes.push(renamed(prelude.iter().cloned().collect(), &names, &suffix));
        bodies.push(body);
    }
    Some(quote! {
        let mut first = lo;
        while first + #COLUMNS <= hi {
            let p = first;
            let grouped: bool = 'group: {
                #(#preludes)*
                #header {
                    #(#bodies)*
                }
                true
            };
            if !grouped {
                break;
            }
            first += #COLUMNS;
        }
    })
}

/// The statements before the level loop with each `continue 'points` made `break 'group
/// false`: the group stops before any level runs, and its points walk one column at a time
/// (the failure is recorded again there, at the same point).
fn left_for_one_column(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let exit = is_ident(&tokens[i], "continue")
            && matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '\'')
            && tokens.get(i + 2).is_some_and(|t| is_ident(t, "points"));
        if exit {
            out.extend(quote!(break 'group false));
            i += 3;
            continue;
        }
        out.push(match &tokens[i] {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), left_for_one_column(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}

/// The level loop's body with each undefined write's exit, `if c { err.record(…); continue
/// 'points; }`, made `if !failed && (c) { err.record(…); failed = true; }`: the column goes on
/// (its values are computed whatever they are, and the call fails), but records only its first
/// failure in scan order, the one the one-column loop stops at. Blocks are walked too (a scan
/// carrying values of the level before has its first level's statements in one branch and the
/// others' in another).
fn recorded_once(body: TokenStream, failed: &Ident) -> TokenStream {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if is_ident(&tokens[i], "if") {
            let block = (i + 1..tokens.len()).find(
                |&j| matches!(&tokens[j], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace),
            );
            if let Some(block) = block {
                let TokenTree::Group(g) = &tokens[block] else {
                    unreachable!("found as a group");
                };
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let n = inner.len();
                let exits = n >= 4
                    && is_ident(&inner[n - 4], "continue")
                    && matches!(&inner[n - 3], TokenTree::Punct(p) if p.as_char() == '\'')
                    && is_ident(&inner[n - 2], "points")
                    && matches!(&inner[n - 1], TokenTree::Punct(p) if p.as_char() == ';');
                if exits {
                    let cond: TokenStream = tokens[i + 1..block].iter().cloned().collect();
                    let record: TokenStream = inner[..n - 4].iter().cloned().collect();
                    out.extend(quote! {
                        if !#failed && (#cond) {
                            #record
                            #failed = true;
                        }
                    });
                    i = block + 1;
                    continue;
                }
            }
        }
        out.push(match &tokens[i] {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                let mut inner = Group::new(g.delimiter(), recorded_once(g.stream(), failed));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other.clone(),
        });
        i += 1;
    }
    out.into_iter().collect()
}

fn is_ident(t: &TokenTree, s: &str) -> bool {
    matches!(t, TokenTree::Ident(i) if i == s)
}

/// Whether the tokens hold a way out of the point before its end (an error's `continue
/// 'points`, a `break` or a `return`): a group's columns would then stop at different points
/// than one column at a time.
fn exits_early(tokens: &[TokenTree]) -> bool {
    tokens.iter().enumerate().any(|(i, t)| match t {
        // The group's own way out (`left_for_one_column`).
        TokenTree::Ident(b) if b == "break" => !matches!(
            (tokens.get(i + 1), tokens.get(i + 2)),
            (Some(TokenTree::Punct(p)), Some(TokenTree::Ident(g))) if p.as_char() == '\'' && g == "group"
        ),
        TokenTree::Ident(i) => i == "continue" || i == "return",
        TokenTree::Punct(p) if p.as_char() == '\'' => {
            !matches!(tokens.get(i + 1), Some(TokenTree::Ident(g)) if g == "group")
        }
        TokenTree::Punct(p) => p.as_char() == '?',
        TokenTree::Group(g) => exits_early(&g.stream().into_iter().collect::<Vec<_>>()),
        _ => false,
    })
}

/// The names the statements before the level loop declare: `one_scope`'s declarations
/// (`let (a, mut b, …): (A, B, …);`), each copy's own once renamed; `None` if another `let`
/// binds a name outside them (`let x = f(x);` of a declared `x` is renamed with it), which a
/// later column's copy would shadow before the level loop reads it.
fn declared_names(tokens: &[TokenTree]) -> Option<HashSet<String>> {
    let lets: Vec<usize> = (0..tokens.len())
        .filter(|&i| is_ident(&tokens[i], "let"))
        .collect();
    let names: HashSet<String> = lets
        .iter()
        .filter_map(|&i| declaration(tokens, i))
        .flatten()
        .collect();
    // A `let` inside a block (a branch) is that block's own.
    let others_renamed = lets.iter().all(|&i| {
        declaration(tokens, i).is_some()
            || match (tokens.get(i + 1), tokens.get(i + 2)) {
                (Some(TokenTree::Ident(m)), Some(TokenTree::Ident(name))) if m == "mut" => {
                    names.contains(&name.to_string())
                }
                (Some(TokenTree::Ident(name)), _) => names.contains(&name.to_string()),
                _ => false,
            }
    });
    others_renamed.then_some(names)
}

/// The names of `one_scope`'s declarations at the top level of a level loop's body (its other
/// `let`s are statements of one level, which the next column's copy may shadow).
fn hoisted_names(tokens: &[TokenTree]) -> HashSet<String> {
    (0..tokens.len())
        .filter(|&i| is_ident(&tokens[i], "let"))
        .filter_map(|i| declaration(tokens, i))
        .flatten()
        .collect()
}

/// The names of `let (a, mut b, …): (A, B, …);` at `tokens[at]`, the form `one_scope` declares
/// a block's values in.
fn declaration(tokens: &[TokenTree], at: usize) -> Option<Vec<String>> {
    let names = match tokens.get(at + 1)? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => g.stream(),
        _ => return None,
    };
    let colon = matches!(tokens.get(at + 2)?, TokenTree::Punct(p) if p.as_char() == ':');
    let typed = matches!(tokens.get(at + 3)?, TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis);
    let ends = matches!(tokens.get(at + 4)?, TokenTree::Punct(p) if p.as_char() == ';');
    if !(colon && typed && ends) {
        return None;
    }
    Some(
        names
            .into_iter()
            .filter_map(|t| match t {
                TokenTree::Ident(i) if i != "mut" => Some(i.to_string()),
                _ => None,
            })
            .collect(),
    )
}

/// `tokens` with each identifier of `names` renamed `<name><suffix>`, except after `.` (a
/// field or method) and `::` (a path).
fn renamed(tokens: TokenStream, names: &HashSet<String>, suffix: &str) -> TokenStream {
    let mut out: Vec<TokenTree> = Vec::new();
    for t in tokens {
        let after_dot_or_path = match out.as_slice() {
            [.., TokenTree::Punct(a), TokenTree::Punct(b)]
                if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':' =>
            {
                true
            }
            [.., TokenTree::Punct(p)] => p.as_char() == '.',
            _ => false,
        };
        out.push(match t {
            TokenTree::Ident(i) if !after_dot_or_path && names.contains(&i.to_string()) => {
                TokenTree::Ident(Ident::new(&format!("{i}{suffix}"), i.span()))
            }
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), renamed(g.stream(), names, suffix));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other,
        });
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scans_columns_are_copied_apart_and_walked_level_by_level() {
        let body: TokenStream = "let (i0, b, mut c0): (i64, *mut f64, f64); i0 = lo0 + p as i64; \
             b = base(i0); c0 = init; \
             for k in klo..khi { let (v1,): (f64,); v1 = load(b, k) / c0; c0 = v1; \
             f(S { c: b, d: x.b }, m::b(i0)); }"
            .parse()
            .expect("test code");
        let code = interleaved_columns(&body, true)
            .expect("interleaves")
            .to_string();
        for w in 0..COLUMNS {
            assert!(
                code.contains(&format!("let p_c{w} : usize = p + {w}usize")),
                "{code}"
            );
            assert!(
                code.contains(&format!("i0_c{w} = lo0 + p_c{w} as i64")),
                "{code}"
            );
            assert!(
                code.contains(&format!("v1_c{w} = load (b_c{w} , k) / c0_c{w}")),
                "{code}"
            );
            // A struct field's value is renamed, a field or a path segment of the name is not.
            assert!(
                code.contains(&format!("S {{ c : b_c{w} , d : x . b }}")),
                "{code}"
            );
            assert!(code.contains(&format!("m :: b (i0_c{w})")), "{code}");
        }
        // One level loop for the group.
        assert_eq!(code.matches("for k in").count(), 1, "{code}");
    }

    #[test]
    fn an_undefined_write_is_recorded_once_per_column_and_the_column_goes_on() {
        let body: TokenStream = "let (c0,): (f64,); c0 = init; \
             for k in klo..khi { let (v1,): (f64,); v1 = c0 + 1.0; \
             if v1_undef { err.record(&[i0, k], || made()); continue 'points; } c0 = v1; }"
            .parse()
            .expect("test code");
        let code = interleaved_columns(&body, true)
            .expect("interleaves")
            .to_string();
        assert!(!code.contains("continue"), "{code}");
        assert!(
            code.contains("if ! failed_c1 && (v1_undef) { err . record"),
            "{code}"
        );
        assert!(code.contains("failed_c1 = true ;"), "{code}");
        // In the branches of a scan's first level and the others too.
        let branches: TokenStream = "let (c0,): (f64,); c0 = init; \
             for k in klo..khi { if k == klo { let (v1,): (f64,); v1 = c0 + 1.0; \
             if v1_undef { err.record(&[i0, k], || made()); continue 'points; } c0 = v1; } \
             else { let (v1,): (f64,); v1 = c0 * 2.0; \
             if v1_undef { err.record(&[i0, k], || made()); continue 'points; } c0 = v1; } }"
            .parse()
            .expect("test code");
        let code = interleaved_columns(&branches, true)
            .expect("interleaves")
            .to_string();
        assert!(!code.contains("continue"), "{code}");
        assert_eq!(
            code.matches("if ! failed_c2 && (v1_undef)").count(),
            2,
            "{code}"
        );
        // Not where the level's exits include one that must stop the column.
        assert!(interleaved_columns(&body, false).is_none());
    }

    #[test]
    fn a_columns_failed_check_leaves_the_group_to_the_one_column_loop() {
        let body: TokenStream = "let (r,): (i64,); r = row(p); \
             if r >= rows { err.record(&[r], || made()); continue 'points; } \
             for k in klo..khi { f(r, k); }"
            .parse()
            .expect("test code");
        let code = interleaved_columns(&body, false)
            .expect("interleaves")
            .to_string();
        assert!(!code.contains("continue"), "{code}");
        assert_eq!(
            code.matches("break 'group false").count(),
            COLUMNS,
            "{code}"
        );
        assert!(code.contains("if ! grouped { break ; }"), "{code}");
        // A `let` of a declared name (a table entry clamped in place) is renamed with it.
        let clamped: TokenStream = "let (e,): (i64,); e = entry(p); \
             let e: i64 = if e < 0 { 0 } else { e }; for k in klo..khi { f(e, k); }"
            .parse()
            .expect("test code");
        let code = interleaved_columns(&clamped, false)
            .expect("interleaves")
            .to_string();
        assert!(
            code.contains("let e_c1 : i64 = if e_c1 < 0 { 0 } else { e_c1 } ;"),
            "{code}"
        );
        // Not where an odometer over several dimensions advances per column.
        let odometer: TokenStream = "let (r,): (i64,); r = cur0; cur0 += 1; \
             if r >= rows { continue 'points; } for k in klo..khi { f(r, k); }"
            .parse()
            .expect("test code");
        assert!(interleaved_columns(&odometer, false).is_none());
    }

    #[test]
    fn point_bodies_that_can_leave_early_are_left_alone() {
        for body in [
            "let (a,): (f64,); a = 1.0; for k in 0..n { if bad { continue 'points; } }",
            "let (a,): (f64,); let b = a; for k in 0..n { f(b); }",
            "let (a,): (f64,); a = 1.0; f(a);",
        ] {
            let tokens: TokenStream = body.parse().expect("test code");
            assert!(interleaved_columns(&tokens, false).is_none(), "{body}");
        }
    }
}
