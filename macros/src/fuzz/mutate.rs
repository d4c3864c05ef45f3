//! Mutations of token streams: delete, swap, insert, duplicate or replace token trees at any
//! depth. Groups stay balanced, as rustc always hands a macro balanced tokens; inserted tokens
//! take the span of a neighbour, as if the user had typed them there.

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// SplitMix64: a small deterministic generator, so a case is reproduced from its seed alone.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A token tree whose groups can be edited in place.
#[derive(Clone)]
enum Tree {
    Leaf(TokenTree),
    Group(Delimiter, Span, Vec<Tree>),
}

fn trees(stream: TokenStream) -> Vec<Tree> {
    stream
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => Tree::Group(g.delimiter(), g.span(), trees(g.stream())),
            other => Tree::Leaf(other),
        })
        .collect()
}

fn stream(trees: &[Tree]) -> TokenStream {
    trees
        .iter()
        .map(|t| match t {
            Tree::Leaf(l) => l.clone(),
            Tree::Group(d, span, inner) => {
                let mut g = Group::new(*d, stream(inner));
                g.set_span(*span);
                TokenTree::Group(g)
            }
        })
        .collect()
}

fn span_of(tree: &Tree) -> Span {
    match tree {
        Tree::Leaf(l) => l.span(),
        Tree::Group(_, span, _) => *span,
    }
}

/// Every sequence of sibling trees (the top level and each group's contents), as paths of
/// group indices from the top.
fn sequences(trees: &[Tree], path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    out.push(path.clone());
    for (i, t) in trees.iter().enumerate() {
        if let Tree::Group(_, _, inner) = t {
            path.push(i);
            sequences(inner, path, out);
            path.pop();
        }
    }
}

/// The span of the group at `path`, or of the first token at the top: where a token typed into
/// an empty group is.
fn enclosing_span(trees: &[Tree], path: &[usize]) -> Span {
    let mut span = trees.first().map(span_of).unwrap_or_else(Span::call_site);
    let mut level = trees;
    for &i in path {
        match level.get(i) {
            Some(Tree::Group(_, group_span, inner)) => {
                span = *group_span;
                level = inner;
            }
            _ => break,
        }
    }
    span
}

fn sequence_at<'t>(trees: &'t mut Vec<Tree>, path: &[usize]) -> Option<&'t mut Vec<Tree>> {
    let Some((first, rest)) = path.split_first() else {
        return Some(trees);
    };
    match trees.get_mut(*first)? {
        Tree::Group(_, _, inner) => sequence_at(inner, rest),
        Tree::Leaf(_) => None,
    }
}

/// Identifiers of the input, to insert or substitute: mutations that keep the vocabulary of
/// the language reach deeper into the checker than random names.
fn identifiers(trees: &[Tree], out: &mut Vec<String>) {
    for t in trees {
        match t {
            Tree::Leaf(TokenTree::Ident(i)) => out.push(i.to_string()),
            Tree::Group(_, _, inner) => identifiers(inner, out),
            Tree::Leaf(_) => {}
        }
    }
}

/// Words of Rust and of the language besides its builtin functions (which `word` adds).
const WORDS: &[&str] = &[
    "let",
    "mut",
    "fn",
    "as",
    "if",
    "else",
    "return",
    "match",
    "loop",
    "for",
    "in",
    "while",
    "self",
    "super",
    "crate",
    "pub",
    "where",
    "move",
    "ref",
    "true",
    "false",
    "_",
    "Field",
    "K",
    "Edge",
    "Cell",
    "Vertex",
    "E2C",
    "C2E",
    "E2V",
    "V2E",
    "f64",
    "f32",
    "i32",
    "i64",
    "bool",
    "write_to",
    "domain",
    "at",
    "sqrt",
    "powf",
    "powi",
    "max",
    "min",
    "abs",
    "static_arg",
    "axis",
    "forward",
    "init",
    "unknown_name",
];

/// A word of Rust or of the language.
fn word(rng: &mut Rng) -> &'static str {
    let builtins = crate::frontend::names::BUILTIN_FUNCTIONS;
    let i = rng.below(WORDS.len() + builtins.len());
    WORDS
        .get(i)
        .copied()
        .unwrap_or_else(|| builtins[i - WORDS.len()])
}

/// Punctuation, as (characters, joint): `::` is `:` joint then `:`.
const PUNCTS: &[&str] = &[
    "+", "-", "*", "/", "%", "&", "|", "^", "!", "=", "<", ">", ".", ",", ";", ":", "::", "->",
    "=>", "==", "!=", "<=", ">=", "&&", "||", "..", "@", "#", "$", "?", "+=",
];

const LITERALS: &[&str] = &[
    "0",
    "1",
    "2.0",
    "0.5f32",
    "1e308",
    "1e400",
    "3_i64",
    "99999999999999999999",
    "255u8",
    "\"text\"",
    "'c'",
    "b'x'",
];

/// One kind of mutation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Delete,
    Swap,
    Insert,
    Duplicate,
    ReplaceIdent,
    ReplaceOperator,
    ReplaceLiteral,
    DeleteStatement,
}

/// Single-character operators one may replace another by.
const OPERATORS: &[char] = &[
    '+', '-', '*', '/', '%', '&', '|', '^', '<', '>', '!', '.', ',',
];

