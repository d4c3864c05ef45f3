//! Recursion through other operators (`f` calls `g`, which calls `f`), found in the item's file.
//!
//! Each item is expanded on its own and learns what it calls by calling its callees' definition
//! macros, which exist only once those callees are expanded. Operators that call each other
//! therefore wait on each other's macro, and rustc ends the wait with "cannot find macro". So
//! before collecting, an operator that calls others reads the file it is written in, finds
//! itself among the operators there, and follows the calls whose paths lead to an operator of
//! that file (`g`, `self::g`, `super::g`, `inner::g` through inline modules). A cycle back to
//! the item is reported at its call that starts it.
//!
//! What is not followed (the answer stays "no cycle", and such a cycle still ends in rustc's
//! message): calls through `use` declarations, `crate::` paths, other files, operators written
//! by other macros, and operators or modules under `#[cfg]` (which may not exist).

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use syn::{Attribute, Item, ItemFn, Path};

use crate::frontend::names::operator_calls;

/// A recursion of the item through other operators: the item's call that starts it and the
/// names along the cycle, from the item back to it (`["f", "g", "f"]`).
pub struct Cycle {
    pub call: Path,
    pub names: Vec<String>,
}

impl Cycle {
    pub fn message(&self) -> String {
        let (first, rest) = self
            .names
            .split_first()
            .map_or(("", &[][..]), |(f, r)| (f, r));
        let mut text = format!("`{first}` calls");
        for (i, name) in rest.iter().enumerate() {
            if i > 0 {
                text.push_str(", which calls");
            }
            text.push_str(&format!(" `{name}`"));
        }
        text + ": operators cannot be recursive (each call is inlined into its caller); a carry \
                along the vertical is a `#[scan_operator]`"
    }
}

/// The cycle of calls through other operators of the item's source file that leads back to
/// `func` (an operator whose own calls are `calls`), if any.
pub fn find(func: &ItemFn, calls: &[Path]) -> Option<Cycle> {
    if calls.is_empty() || !proc_macro::is_available() {
        return None;
    }
    let file = proc_macro::Span::call_site().local_file()?;
    let operators = file_operators(file)?;
    find_in(func, calls, &operators)
}

/// How many files' operators are kept: the items of one file are expanded one after another,
/// so a few suffice to read and parse each file once (not once per operator, which would
/// grow with the square of the file's size).
const FILES_KEPT: usize = 8;

/// The operators of `file`, parsed once per content (plain data: the compiler's tokens are
/// only valid during the expansion that made them).
fn file_operators(file: PathBuf) -> Option<Arc<Vec<FileOperator>>> {
    type Kept = Vec<(PathBuf, u64, Arc<Vec<FileOperator>>)>;
    static KEPT: Mutex<Kept> = Mutex::new(Vec::new());
    let source = std::fs::read_to_string(&file).ok()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    source.hash(&mut hasher);
    let hash = hasher.finish();
    // A poisoned lock (a panic elsewhere) only loses the cache.
    if let Ok(kept) = KEPT.lock() {
        if let Some((_, _, operators)) = kept.iter().find(|(f, h, _)| *f == file && *h == hash) {
            return Some(operators.clone());
        }
    }
    let operators = Arc::new(read_operators(source)?);
    if let Ok(mut kept) = KEPT.lock() {
        kept.retain(|(f, _, _)| *f != file);
        if kept.len() >= FILES_KEPT {
            kept.remove(0);
        }
        kept.push((file, hash, operators.clone()));
    }
    Some(operators)
}

/// The stack a file is parsed on: ample for syn's clone, drop and printing of an expression as
/// deep as the size tests' (2,000 chained additions), which recurse once per level, unoptimised
/// in a debug build of the macros (the pages are only touched as used).
const PARSE_STACK: usize = 512 * 1024 * 1024;

/// The operators of `source`, parsed and walked on a stack of [`PARSE_STACK`] (on rustc's own
/// stack a clippy build of the size tests aborted with a stack overflow here). The same thread:
/// the compiler's token API answers only the thread of the expansion.
fn read_operators(source: String) -> Option<Vec<FileOperator>> {
    gt4rs_ir::stack::with_stack(PARSE_STACK, move || {
        let parsed = syn::parse_file(&source).ok()?;
        let mut operators = Vec::new();
        collect_operators(&parsed.items, &mut Vec::new(), false, &mut operators);
        Some(operators)
    })
}

