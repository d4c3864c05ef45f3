//! Recursion through other operators (`f` calls `g`, which calls `f`), found in the crate's
//! files.
//!
//! Each item is expanded on its own and learns what it calls by calling its callees' definition
//! macros, which exist only once those callees are expanded. Operators that call each other
//! therefore wait on each other's macro, and rustc ends the wait with "cannot find macro". So
//! before collecting, an operator that calls others finds itself in its file and follows its
//! calls through the crate's modules as far as the files show them (`modules`: `use`
//! declarations, `crate::`, `self::` and `super::` paths, inline modules and module files). A
//! cycle back to the item is reported at its call that starts it.
//!
//! What cannot be told for sure is not followed (the answer stays "no cycle", and such a cycle
//! still ends in rustc's message): operators or modules under `#[cfg]`, names two items or
//! imports could give, operators written by other macros or included with `include!`, files
//! the conventions of cargo do not place.

use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use syn::{ItemFn, Path};

use crate::frontend::modules::{
    read_items, segments, without_whitespace, Loader, ModuleItems, Modules,
};

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

/// The cycle of calls through other operators of the crate that leads back to `func` (an
/// operator whose own calls are `calls`), if any.
pub fn find(func: &ItemFn, calls: &[Path]) -> Option<Cycle> {
    if calls.is_empty() || !proc_macro::is_available() {
        return None;
    }
    let file = proc_macro::Span::call_site().local_file()?;
    let file = file.canonicalize().unwrap_or(file);
    find_from(func, calls, &file, &crate_roots(), &load_file)
}

