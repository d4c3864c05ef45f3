//! The crate's modules as far as its files show them: enough to follow a call between operators
//! through `use` declarations, `crate::`, `self::` and `super::` paths, inline modules and module
//! files (`recursion` looks for cycles with it).
//!
//! A proc macro sees only its own item, and rustc does not tell it which file is the crate's
//! root. The root is the first of the files cargo's conventions give a target of this kind
//! (`CARGO_MANIFEST_DIR`, `CARGO_CRATE_NAME`, `CARGO_BIN_NAME`) from which `mod` declarations
//! lead to the item's file; a binary's root written elsewhere (a test harness's) is the item's
//! own file where that file defines `fn main` and no conventional root exists. Without a root,
//! the item's file is a module whose parent is unknown: `crate::` and a `super::` out of the file
//! lead nowhere.
//!
//! Paths resolve as rustc resolves them where the files say so unambiguously, and otherwise to
//! nothing, so that no cycle is claimed that may not exist: anything under `#[cfg]`, a name two
//! items or imports could give, a `#[path]` inside an inline module or below a `#[path]` file,
//! other crates (their globs give nothing), operators written by other macros.

use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

use syn::{Attribute, Item, ItemFn, UseTree};

use crate::frontend::names::operator_calls;

/// What one module of a file holds, as plain data (parsed once per file).
#[derive(Default)]
pub struct ModuleItems {
    pub operators: Vec<OperatorItem>,
    imports: Vec<Import>,
    children: Vec<ChildModule>,
    /// A `fn main` at this level: the file is a binary's root if nothing else is.
    has_main: bool,
}

/// A module whose items are not known.
static NOTHING: ModuleItems = ModuleItems {
    operators: Vec::new(),
    imports: Vec::new(),
    children: Vec::new(),
    has_main: false,
};

/// An operator written in a module.
pub struct OperatorItem {
    pub name: String,
    /// Under `#[cfg]`: it may not exist.
    pub conditional: bool,
    /// Its tokens without the operator attribute, without whitespace.
    pub tokens: String,
    /// Its calls' paths, as names ([`segments`]).
    pub calls: Vec<Option<Vec<String>>>,
}

/// One name a `use` declaration brings in (`None` for a glob), and the path it names.
struct Import {
    name: Option<String>,
    path: Vec<String>,
    conditional: bool,
}

struct ChildModule {
    name: String,
    conditional: bool,
    body: ChildBody,
}

enum ChildBody {
    Inline(ModuleItems),
    /// `mod name;`, with its `#[path = "…"]` if any.
    File(Option<String>),
}

/// The items of a parsed file, its top-level module.
pub fn read_items(file: &syn::File) -> ModuleItems {
    module_items(&file.items)
}

fn module_items(items: &[Item]) -> ModuleItems {
    let mut out = ModuleItems::default();
    for item in items {
        match item {
            Item::Fn(f) if f.attrs.iter().any(is_operator_attribute) => {
                let mut bare = f.clone();
                bare.attrs.retain(|a| !is_operator_attribute(a));
                out.operators.push(OperatorItem {
                    name: f.sig.ident.to_string(),
                    conditional: f.attrs.iter().any(is_conditional),
                    tokens: without_whitespace(&bare),
                    calls: operator_calls(&bare).iter().map(segments).collect(),
                });
            }
            Item::Fn(f) if f.sig.ident == "main" => out.has_main = true,
            Item::Use(u) if u.leading_colon.is_none() => {
                let conditional = u.attrs.iter().any(is_conditional);
                flatten_use(&u.tree, &mut Vec::new(), conditional, &mut out.imports);
            }
            Item::Mod(m) => {
                let body = match &m.content {
                    Some((_, content)) => ChildBody::Inline(module_items(content)),
                    None => ChildBody::File(path_attribute(&m.attrs)),
                };
                out.children.push(ChildModule {
                    name: m.ident.to_string(),
                    conditional: m.attrs.iter().any(is_conditional),
                    body,
                });
            }
            _ => {}
        }
    }
    out
}

fn flatten_use(tree: &UseTree, prefix: &mut Vec<String>, conditional: bool, out: &mut Vec<Import>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, conditional, out);
            prefix.pop();
        }
        UseTree::Name(n) if n.ident == "self" => {
            if let Some(last) = prefix.last() {
                out.push(Import {
                    name: Some(last.clone()),
                    path: prefix.clone(),
                    conditional,
                });
            }
        }
        UseTree::Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.to_string());
            out.push(Import {
                name: Some(n.ident.to_string()),
                path,
                conditional,
            });
        }
        UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push(Import {
                name: Some(r.rename.to_string()),
                path,
                conditional,
            });
        }
        UseTree::Glob(_) => out.push(Import {
            name: None,
            path: prefix.clone(),
            conditional,
        }),
        UseTree::Group(g) => {
            for tree in &g.items {
                flatten_use(tree, prefix, conditional, out);
            }
        }
    }
}