/// An operator written in the file.
struct FileOperator {
    /// The inline modules it is in, outermost first.
    module: Vec<String>,
    name: String,
    /// Under `#[cfg]` itself or inside a module that is: it may not exist.
    conditional: bool,
    /// Its tokens without the operator attribute, without whitespace.
    tokens: String,
    /// Its calls' paths, as names ([`segments`]).
    calls: Vec<Option<Vec<String>>>,
}

fn collect_operators(
    items: &[Item],
    module: &mut Vec<String>,
    conditional: bool,
    out: &mut Vec<FileOperator>,
) {
    for item in items {
        match item {
            Item::Fn(f) if f.attrs.iter().any(is_operator_attribute) => {
                let mut bare = f.clone();
                bare.attrs.retain(|a| !is_operator_attribute(a));
                out.push(FileOperator {
                    module: module.clone(),
                    name: f.sig.ident.to_string(),
                    conditional: conditional || f.attrs.iter().any(is_conditional),
                    tokens: without_whitespace(&bare),
                    calls: operator_calls(&bare).iter().map(segments).collect(),
                });
            }
            Item::Mod(m) => {
                if let Some((_, content)) = &m.content {
                    module.push(m.ident.to_string());
                    let conditional = conditional || m.attrs.iter().any(is_conditional);
                    collect_operators(content, module, conditional, out);
                    module.pop();
                }
            }
            _ => {}
        }
    }
}

fn is_operator_attribute(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "field_operator" || s.ident == "scan_operator")
}

fn is_conditional(attr: &Attribute) -> bool {
    attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr")
}