/// [`find`] for the item `func` of `file`, in the crate whose root is one of `roots`.
fn find_from(
    func: &ItemFn,
    calls: &[Path],
    file: &FsPath,
    roots: &[PathBuf],
    load: &Loader<'_>,
) -> Option<Cycle> {
    let (mut modules, top) = Modules::around(file, roots, load)?;
    let name = func.sig.ident.to_string();
    let tokens = without_whitespace(func);
    let mut itself = modules.operators_in_file(top).into_iter().filter(|&o| {
        let op = modules.operator(o);
        op.name == name && op.tokens == tokens
    });
    let start = itself.next()?;
    if itself.next().is_some() {
        return None;
    }
    let module = modules.module_of(start);
    for call in calls {
        let Some(callee) = modules.resolve_call(module, &segments(call)) else {
            continue;
        };
        let mut trail = vec![start, callee];
        let mut visited = Vec::new();
        if leads_back(&mut modules, start, &mut trail, &mut visited) {
            let names = trail
                .iter()
                .map(|&i| modules.operator(i).name.clone())
                .collect();
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
    modules: &mut Modules<'_>,
    start: usize,
    trail: &mut Vec<usize>,
    visited: &mut Vec<usize>,
) -> bool {
    let Some(&at) = trail.last() else {
        return false;
    };
    if at == start {
        return true;
    }
    if visited.contains(&at) {
        return false;
    }
    visited.push(at);
    let module = modules.module_of(at);
    let calls = modules.operator(at).calls.clone();
    for call in &calls {
        if let Some(next) = modules.resolve_call(module, call) {
            trail.push(next);
            // As deep as the longest chain of calls in the crate.
            if gt4rs_ir::stack::grow(|| leads_back(modules, start, trail, visited)) {
                return true;
            }
            trail.pop();
        }
    }
    false
}

/// The files that may be the crate's root by cargo's conventions, for the target being built:
/// a binary's (`CARGO_BIN_NAME` is set) or the library's, then a test's, an example's or a
/// benchmark's of the crate's name.
fn crate_roots() -> Vec<PathBuf> {
    let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return Vec::new();
    };
    let dir = PathBuf::from(dir);
    let dir = dir.canonicalize().unwrap_or(dir);
    let mut roots = Vec::new();
    match std::env::var("CARGO_BIN_NAME") {
        Ok(bin) => {
            roots.push(dir.join("src/main.rs"));
            roots.push(dir.join("src/bin").join(format!("{bin}.rs")));
            roots.push(dir.join("src/bin").join(&bin).join("main.rs"));
        }
        Err(_) => roots.push(dir.join("src/lib.rs")),
    }
    if let Ok(krate) = std::env::var("CARGO_CRATE_NAME") {
        for name in [krate.clone(), krate.replace('_', "-")] {
            for kind in ["tests", "examples", "benches"] {
                roots.push(dir.join(kind).join(format!("{name}.rs")));
                roots.push(dir.join(kind).join(&name).join("main.rs"));
            }
        }
    }
    roots.dedup();
    roots
}

/// How many files' items are kept: the items of a crate are expanded one after another, each
/// reading the files its calls lead to, so each file is parsed once per build, not once per
/// operator (which would grow with the square of the crate's size).
const FILES_KEPT: usize = 512;

/// A file as kept: its path, length and time of change (a changed file is read again).
type Kept = Vec<(PathBuf, u64, Option<SystemTime>, Arc<ModuleItems>)>;

/// The items of `file`, parsed once per version (plain data: the compiler's tokens are only
/// valid during the expansion that made them).
fn load_file(file: &FsPath) -> Option<Arc<ModuleItems>> {
    static KEPT: Mutex<Kept> = Mutex::new(Vec::new());
    let meta = std::fs::metadata(file).ok()?;
    if !meta.is_file() {
        return None;
    }
    let (len, modified) = (meta.len(), meta.modified().ok());
    // A poisoned lock (a panic elsewhere) only loses the cache.
    if let Ok(kept) = KEPT.lock() {
        let hit = kept
            .iter()
            .find(|(f, l, m, _)| f == file && *l == len && *m == modified && modified.is_some());
        if let Some((_, _, _, items)) = hit {
            return Some(items.clone());
        }
    }
    let source = std::fs::read_to_string(file).ok()?;
    let items = Arc::new(parse_items(source)?);
    if let Ok(mut kept) = KEPT.lock() {
        kept.retain(|(f, _, _, _)| f != file);
        if kept.len() >= FILES_KEPT {
            kept.remove(0);
        }
        kept.push((file.to_path_buf(), len, modified, items.clone()));
    }
    Some(items)
}

/// The stack a file is parsed on: ample for syn's clone, drop and printing of an expression as
/// deep as the size tests' (2,000 chained additions), which recurse once per level, unoptimised
/// in a debug build of the macros (the pages are only touched as used).
const PARSE_STACK: usize = 512 * 1024 * 1024;

/// The items of `source`, parsed and walked on a stack of [`PARSE_STACK`] (on rustc's own
/// stack a clippy build of the size tests aborted with a stack overflow here). The same thread:
/// the compiler's token API answers only the thread of the expansion.
fn parse_items(source: String) -> Option<ModuleItems> {
    gt4rs_ir::stack::with_stack(PARSE_STACK, move || {
        let parsed = syn::parse_file(&source).ok()?;
        Some(read_items(&parsed))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use syn::Item;

    /// The cycle found for the operator `name` of the file `file` of a crate of `files` (paths
    /// under `/c`, the root `/c/src/lib.rs`), as its call and names.
    fn cycle_in(files: &[(&str, &str)], file: &str, name: &str) -> Option<(String, Vec<String>)> {
        let sources: HashMap<PathBuf, String> = files
            .iter()
            .map(|(path, source)| (PathBuf::from(path), source.to_string()))
            .collect();
        let load = |path: &FsPath| {
            let source = sources.get(path)?;
            let parsed = syn::parse_file(source).expect("test source");
            Some(Arc::new(read_items(&parsed)))
        };
        let source = sources
            .get(FsPath::new(file))
            .expect("the file is in the crate");
        let parsed = syn::parse_file(source).expect("test source");
        let func = find_item(&parsed.items, name).expect("the operator is in the file");
        let calls = crate::frontend::names::operator_calls(&func);
        let roots = [PathBuf::from("/c/src/lib.rs")];
        find_from(&func, &calls, FsPath::new(file), &roots, &load)
            .map(|c| (crate::definitions::path_key(&c.call), c.names))
    }

    /// [`cycle_in`] a crate of one file.
    fn cycle_of(source: &str, name: &str) -> Option<(String, Vec<String>)> {
        cycle_in(&[("/c/src/lib.rs", source)], "/c/src/lib.rs", name)
    }

    /// The operator `name` (anywhere in the file) without its attribute, as the macro sees it.
    fn find_item(items: &[Item], name: &str) -> Option<ItemFn> {
        items.iter().find_map(|item| match item {
            Item::Fn(f) if f.sig.ident == name => {
                let mut f = f.clone();
                f.attrs.retain(|a| {
                    let last = a.path().segments.last().map(|s| s.ident.to_string());
                    !matches!(last.as_deref(), Some("field_operator" | "scan_operator"))
                });
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
                "#[field_operator] fn f{OP} {{ g(a) }}
                 #[field_operator] fn g(f: Field<(Edge, K), f64>) -> Field<(Edge, K), f64> {{ f(a) }}"
            ),
        ];
        for source in &cases {
            assert_eq!(cycle_of(source, "f"), None, "{source}");
        }
    }

    #[test]
    fn crate_paths_and_use_declarations_are_followed() {
        let source = format!(
            "#[field_operator] fn f{OP} {{ crate::g(a) }}
             #[field_operator] fn g{OP} {{ crate::f(a) }}"
        );
        assert_eq!(
            cycle_of(&source, "f"),
            Some(("crate::g".into(), names(&["f", "g", "f"])))
        );
        let source = format!(
            "use crate::steps::second as renamed;
             #[field_operator] fn first{OP} {{ renamed(a) }}
             mod steps {{
                 use super::*;
                 #[field_operator] pub fn second{OP} {{ first(a) }}
             }}"
        );
        assert_eq!(
            cycle_of(&source, "first"),
            Some(("renamed".into(), names(&["first", "second", "first"])))
        );
        assert_eq!(
            cycle_of(&source, "second"),
            Some(("first".into(), names(&["second", "first", "second"])))
        );
    }

    #[test]
    fn calls_are_followed_across_module_files() {
        let lib = format!(
            "mod ops;
             mod more;
             use ops::g;
             #[field_operator] pub fn f{OP} {{ g(a) }}"
        );
        let ops = format!(
            "mod deep;
             #[field_operator] pub fn g{OP} {{ self::deep::h(a) }}"
        );
        let deep = format!("#[field_operator] pub fn h{OP} {{ crate::more::k(a) }}");
        let more = format!(
            "use super::*;
             #[field_operator] pub fn k{OP} {{ f(a) * 2.0 }}"
        );
        let files = [
            ("/c/src/lib.rs", lib.as_str()),
            ("/c/src/ops.rs", ops.as_str()),
            ("/c/src/ops/deep.rs", deep.as_str()),
            ("/c/src/more/mod.rs", more.as_str()),
        ];
        assert_eq!(
            cycle_in(&files, "/c/src/lib.rs", "f"),
            Some(("g".into(), names(&["f", "g", "h", "k", "f"])))
        );
        assert_eq!(
            cycle_in(&files, "/c/src/ops/deep.rs", "h"),
            Some(("crate::more::k".into(), names(&["h", "k", "f", "g", "h"])))
        );
        assert_eq!(
            cycle_in(&files, "/c/src/more/mod.rs", "k"),
            Some(("f".into(), names(&["k", "f", "g", "h", "k"])))
        );
    }

    #[test]
    fn a_file_no_root_reaches_is_a_module_of_its_own() {
        // `crate::` leads nowhere from a file outside the root's modules; paths inside it are
        // followed still.
        let lib = "mod other;";
        let lost = format!(
            "#[field_operator] fn f{OP} {{ crate::g(a) + inner::h(a) }}
             #[field_operator] fn g{OP} {{ crate::f(a) }}
             mod inner {{ #[field_operator] pub fn h{OP} {{ super::f(a) }} }}"
        );
        let files = [("/c/src/lib.rs", lib), ("/c/src/lost.rs", lost.as_str())];
        assert_eq!(
            cycle_in(&files, "/c/src/lost.rs", "f"),
            Some(("inner::h".into(), names(&["f", "h", "f"])))
        );
        assert_eq!(cycle_in(&files, "/c/src/lost.rs", "g"), None);
        // A binary's root elsewhere (a test harness's file with `fn main`, no conventional root).
        let main = format!(
            "fn main() {{}}
             #[field_operator] fn f{OP} {{ crate::g(a) }}
             #[field_operator] fn g{OP} {{ crate::f(a) }}"
        );
        let files = [("/elsewhere/case.rs", main.as_str())];
        assert_eq!(
            cycle_in(&files, "/elsewhere/case.rs", "g"),
            Some(("crate::f".into(), names(&["g", "f", "g"])))
        );
    }

    #[test]
    fn names_the_files_do_not_settle_are_no_cycle() {
        let op =
            |name: &str, call: &str| format!("#[field_operator] pub fn {name}{OP} {{ {call}(a) }}");
        let cases: Vec<Vec<(&str, String)>> = vec![
            // A name two globs give.
            vec![(
                "/c/src/lib.rs",
                format!(
                    "{} mod x {{ {} }} mod y {{ {} }} mod z {{ use crate::x::*; use crate::y::*; {} }}",
                    op("f", "z::h"),
                    op("g", "crate::f"),
                    op("g", "crate::f"),
                    op("h", "g")
                ),
            )],
            // An import under `#[cfg]`.
            vec![(
                "/c/src/lib.rs",
                format!(
                    "{} mod x {{ #[cfg(test)] use crate::f as g; {} }} ",
                    op("f", "x::h"),
                    op("h", "g")
                ),
            )],
            // A module file under `#[cfg]`.
            vec![
                ("/c/src/lib.rs", format!("#[cfg(feature = \"x\")] mod ops; {}", op("f", "ops::g"))),
                ("/c/src/ops.rs", op("g", "crate::f")),
            ],
            // A module whose file could be either of two.
            vec![
                ("/c/src/lib.rs", format!("mod ops; {}", op("f", "ops::g"))),
                ("/c/src/ops.rs", op("g", "crate::f")),
                ("/c/src/ops/mod.rs", op("g", "crate::f")),
            ],
            // Another crate's path.
            vec![(
                "/c/src/lib.rs",
                format!("use other::g; {} ", op("f", "g")),
            )],
        ];
        for files in &cases {
            let files: Vec<(&str, &str)> = files.iter().map(|(p, s)| (*p, s.as_str())).collect();
            assert_eq!(cycle_in(&files, "/c/src/lib.rs", "f"), None, "{files:?}");
        }
    }
}