/// A token tree the user might have typed at `span`.
fn typed_token(rng: &mut Rng, own: &[String], span: Span) -> Vec<TokenTree> {
    match rng.below(10) {
        0..=2 if !own.is_empty() => vec![TokenTree::Ident(Ident::new(
            &own[rng.below(own.len())],
            span,
        ))],
        0..=3 => {
            vec![TokenTree::Ident(ident_at(word(rng), span))]
        }
        4..=6 => {
            let chars: Vec<char> = PUNCTS[rng.below(PUNCTS.len())].chars().collect();
            chars
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let spacing = if i + 1 < chars.len() {
                        Spacing::Joint
                    } else {
                        Spacing::Alone
                    };
                    let mut p = Punct::new(c, spacing);
                    p.set_span(span);
                    TokenTree::Punct(p)
                })
                .collect()
        }
        7..=8 => {
            let text = LITERALS[rng.below(LITERALS.len())];
            let mut lit: Literal = text.parse().unwrap_or_else(|_| Literal::i32_unsuffixed(0));
            lit.set_span(span);
            vec![TokenTree::Literal(lit)]
        }
        _ => {
            let delimiter =
                [Delimiter::Parenthesis, Delimiter::Bracket, Delimiter::Brace][rng.below(3)];
            let mut g = Group::new(delimiter, TokenStream::new());
            g.set_span(span);
            vec![TokenTree::Group(g)]
        }
    }
}

/// Keywords are valid `Ident`s; `_` is not, and becomes a raw-free placeholder instead.
fn ident_at(word: &str, span: Span) -> Ident {
    if word == "_" {
        Ident::new("__", span)
    } else {
        Ident::new(word, span)
    }
}

/// `tokens` with `count` random mutations; `log` describes each.
pub fn mutate(
    tokens: TokenStream,
    count: usize,
    rng: &mut Rng,
    log: &mut Vec<String>,
) -> TokenStream {
    let mut top = trees(tokens);
    let mut own = Vec::new();
    identifiers(&top, &mut own);
    for _ in 0..count {
        let mut paths = Vec::new();
        sequences(&top, &mut Vec::new(), &mut paths);
        let path = paths[rng.below(paths.len())].clone();
        let around = enclosing_span(&top, &path);
        let Some(seq) = sequence_at(&mut top, &path) else {
            continue;
        };
        // Replacements keep the syntax more often than deletions and insertions, so they
        // weigh more: they are what reaches the checker and the emitters.
        let op = match rng.below(12) {
            0 => Op::Delete,
            1 => Op::Swap,
            2 | 3 => Op::Insert,
            4 => Op::Duplicate,
            5..=7 => Op::ReplaceIdent,
            8 | 9 => Op::ReplaceOperator,
            10 => Op::ReplaceLiteral,
            _ => Op::DeleteStatement,
        };
        if seq.is_empty() && op != Op::Insert {
            continue;
        }
        let at = rng.below(seq.len().max(1));
        match (op, seq.get(at)) {
            (Op::Swap, _) if seq.len() >= 2 => {
                let other = if at + 1 < seq.len() { at + 1 } else { at - 1 };
                seq.swap(at, other);
                log.push(format!("swap {path:?}[{at}] and [{other}]"));
            }
            (Op::Insert, _) => {
                let span = seq.get(at).map_or(around, span_of);
                let new = typed_token(rng, &own, span);
                let text = stream(&trees(new.iter().cloned().collect())).to_string();
                for (i, t) in trees(new.into_iter().collect()).into_iter().enumerate() {
                    seq.insert((at + i).min(seq.len()), t);
                }
                log.push(format!("insert `{text}` at {path:?}[{at}]"));
            }
            (Op::Duplicate, Some(tree)) => {
                let copy = tree.clone();
                seq.insert(at, copy);
                log.push(format!("duplicate {path:?}[{at}]"));
            }
            (Op::ReplaceIdent, Some(Tree::Leaf(TokenTree::Ident(old)))) => {
                let span = old.span();
                let word = if !own.is_empty() && rng.below(2) == 0 {
                    own[rng.below(own.len())].clone()
                } else {
                    word(rng).to_string()
                };
                log.push(format!("replace `{old}` at {path:?}[{at}] by `{word}`"));
                seq[at] = Tree::Leaf(TokenTree::Ident(ident_at(&word, span)));
            }
            (Op::ReplaceOperator, Some(Tree::Leaf(TokenTree::Punct(old)))) => {
                let c = OPERATORS[rng.below(OPERATORS.len())];
                let mut new = Punct::new(c, old.spacing());
                new.set_span(old.span());
                log.push(format!("replace `{old}` at {path:?}[{at}] by `{c}`"));
                seq[at] = Tree::Leaf(TokenTree::Punct(new));
            }
            (Op::ReplaceLiteral, Some(Tree::Leaf(TokenTree::Literal(old)))) => {
                let text = LITERALS[rng.below(LITERALS.len())];
                let mut new: Literal = text.parse().unwrap_or_else(|_| Literal::i32_unsuffixed(0));
                new.set_span(old.span());
                log.push(format!("replace `{old}` at {path:?}[{at}] by `{text}`"));
                seq[at] = Tree::Leaf(TokenTree::Literal(new));
            }
            (Op::DeleteStatement, _) => {
                // From `at` through the next `;` (or the end): a whole statement or argument.
                let end = seq[at..]
                    .iter()
                    .position(
                        |t| matches!(t, Tree::Leaf(TokenTree::Punct(p)) if p.as_char() == ';'),
                    )
                    .map_or(seq.len(), |i| at + i + 1);
                seq.drain(at..end);
                log.push(format!("delete {path:?}[{at}..{end}]"));
            }
            _ => {
                seq.remove(at);
                log.push(format!("delete {path:?}[{at}]"));
            }
        }
    }
    stream(&top)
}