fn without_whitespace(item: &ItemFn) -> String {
    quote::quote!(#item)
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

fn find_in(func: &ItemFn, calls: &[Path], operators: &[FileOperator]) -> Option<Cycle> {
    let name = func.sig.ident.to_string();
    let tokens = without_whitespace(func);
    let mut itself = operators
        .iter()
        .enumerate()
        .filter(|(_, o)| o.name == name && o.tokens == tokens);
    let (start, _) = itself.next()?;
    if itself.next().is_some() {
        return None;
    }
    for call in calls {
        let Some(callee) = resolve(operators, &operators[start].module, &segments(call)) else {
            continue;
        };
        let mut trail = vec![start, callee];
        let mut visited = vec![false; operators.len()];
        if leads_back(operators, start, &mut trail, &mut visited) {
            let names = trail.iter().map(|&i| operators[i].name.clone()).collect();
            return Some(Cycle {
                call: call.clone(),
                names,
            });
        }
    }
    None
}

/// Whether the operator last on `trail` leads back to `start`; on success `trail` ends with
/// `start`.
fn leads_back(
    operators: &[FileOperator],
    start: usize,
    trail: &mut Vec<usize>,
    visited: &mut [bool],
) -> bool {
    let Some(&at) = trail.last() else {
        return false;
    };
    if at == start {
        return true;
    }
    if visited[at] {
        return false;
    }
    visited[at] = true;
    for call in &operators[at].calls {
        if let Some(next) = resolve(operators, &operators[at].module, call) {
            trail.push(next);
            // As deep as the longest chain of calls in the file.
            if gt4rs_ir::stack::grow(|| leads_back(operators, start, trail, visited)) {
                return true;
            }
            trail.pop();
        }
    }
    false
}

/// The names of `path`'s segments, or `None` for a path that does not name an item plainly
/// (a leading `::`, generic arguments).
fn segments(path: &Path) -> Option<Vec<String>> {
    if path.leading_colon.is_some() {
        return None;
    }
    path.segments
        .iter()
        .map(|s| matches!(s.arguments, syn::PathArguments::None).then(|| s.ident.to_string()))
        .collect()
}

/// The operator that a path of `segments`, written in `module`, names among `operators`, where
/// the path leads there through inline modules of the file alone and exactly one unconditional
/// operator of that name is there.
fn resolve(
    operators: &[FileOperator],
    module: &[String],
    segments: &Option<Vec<String>>,
) -> Option<usize> {
    let (name, leading) = segments.as_ref()?.split_last()?;
    let mut target: Vec<String> = module.to_vec();
    // `self` first, then any `super`s, then inline modules.
    let mut prefix = true;
    for (i, ident) in leading.iter().enumerate() {
        match ident.as_str() {
            "self" if i == 0 => {}
            "super" if prefix => {
                target.pop()?;
            }
            "crate" | "self" | "super" => return None,
            _ => {
                prefix = false;
                target.push(ident.clone());
            }
        }
    }
    let mut candidates = operators
        .iter()
        .enumerate()
        .filter(|(_, o)| o.module == target && o.name == *name);
    let (found, operator) = candidates.next()?;
    if candidates.next().is_some() || operator.conditional {
        return None;
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cycle found for the operator `name` of `source`, as its call and names.
    fn cycle_of(source: &str, name: &str) -> Option<(String, Vec<String>)> {
        let file = syn::parse_file(source).expect("test source");
        let mut operators = Vec::new();
        collect_operators(&file.items, &mut Vec::new(), false, &mut operators);
        let func = find_item(&file.items, name).expect("the operator is in the source");
        let calls = operator_calls(&func);
        find_in(&func, &calls, &operators).map(|c| (crate::definitions::path_key(&c.call), c.names))
    }

    /// The operator `name` (anywhere in the file) without its attribute, as the macro sees it.
    fn find_item(items: &[Item], name: &str) -> Option<ItemFn> {
        items.iter().find_map(|item| match item {
            Item::Fn(f) if f.sig.ident == name => {
                let mut f = f.clone();
                f.attrs.retain(|a| !is_operator_attribute(a));
                Some(f)
            }
            Item::Mod(m) => m.content.as_ref().and_then(|(_, c)| find_item(c, name)),
            _ => None,
        })
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    const OP: &str = "(a: Field<(Edge, K), f64>) -> Field<(Edge, K), f64>";

    #[test]
    fn operators_calling_each_other_are_a_cycle_from_either() {
        let source = format!(
            "#[field_operator] fn f{OP} {{ let h = 2.0; g(a) * h }}
             #[gt4rs::field_operator] fn g{OP} {{ neighbor_sum(f(a), V2E) + leaf(a) }}
             #[field_operator] fn leaf{OP} {{ a }}"
        );
        assert_eq!(
            cycle_of(&source, "f"),
            Some(("g".into(), names(&["f", "g", "f"])))
        );
        assert_eq!(
            cycle_of(&source, "g"),
            Some(("f".into(), names(&["g", "f", "g"])))
        );
        assert_eq!(cycle_of(&source, "leaf"), None);
    }

    #[test]
    fn paths_through_inline_modules_are_followed() {
        let source = format!(
            "mod steps {{
                 #[field_operator] fn first{OP} {{ self::inner::second(a) }}
                 mod inner {{
                     #[scan_operator(axis = K, forward = true, init = 0.0)]
                     fn second{OP} {{ third(a) }}
                     #[field_operator] fn third{OP} {{ super::first(a) }}
                 }}
             }}"
        );
        assert_eq!(
            cycle_of(&source, "third"),
            Some((
                "super::first".into(),
                names(&["third", "first", "second", "third"])
            ))
        );
        let message = Cycle {
            call: syn::parse_quote!(g),
            names: names(&["f", "g", "h", "f"]),
        }
        .message();
        assert!(
            message.starts_with(
                "`f` calls `g`, which calls `h`, which calls `f`: operators cannot be recursive"
            ),
            "{message}"
        );
    }

    #[test]
    fn what_cannot_be_told_for_sure_is_no_cycle() {
        // Another module's operator of the same name, one under `#[cfg]`, two of one name,
        // `crate::` paths and locals are not followed.
        let cases = [
            format!(
                "#[field_operator] fn f{OP} {{ g(a) }}
                 mod other {{ #[field_operator] fn g{OP} {{ super::f(a) }} }}"
            ),
            format!(
                "#[field_operator] fn f{OP} {{ g(a) }}
                 #[cfg(feature = \"x\")] #[field_operator] fn g{OP} {{ f(a) }}"
            ),
            format!(
                "#[field_operator] fn f{OP} {{ inner::g(a) }}
                 #[cfg(test)] mod inner {{ #[field_operator] fn g{OP} {{ super::f(a) }} }}"
            ),
            format!(
                "#[field_operator] fn f{OP} {{ crate::g(a) }}
                 #[field_operator] fn g{OP} {{ crate::f(a) }}"
            ),
            format!(
                "#[field_operator] fn f{OP} {{ g(a) }}
                 #[field_operator] fn g(f: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {{ f(a) }}"
            ),
        ];
        for source in &cases {
            assert_eq!(cycle_of(source, "f"), None, "{source}");
        }
    }
}