fn path_attribute(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
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

pub fn without_whitespace(item: &ItemFn) -> String {
    quote::quote!(#item)
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// The names of `path`'s segments, or `None` for a path that does not name an item plainly
/// (a leading `::`, generic arguments).
pub fn segments(path: &syn::Path) -> Option<Vec<String>> {
    if path.leading_colon.is_some() {
        return None;
    }
    path.segments
        .iter()
        .map(|s| matches!(s.arguments, syn::PathArguments::None).then(|| s.ident.to_string()))
        .collect()
}

/// Reads and parses a file (`None` where it cannot be read or parsed).
pub type Loader<'a> = dyn Fn(&FsPath) -> Option<Arc<ModuleItems>> + 'a;

/// A module of the crate, as far as it was needed.
struct Module {
    parent: Option<usize>,
    /// Its items: the file's top level, or an inline module of it (`path` into the file).
    file_items: Arc<ModuleItems>,
    path_in_file: Vec<usize>,
    /// The file it is in.
    file: PathBuf,
    /// Where its `mod name;` children may be (each candidate directory; rustc takes one, and a
    /// child is found only where exactly one file fits).
    child_dirs: Vec<PathBuf>,
    /// Whether a `#[path]` on its `mod name;` children is relative to its file's directory
    /// (the top level of a file that is not itself a `#[path]` module).
    path_attributes: bool,
    /// Children already looked up, by name.
    children: HashMap<String, Option<usize>>,
    /// Its operators' indices in [`Modules::operators`], in the order of `items().operators`.
    operators: Vec<usize>,
}

impl Module {
    fn items(&self) -> &ModuleItems {
        let mut items: &ModuleItems = &self.file_items;
        for &i in &self.path_in_file {
            match items.children.get(i).map(|c| &c.body) {
                Some(ChildBody::Inline(inner)) => items = inner,
                // Not reached (the path is made of inline children's positions); a module
                // that shows nothing claims no cycle.
                _ => return &NOTHING,
            }
        }
        items
    }
}

/// An operator of a module: the module and its position there.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OperatorId {
    pub module: usize,
    pub index: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Target {
    Module(usize),
    Operator(usize),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Namespace {
    Module,
    Operator,
}

/// Imports followed one into the other before a path is given up (a glob of a module that globs
/// it back would otherwise never end).
const MAX_DEPTH: usize = 32;

/// The modules of a crate, loaded as paths lead to them.
pub struct Modules<'a> {
    load: &'a Loader<'a>,
    modules: Vec<Module>,
    /// Every loaded operator.
    pub operators: Vec<OperatorId>,
    /// Whether module 0 is the crate's root (else it is the item's file, parent unknown).
    root_known: bool,
}

impl<'a> Modules<'a> {
    /// The modules around `file`, and the module of `file`'s top level. `roots` are the files
    /// that may be the crate's root, in order.
    pub fn around(file: &FsPath, roots: &[PathBuf], load: &'a Loader<'a>) -> Option<(Self, usize)> {
        let mut any_root = false;
        for root in roots {
            let Some(items) = load(root) else { continue };
            any_root = true;
            let mut modules = Modules::rooted(root, items, true, load);
            if let Some(found) = modules.find_file(0, file, 0) {
                return Some((modules, found));
            }
        }
        let items = load(file)?;
        let is_root = !any_root && items.has_main;
        Some((Modules::rooted(file, items, is_root, load), 0))
    }

    fn rooted(
        file: &FsPath,
        items: Arc<ModuleItems>,
        root_known: bool,
        load: &'a Loader<'a>,
    ) -> Self {
        let dir = file.parent().map(FsPath::to_path_buf).unwrap_or_default();
        let child_dirs = if root_known || is_mod_rs(file) {
            vec![dir]
        } else {
            // A root with children beside it, or a module `name.rs` with children in `name/`.
            let own = file.file_stem().map(|s| dir.join(s));
            std::iter::once(dir).chain(own).collect()
        };
        let mut modules = Modules {
            load,
            modules: Vec::new(),
            operators: Vec::new(),
            root_known,
        };
        modules.push(Module {
            parent: None,
            file_items: items,
            path_in_file: Vec::new(),
            file: file.to_path_buf(),
            child_dirs,
            path_attributes: true,
            children: HashMap::new(),
            operators: Vec::new(),
        });
        modules
    }

    fn push(&mut self, mut module: Module) -> usize {
        let id = self.modules.len();
        for index in 0..module.items().operators.len() {
            module.operators.push(self.operators.len());
            self.operators.push(OperatorId { module: id, index });
        }
        self.modules.push(module);
        id
    }

    pub fn operator(&self, id: usize) -> &OperatorItem {
        let OperatorId { module, index } = self.operators[id];
        &self.modules[module].items().operators[index]
    }

    pub fn module_of(&self, id: usize) -> usize {
        self.operators[id].module
    }

    /// The operators of module `module` and of the inline modules in it, by index.
    pub fn operators_in_file(&mut self, module: usize) -> Vec<usize> {
        let mut out = self.modules[module].operators.clone();
        let inline: Vec<String> = self.modules[module]
            .items()
            .children
            .iter()
            .filter(|c| matches!(c.body, ChildBody::Inline(_)))
            .map(|c| c.name.clone())
            .collect();
        for name in inline {
            if let Some(child) = self.child(module, &name) {
                out.extend(self.operators_in_file(child));
            }
        }
        out
    }

    /// The module whose file is `file`, searched below `module` along the directories that
    /// can hold it.
    fn find_file(&mut self, module: usize, file: &FsPath, depth: usize) -> Option<usize> {
        if self.modules[module].file == file && self.modules[module].path_in_file.is_empty() {
            return Some(module);
        }
        if depth > MAX_DEPTH {
            return None;
        }
        // Only the children whose files can hold `file` are loaded.
        let parent = &self.modules[module];
        let names: Vec<String> = parent
            .items()
            .children
            .iter()
            .filter(|c| match &c.body {
                ChildBody::Inline(_) | ChildBody::File(Some(_)) => true,
                ChildBody::File(None) => parent.child_dirs.iter().any(|d| {
                    file == d.join(format!("{}.rs", c.name)) || file.starts_with(d.join(&c.name))
                }),
            })
            .map(|c| c.name.clone())
            .collect();
        for name in names {
            let Some(child) = self.child(module, &name) else {
                continue;
            };
            if let Some(found) = self.find_file(child, file, depth + 1) {
                return Some(found);
            }
        }
        None
    }

    /// The child module `name` of `module`, loading its file if it has one.
    fn child(&mut self, module: usize, name: &str) -> Option<usize> {
        if let Some(known) = self.modules[module].children.get(name) {
            return *known;
        }
        let found = self.load_child(module, name);
        self.modules[module]
            .children
            .insert(name.to_string(), found);
        found
    }

    fn load_child(&mut self, module: usize, name: &str) -> Option<usize> {
        let parent = &self.modules[module];
        let mut matching = parent
            .items()
            .children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.name == name);
        let (position, child) = matching.next()?;
        if matching.next().is_some() || child.conditional {
            return None;
        }
        let module_entry = match &child.body {
            ChildBody::Inline(_) => {
                let mut path_in_file = parent.path_in_file.clone();
                path_in_file.push(position);
                Module {
                    parent: Some(module),
                    file_items: parent.file_items.clone(),
                    path_in_file,
                    file: parent.file.clone(),
                    child_dirs: parent.child_dirs.iter().map(|d| d.join(name)).collect(),
                    path_attributes: false,
                    children: HashMap::new(),
                    operators: Vec::new(),
                }
            }
            ChildBody::File(Some(path)) => {
                if !parent.path_attributes {
                    return None;
                }
                let file = parent.file.parent()?.join(path);
                let child_dirs = if is_mod_rs(&file) {
                    vec![file.parent()?.to_path_buf()]
                } else {
                    Vec::new()
                };
                Module {
                    parent: Some(module),
                    file_items: (self.load)(&file)?,
                    path_in_file: Vec::new(),
                    file,
                    child_dirs,
                    path_attributes: false,
                    children: HashMap::new(),
                    operators: Vec::new(),
                }
            }
            ChildBody::File(None) => {
                let mut found = parent.child_dirs.iter().flat_map(|d| {
                    [d.join(format!("{name}.rs")), d.join(name).join("mod.rs")]
                        .into_iter()
                        .filter_map(|f| (self.load)(&f).map(|items| (f, items)))
                });
                let (file, items) = found.next()?;
                if found.next().is_some() {
                    return None;
                }
                let dir = file.parent()?.to_path_buf();
                let child_dirs = if is_mod_rs(&file) {
                    vec![dir]
                } else {
                    vec![dir.join(name)]
                };
                Module {
                    parent: Some(module),
                    file_items: items,
                    path_in_file: Vec::new(),
                    file,
                    child_dirs,
                    path_attributes: true,
                    children: HashMap::new(),
                    operators: Vec::new(),
                }
            }
        };
        Some(self.push(module_entry))
    }

    /// The operator a call's path (`segments`), written in `module`, names.
    pub fn resolve_call(&mut self, module: usize, segments: &Option<Vec<String>>) -> Option<usize> {
        match self.resolve(module, segments.as_ref()?, Namespace::Operator, 0)? {
            Target::Operator(op) => Some(op),
            Target::Module(_) => None,
        }
    }

    fn resolve(
        &mut self,
        from: usize,
        path: &[String],
        last: Namespace,
        depth: usize,
    ) -> Option<Target> {
        let (name, leading) = path.split_last()?;
        if matches!(name.as_str(), "crate" | "self" | "super") {
            return None;
        }
        let at = self.module_path(from, leading, depth)?;
        self.lookup(at, name, last, depth)
    }

    /// The module `path` names from `from` (the empty path: `from` itself).
    fn module_path(&mut self, from: usize, path: &[String], depth: usize) -> Option<usize> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut at = from;
        let mut rest = path;
        match path.first().map(String::as_str) {
            Some("crate") => {
                if !self.root_known {
                    return None;
                }
                at = 0;
                rest = &path[1..];
            }
            Some("self") => rest = &path[1..],
            _ => {}
        }
        while let Some((first, tail)) = rest.split_first() {
            if first != "super" {
                break;
            }
            at = self.modules[at].parent?;
            rest = tail;
        }
        for segment in rest {
            if matches!(segment.as_str(), "crate" | "self" | "super") {
                return None;
            }
            match self.lookup(at, segment, Namespace::Module, depth)? {
                Target::Module(m) => at = m,
                Target::Operator(_) => return None,
            }
        }
        Some(at)
    }

    /// What `name` means in `module`, in `namespace`: its own items and named imports first,
    /// then what its globs bring in.
    fn lookup(
        &mut self,
        module: usize,
        name: &str,
        namespace: Namespace,
        depth: usize,
    ) -> Option<Target> {
        let mut found: Vec<Target> = Vec::new();
        match namespace {
            Namespace::Operator => {
                let items = self.modules[module].items();
                for (i, op) in items.operators.iter().enumerate() {
                    if op.name == name {
                        if op.conditional {
                            return None;
                        }
                        found.push(Target::Operator(self.modules[module].operators[i]));
                    }
                }
            }
            Namespace::Module => {
                let named = self.modules[module]
                    .items()
                    .children
                    .iter()
                    .any(|c| c.name == name);
                if named {
                    found.push(Target::Module(self.child(module, name)?));
                }
            }
        }
        let imports: Vec<(Option<String>, Vec<String>, bool)> = self.modules[module]
            .items()
            .imports
            .iter()
            .map(|i| (i.name.clone(), i.path.clone(), i.conditional))
            .collect();
        for (imported, path, conditional) in &imports {
            if imported.as_deref() != Some(name) {
                continue;
            }
            if *conditional {
                return None;
            }
            // An import of another namespace's item of that name resolves to nothing here; one
            // that cannot be resolved at all (another crate's) may be this item.
            match self.resolve(module, path, namespace, depth + 1) {
                Some(target) => found.push(target),
                None if self.resolves_elsewhere(module, path, namespace, depth) => {}
                None => return None,
            }
        }
        if found.is_empty() {
            for (imported, path, conditional) in &imports {
                if imported.is_some() {
                    continue;
                }
                if *conditional {
                    return None;
                }
                let Some(source) = self.module_path(module, path, depth + 1) else {
                    // Another crate's glob (a prelude): it brings in no operator of this crate.
                    continue;
                };
                if source == module {
                    continue;
                }
                if let Some(target) = self.lookup(source, name, namespace, depth + 1) {
                    found.push(target);
                }
            }
        }
        found.sort_by_key(|t| match t {
            Target::Module(m) => (0, *m),
            Target::Operator(o) => (1, *o),
        });
        found.dedup();
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Whether `path` names something of this crate in the other namespace (an import of a
    /// module named like an operator, say), so that it is not this namespace's item.
    fn resolves_elsewhere(
        &mut self,
        module: usize,
        path: &[String],
        namespace: Namespace,
        depth: usize,
    ) -> bool {
        let other = match namespace {
            Namespace::Module => Namespace::Operator,
            Namespace::Operator => Namespace::Module,
        };
        self.resolve(module, path, other, depth + 1).is_some()
    }
}

fn is_mod_rs(file: &FsPath) -> bool {
    file.file_name().is_some_and(|n| n == "mod.rs")
}
