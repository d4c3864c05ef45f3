//! One stage → one checked, fused loop nest.
//!
//! Every node instance (a node, with a slot bound for each reduction variable it depends on)
//! becomes one `let`, placed in the outermost section it can live in: the stage prologue
//! (uniform: program scalars, literals, bounds), the per-column section (depends on the
//! horizontal point only) or the vertical loop. Reductions are unrolled over their static
//! neighbour count; a slot whose entry is -1 reads a safe point and is masked out.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use gt4rs_ir::fieldview::{BinaryOp, Program, ReduceOp};
use gt4rs_ir::stage::{AccessPath, Bound, Node, NodeId, Slot, Source, Stage, StageProgram, Step};
use gt4rs_ir::{DimKind, ScalarType, ScalarValue, Type};

use super::ops::{self, Division};
use super::rust_type;

/// Where a node instance's `let` lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Uniform,
    Column,
    Level,
}

/// How a load reaches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoadKind {
    /// No vertical dependency: read once per column (or once per stage).
    Hoisted,
    /// `base(column) + (k + shift) * stride_k`: a column, read level by level.
    Column { shift: i64 },
    /// Position depends on the level in a way a column cannot express: computed and checked
    /// at every level.
    General,
}

struct FieldInfo {
    name: String,
    dims: Vec<String>,
    dtype: ScalarType,
}

pub(super) fn emit(
    program: &Program,
    lowered: &StageProgram,
    used_offsets: &[String],
    index: usize,
    stage: &Stage,
) -> Result<TokenStream, String> {
    let mut e = StageEmitter::new(program, lowered, used_offsets, stage)?;
    e.run(index)
}

struct StageEmitter<'a> {
    program: &'a Program,
    lowered: &'a StageProgram,
    used_offsets: &'a [String],
    stage: &'a Stage,
    /// Domain dimensions other than the vertical one, outer to inner.
    outer: Vec<(usize, String)>,
    vertical: Option<(usize, String)>,
    /// Per node: reduction variables it depends on, and its section.
    vars: Vec<BTreeSet<u32>>,
    sections: Vec<Section>,
    load_kinds: Vec<Option<LoadKind>>,
    uniform: Vec<TokenStream>,
    column: Vec<TokenStream>,
    /// Statements of the vertical loop; a column read carries its instance name, so the
    /// fast path can replace it by a slice read.
    level: Vec<(Option<syn::Ident>, TokenStream)>,
    /// Some statement of the vertical loop may report an error (and leave the point).
    level_can_fail: bool,
    /// Column reads of the fast path: (instance name, base pointer name, field param).
    columns: Vec<(syn::Ident, syn::Ident, Source)>,
    /// Values computed outside the vertical loop that the vertical loop reads.
    level_inputs: BTreeMap<String, ScalarType>,
    level_names: HashSet<String>,
    emitted: HashSet<String>,
    /// Column reads to check before the loop: (field param, vertical shift).
    vertical_checks: BTreeSet<(Source, i64)>,
    /// Reads along a horizontal domain dimension shifted by a static offset, checked before
    /// the loop: (field param, field dimension position, domain dimension, shift).
    horizontal_checks: BTreeSet<(Source, usize, usize, i64)>,
    read_fields: BTreeSet<Source>,
}

fn instance_name(id: NodeId, vars: &BTreeSet<u32>, bind: &BTreeMap<u32, u32>) -> String {
    let mut s = format!("v{id}");
    for v in vars {
        s.push_str(&format!("_{}", bind.get(v).copied().unwrap_or(0)));
    }
    s
}

/// The prefix of the run-time names of a field argument (`f3`, `f3_o`, …) or temporary (`g0`…).
fn prefix(source: impl std::borrow::Borrow<Source>) -> String {
    let source = *source.borrow();
    match source {
        Source::Param(p) => format!("f{p}"),
        Source::Temporary(t) => format!("g{t}"),
    }
}

fn ident(s: &str) -> syn::Ident {
    syn::Ident::new(s, Span::call_site())
}

impl<'a> StageEmitter<'a> {
    fn new(
        program: &'a Program,
        lowered: &'a StageProgram,
        used_offsets: &'a [String],
        stage: &'a Stage,
    ) -> Result<Self, String> {
        let mut outer = Vec::new();
        let mut vertical = None;
        for (j, r) in stage.domain.iter().enumerate() {
            match lowered.dim(&r.dim).map(|d| d.kind) {
                Some(DimKind::Vertical) => {
                    if vertical.is_some() {
                        return Err(format!(
                            "an output has two vertical dimensions (`{}` and `{}`)",
                            vertical
                                .map(|(_, d): (usize, String)| d)
                                .unwrap_or_default(),
                            r.dim
                        ));
                    }
                    vertical = Some((j, r.dim.clone()));
                }
                Some(_) => outer.push((j, r.dim.clone())),
                None => return Err(format!("unknown dimension `{}`", r.dim)),
            }
        }
        if stage.scan.is_some() && vertical.is_none() {
            return Err("a scan writes an output without a vertical dimension".into());
        }
        let mut e = StageEmitter {
            program,
            lowered,
            used_offsets,
            stage,
            outer,
            vertical,
            vars: Vec::new(),
            sections: Vec::new(),
            load_kinds: Vec::new(),
            uniform: Vec::new(),
            column: Vec::new(),
            level: Vec::new(),
            level_can_fail: false,
            columns: Vec::new(),
            level_inputs: BTreeMap::new(),
            level_names: HashSet::new(),
            emitted: HashSet::new(),
            vertical_checks: BTreeSet::new(),
            horizontal_checks: BTreeSet::new(),
            read_fields: BTreeSet::new(),
        };
        e.classify()?;
        Ok(e)
    }

    fn field(&self, source: Source) -> Result<FieldInfo, String> {
        let p = match source {
            Source::Param(p) => p,
            Source::Temporary(t) => {
                let temp = self
                    .lowered
                    .temporaries
                    .get(t as usize)
                    .ok_or_else(|| format!("temporary {t} does not exist"))?;
                return Ok(FieldInfo {
                    name: format!("temporary {t}"),
                    dims: temp.dims.clone(),
                    dtype: temp.dtype,
                });
            }
        };
        match self.program.params.get(p as usize) {
            Some(param) => match &param.ty {
                Type::Field { dims, dtype } => Ok(FieldInfo {
                    name: param.name.clone(),
                    dims: dims.clone(),
                    dtype: *dtype,
                }),
                other => Err(format!(
                    "`{}` is read as a field but is {other}",
                    param.name
                )),
            },
            None => Err(format!("parameter {p} does not exist")),
        }
    }

    fn is_vertical(&self, dim: &str) -> bool {
        self.lowered.dim(dim).map(|d| d.kind) == Some(DimKind::Vertical)
    }

    /// Which stage dimensions (horizontal: `Column`, vertical: `Level`) each position of a path
    /// depends on, and whether the vertical position is `k + static shift`.
    fn path_deps(
        &self,
        path: &AccessPath,
    ) -> Result<(BTreeMap<String, Section>, Option<i64>), String> {
        let mut deps: BTreeMap<String, Section> = BTreeMap::new();
        for (_, d) in &self.outer {
            deps.insert(d.clone(), Section::Column);
        }
        let mut shift = None;
        if let Some((_, d)) = &self.vertical {
            deps.insert(d.clone(), Section::Level);
            shift = Some(0i64);
        }
        for step in &path.steps {
            match step {
                Step::Cartesian { dim, offset } => {
                    if !deps.contains_key(dim) {
                        return Err(format!(
                            "a shift along `{dim}`, which the stage's point does not have"
                        ));
                    }
                    if self.is_vertical(dim) {
                        shift = shift.map(|s| s + offset);
                    }
                }
                Step::Dynamic { dim, offset } => {
                    let s = self.sections[*offset as usize];
                    let d = deps.get_mut(dim).ok_or_else(|| {
                        format!("a shift along `{dim}`, which the stage's point does not have")
                    })?;
                    *d = (*d).max(s);
                    if self.is_vertical(dim) {
                        shift = None;
                    }
                }
                Step::Neighbor { offset, .. } => {
                    let info = self
                        .lowered
                        .offset(offset)
                        .ok_or_else(|| format!("unknown offset `{offset}`"))?;
                    let from = deps.remove(&info.from).ok_or_else(|| {
                        format!(
                            "a neighbour shift through `{offset}` from a point without `{}`",
                            info.from
                        )
                    })?;
                    deps.insert(info.to.clone(), from.max(Section::Column));
                }
            }
        }
        Ok((deps, shift))
    }

    fn classify(&mut self) -> Result<(), String> {
        for (id, node) in self.stage.nodes.iter().enumerate() {
            let mut vars: BTreeSet<u32> = node.slot_vars().into_iter().collect();
            let mut section = Section::Uniform;
            for c in node.children() {
                vars.extend(self.vars[c as usize].iter().copied());
                section = section.max(self.sections[c as usize]);
            }
            let mut kind = None;
            match node {
                Node::Reduce { var, center, .. } => {
                    vars.remove(var);
                    let (deps, _) = self.path_deps(center)?;
                    let info = self
                        .lowered
                        .offset(self.reduce_offset(id))
                        .ok_or("unknown offset")?;
                    let d = deps.get(&info.from).copied().ok_or_else(|| {
                        format!(
                            "a reduction over `{}` at a point without `{}`",
                            info.name, info.from
                        )
                    })?;
                    section = section.max(d);
                }
                Node::Load {
                    source,
                    path,
                    guarded,
                    ..
                } => {
                    let f = self.field(*source)?;
                    let (deps, shift) = self.path_deps(path)?;
                    let mut horizontal = Section::Uniform;
                    let mut has_vertical = false;
                    for d in &f.dims {
                        if self.lowered.dim(d).map(|i| i.kind) == Some(DimKind::Local) {
                            continue;
                        }
                        let dep = *deps.get(d).ok_or_else(|| {
                            format!(
                                "`{}` is read at a point without its dimension `{d}`",
                                f.name
                            )
                        })?;
                        if self.is_vertical(d) {
                            has_vertical = true;
                        } else {
                            horizontal = horizontal.max(dep);
                        }
                    }
                    self.read_fields.insert(*source);
                    let k = if has_vertical {
                        match shift {
                            Some(s) if !*guarded && horizontal < Section::Level => {
                                LoadKind::Column { shift: s }
                            }
                            _ => LoadKind::General,
                        }
                    } else if horizontal == Section::Level {
                        LoadKind::General
                    } else {
                        LoadKind::Hoisted
                    };
                    section = match k {
                        LoadKind::Hoisted => section.max(horizontal),
                        _ => Section::Level,
                    };
                    kind = Some(k);
                }
                Node::Index { dim, path } => {
                    let (deps, _) = self.path_deps(path)?;
                    let d = deps
                        .get(dim)
                        .copied()
                        .ok_or_else(|| format!("a condition on `{dim}` at a point without it"))?;
                    section = section.max(d);
                }
                Node::Carry { .. } => section = Section::Level,
                _ => {}
            }
            if !vars.is_empty() {
                // Slot-dependent values are at least per column (the slot's neighbour is).
                section = section.max(Section::Column);
            }
            self.vars.push(vars);
            self.sections.push(section);
            self.load_kinds.push(kind);
        }
        if let Some(scan) = &self.stage.scan {
            for c in &scan.carry {
                if self.sections[c.init as usize] == Section::Level {
                    return Err("a scan's initial carry depends on the level".into());
                }
            }
        }
        Ok(())
    }

    fn reduce_offset(&self, id: usize) -> &'a str {
        match &self.stage.nodes[id] {
            Node::Reduce { offset, .. } => offset,
            _ => "",
        }
    }

    fn table_index(&self, offset: &str) -> Result<usize, String> {
        self.used_offsets
            .iter()
            .position(|o| o == offset)
            .ok_or_else(|| format!("offset `{offset}` is not among the program's connectivities"))
    }

    fn point_expr(&self, section: Section) -> TokenStream {
        let mut items: Vec<TokenStream> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (j, (_, d)) in self.outer.iter().enumerate() {
            let i = format_ident!("i{}", j);
            items.push(quote!(#i));
            names.push(d.clone());
        }
        if let Some((_, d)) = &self.vertical {
            if section == Section::Level {
                items.push(quote!(k));
                names.push(d.clone());
            }
        }
        let fmt = names
            .iter()
            .map(|n| format!("{n} {{}}"))
            .collect::<Vec<_>>()
            .join(", ");
        quote!(format!(#fmt, #(#items),*))
    }

    fn push(&mut self, section: Section, ts: TokenStream) {
        match section {
            Section::Uniform => self.uniform.push(ts),
            Section::Column => self.column.push(ts),
            Section::Level => self.level.push((None, ts)),
        }
    }

    /// A reference to instance `name` of `id` from code in `from`; records what the vertical
    /// loop needs from outside.
    fn reference(&mut self, id: NodeId, bind: &BTreeMap<u32, u32>, from: Section) -> TokenStream {
        let name = instance_name(id, &self.vars[id as usize], bind);
        if from == Section::Level && self.sections[id as usize] != Section::Level {
            self.level_inputs
                .insert(name.clone(), self.stage.nodes[id as usize].dtype());
        }
        let i = ident(&name);
        quote!(#i)
    }

    /// The integer `division` of `a` by `b`, reporting a zero divisor: inside the point loop
    /// through the error slot, in the uniform section (evaluated once, before the loop) by
    /// returning the error.
    fn checked_division(
        &mut self,
        section: Section,
        division: Division,
        a: TokenStream,
        b: TokenStream,
    ) -> TokenStream {
        let message = quote!("integer division by zero".to_string());
        let fail = if section == Section::Uniform {
            quote! {{
                return Err(::gt4rs::Error::Execution { program: NAME.to_string(), message: #message });
            }}
        } else {
            self.fail(section, message)
        };
        let checked = division.checked(a, b);
        quote!(match #checked { ::core::option::Option::Some(q) => q, ::core::option::Option::None => #fail })
    }

    fn fail(&mut self, section: Section, message: TokenStream) -> TokenStream {
        if section == Section::Level {
            self.level_can_fail = true;
        }
        quote! {{
            err.record(|| ::gt4rs::Error::Execution { program: NAME.to_string(), message: #message });
            continue 'points;
        }}
    }

    /// Statements (into `section`) resolving `path` from the stage's point; returns the position
    /// expression per dimension.
    #[allow(clippy::too_many_arguments)]
    fn resolve_path(
        &mut self,
        name: &str,
        path: &AccessPath,
        bind: &BTreeMap<u32, u32>,
        section: Section,
        guarded: bool,
        safe_field: Option<(Source, &FieldInfo)>,
    ) -> Result<BTreeMap<String, TokenStream>, String> {
        let mut pos: BTreeMap<String, TokenStream> = BTreeMap::new();
        for (j, (_, d)) in self.outer.iter().enumerate() {
            let i = format_ident!("i{}", j);
            pos.insert(d.clone(), quote!(#i));
        }
        if let Some((_, d)) = &self.vertical {
            pos.insert(d.clone(), quote!(k));
        }
        for (n, step) in path.steps.iter().enumerate() {
            match step {
                Step::Cartesian { dim, offset } => {
                    let p = pos.get_mut(dim).ok_or("shift along a missing dimension")?;
                    *p = quote!((#p + #offset));
                }
                Step::Dynamic { dim, offset } => {
                    let o = self.reference(*offset, bind, section);
                    let p = pos.get_mut(dim).ok_or("shift along a missing dimension")?;
                    *p = quote!((#p + (#o as i64)));
                }
                Step::Neighbor { offset, slot } => {
                    let info = self.lowered.offset(offset).ok_or("unknown offset")?.clone();
                    let t = self.table_index(offset)?;
                    let table = format_ident!("t{}", t);
                    let rows = format_ident!("t{}_rows", t);
                    let row_expr = pos
                        .remove(&info.from)
                        .ok_or("neighbour shift from a missing dimension")?;
                    let row = format_ident!("{}_r{}", name, n);
                    let entry = format_ident!("{}_e{}", name, n);
                    let count = info.count as usize;
                    let (slot_value, is_var) = match slot {
                        Slot::Fixed(s) => (*s as usize, false),
                        Slot::Var(v) => (bind.get(v).copied().unwrap_or(0) as usize, true),
                    };
                    let point = self.point_expr(section);
                    let offset_name = offset.clone();
                    let from_name = info.from.clone();
                    if guarded {
                        self.push(
                            section,
                            quote! {
                                let #row: i64 = (#row_expr).clamp(0, (#rows - 1).max(0));
                            },
                        );
                    } else {
                        let fail = self.fail(section, quote!(format!(
                            "{} index {} (reached from point {}) is outside the {} rows of connectivity `{}`",
                            #from_name, #row, #point, #rows, #offset_name)));
                        self.push(
                            section,
                            quote! {
                                let #row: i64 = #row_expr;
                                if #row < 0 || #row >= #rows #fail
                            },
                        );
                    }
                    self.push(section, quote! {
                        // SAFETY: `row` is in `0..rows` (checked or clamped above) and
                        // `slot < count`, so the index is inside the row-major table.
                        let #entry: i64 = unsafe { *#table.get_unchecked(#row as usize * #count + #slot_value) } as i64;
                    });
                    if is_var || guarded {
                        // A skipped slot of a reduction (masked out) or a position outside a
                        // taken `concat_where` branch (discarded): read any valid point.
                        let safe = match safe_field {
                            Some((p, f)) => match f.dims.iter().position(|d| d == &info.to) {
                                Some(dpos) => {
                                    let o = format_ident!("{}_o", prefix(p));
                                    quote!(#o[#dpos])
                                }
                                None => quote!(0i64),
                            },
                            None => quote!(0i64),
                        };
                        self.push(
                            section,
                            quote! {
                                let #entry: i64 = if #entry < 0 { #safe } else { #entry };
                            },
                        );
                    } else {
                        let fail = self.fail(section, quote!(format!(
                            "slot {} of connectivity `{}` at {} index {} (reached from point {}) is -1 (no neighbour), but the point is inside the domain",
                            #slot_value, #offset_name, #from_name, #row, #point)));
                        self.push(
                            section,
                            quote! {
                                if #entry < 0 #fail
                            },
                        );
                    }
                    pos.insert(info.to.clone(), quote!(#entry));
                }
            }
        }
        Ok(pos)
    }

    fn emit_load(
        &mut self,
        id: NodeId,
        bind: &BTreeMap<u32, u32>,
        name: &str,
    ) -> Result<(), String> {
        let Node::Load {
            source,
            path,
            local,
            dtype,
            guarded,
        } = &self.stage.nodes[id as usize]
        else {
            return Ok(());
        };
        let p = *source;
        let f = self.field(p)?;
        let kind = self.load_kinds[id as usize].unwrap_or(LoadKind::General);
        let pos_section = match kind {
            LoadKind::General => Section::Level,
            LoadKind::Column { .. } => Section::Column,
            LoadKind::Hoisted => self.sections[id as usize],
        };
        let pos = self.resolve_path(name, path, bind, pos_section, *guarded, Some((p, &f)))?;
        let fp = format_ident!("{}", prefix(p));
        let o = format_ident!("{}_o", prefix(p));
        let n = format_ident!("{}_n", prefix(p));
        let s = format_ident!("{}_s", prefix(p));
        let ty = rust_type(*dtype);
        let point = self.point_expr(pos_section);
        let mut terms = Vec::new();
        let mut vertical_stride = None;
        // With only static Cartesian steps, a position is a domain index plus a constant: its
        // range over the whole domain is checked once, before the loop.
        let static_shifts = !*guarded
            && path
                .steps
                .iter()
                .all(|s| matches!(s, Step::Cartesian { .. }));
        for (dpos, d) in f.dims.iter().enumerate() {
            let is_local = self.lowered.dim(d).map(|i| i.kind) == Some(DimKind::Local);
            if is_local {
                let slot = match local {
                    Some(Slot::Fixed(s)) => *s as i64,
                    Some(Slot::Var(v)) => bind.get(v).copied().unwrap_or(0) as i64,
                    None => return Err(format!("sparse field `{}` read without a slot", f.name)),
                };
                // The local dimension's extent is checked against the offset's count before
                // the loop (see `run`), so the slot is in range.
                terms.push(quote!((#slot - #o[#dpos]) as isize * #s[#dpos]));
                continue;
            }
            if self.is_vertical(d) && matches!(kind, LoadKind::Column { .. }) {
                vertical_stride = Some(dpos);
                continue;
            }
            let pexpr = pos
                .get(d)
                .cloned()
                .ok_or_else(|| format!("no position for `{d}`"))?;
            let pv = format_ident!("{}_p{}", name, dpos);
            let domain_dim = self.outer.iter().find(|(_, od)| od == d).map(|(j, _)| *j);
            if *guarded {
                self.push(
                    pos_section,
                    quote! {
                        let #pv: i64 = (#pexpr).clamp(#o[#dpos], #o[#dpos] + #n[#dpos] - 1);
                    },
                );
            } else if let (true, Some(j)) = (static_shifts, domain_dim) {
                let shift: i64 = path
                    .steps
                    .iter()
                    .map(|s| match s {
                        Step::Cartesian { dim, offset } if dim == d => *offset,
                        _ => 0,
                    })
                    .sum();
                self.horizontal_checks.insert((p, dpos, j, shift));
                self.push(pos_section, quote!(let #pv: i64 = #pexpr;));
            } else {
                let fname = f.name.clone();
                let fail = self.fail(pos_section, quote!(format!(
                    "argument `{}` is read at {} index {} (from point {}), outside its domain {}..{}",
                    #fname, #d, #pv, #point, #o[#dpos], #o[#dpos] + #n[#dpos])));
                self.push(
                    pos_section,
                    quote! {
                        let #pv: i64 = #pexpr;
                        if #pv < #o[#dpos] || #pv >= #o[#dpos] + #n[#dpos] #fail
                    },
                );
            }
            terms.push(quote!((#pv - #o[#dpos]) as isize * #s[#dpos]));
        }
        let name_id = ident(name);
        match kind {
            LoadKind::Column { shift } => {
                let kd = vertical_stride.ok_or("column load without a vertical dimension")?;
                self.vertical_checks.insert((p, shift));
                let base = format_ident!("{}_b", name);
                self.push(Section::Column, quote! {
                    let #base: *mut #ty = #fp.get().wrapping_offset(0isize #(+ #terms)* + (#shift - #o[#kd]) as isize * #s[#kd]);
                });
                self.level.push((
                    Some(name_id.clone()),
                    quote! {
                        // SAFETY: the horizontal position was checked above and `k + shift` lies in
                        // the field's vertical range for every level of the domain (checked before
                        // the loop), so the element is inside the buffer.
                        let #name_id: #ty = unsafe { *#base.offset(k as isize * #s[#kd]) };
                    },
                ));
                self.columns.push((name_id, base, p));
            }
            _ => {
                let section = if kind == LoadKind::General {
                    Section::Level
                } else {
                    self.sections[id as usize]
                };
                self.push(
                    section,
                    quote! {
                        // SAFETY: every position was checked (or clamped) against the field's
                        // domain above, so the element is inside the buffer.
                        let #name_id: #ty = unsafe { *#fp.get().offset(0isize #(+ #terms)*) };
                    },
                );
            }
        }
        Ok(())
    }

    /// Emits instance (`id`, `bind`) and, for a reduction, its unrolled body.
    fn emit_instance(&mut self, id: NodeId, bind: &BTreeMap<u32, u32>) -> Result<(), String> {
        let name = instance_name(id, &self.vars[id as usize], bind);
        if !self.emitted.insert(name.clone()) {
            return Ok(());
        }
        let section = self.sections[id as usize];
        if section == Section::Level {
            self.level_names.insert(name.clone());
        }
        let node = &self.stage.nodes[id as usize];
        let ty = rust_type(node.dtype());
        let name_id = ident(&name);
        let value = match node {
            Node::Load { .. } => return self.emit_load(id, bind, &name),
            Node::Index { dim, path } => {
                let path = if self.is_vertical(dim) {
                    path.without_neighbor_steps()
                } else {
                    path.clone()
                };
                let pos = self.resolve_path(&name, &path, bind, section, false, None)?;
                let p = pos
                    .get(dim)
                    .cloned()
                    .ok_or("index of a missing dimension")?;
                quote!(#p)
            }
            Node::Scalar { param, .. } => {
                let s = format_ident!("s{}", param);
                quote!(#s)
            }
            Node::Literal { value, dtype } => ops::literal(*value, *dtype),
            Node::Unary { op, arg, dtype } => {
                let a = self.reference(*arg, bind, section);
                ops::unary(*op, *dtype, a)
            }
            Node::Binary {
                op,
                lhs,
                rhs,
                dtype,
            } => {
                let a = self.reference(*lhs, bind, section);
                let b = self.reference(*rhs, bind, section);
                match Division::of_binary(*op, *dtype) {
                    Some(division) => self.checked_division(section, division, a, b),
                    None => ops::binary(*op, *dtype, a, b),
                }
            }
            Node::Compare { op, lhs, rhs } => {
                let a = self.reference(*lhs, bind, section);
                let b = self.reference(*rhs, bind, section);
                ops::compare(*op, a, b)
            }
            Node::Math { fun, args, dtype } => {
                let types: Vec<ScalarType> = args
                    .iter()
                    .map(|a| self.stage.nodes[*a as usize].dtype())
                    .collect();
                let refs: Vec<TokenStream> = args
                    .iter()
                    .map(|a| self.reference(*a, bind, section))
                    .collect();
                let operand = types.first().copied().unwrap_or(*dtype);
                match (Division::of_math(*fun, operand), refs.as_slice()) {
                    (Some(division), [a, b]) => {
                        self.checked_division(section, division, a.clone(), b.clone())
                    }
                    _ => ops::math(*fun, &types, &refs)?,
                }
            }
            Node::Cast { arg, to } => {
                let from = self.stage.nodes[*arg as usize].dtype();
                let a = self.reference(*arg, bind, section);
                ops::cast(a, from, *to)
            }
            Node::Select {
                cond,
                if_true,
                if_false,
                ..
            } => {
                let c = self.reference(*cond, bind, section);
                let t = self.reference(*if_true, bind, section);
                let f = self.reference(*if_false, bind, section);
                ops::select(c, t, f)
            }
            Node::Carry { index, .. } => {
                let c = format_ident!("c{}", index);
                quote!(#c)
            }
            Node::Reduce {
                op,
                offset,
                center,
                var,
                body,
                value,
                dtype,
            } => {
                let info = self.lowered.offset(offset).ok_or("unknown offset")?.clone();
                let t = self.table_index(offset)?;
                let table = format_ident!("t{}", t);
                let (op, var, body, value, dtype) = (*op, *var, body.clone(), *value, *dtype);
                let center_section = self.center_section(center, &info.from)?;
                let center_pos = self.resolve_path(
                    &format!("{name}_c"),
                    center,
                    bind,
                    center_section,
                    false,
                    None,
                )?;
                let row_expr = center_pos
                    .get(&info.from)
                    .cloned()
                    .ok_or("reduction at a point without its dimension")?;
                let rows = format_ident!("t{}_rows", t);
                let row = format_ident!("{}_row", name);
                let point = self.point_expr(center_section);
                let offset_name = offset.clone();
                let from_name = info.from.clone();
                let fail = self.fail(
                    center_section,
                    quote!(format!(
                    "{} index {} (point {}) is outside the {} rows of connectivity `{}`",
                    #from_name, #row, #point, #rows, #offset_name)),
                );
                self.push(
                    center_section,
                    quote! {
                        let #row: i64 = #row_expr;
                        if #row < 0 || #row >= #rows #fail
                    },
                );
                let count = info.count as usize;
                let mut acc = match op {
                    ReduceOp::Sum => ops::value(ScalarValue::zero(dtype)),
                    ReduceOp::Max => ops::value(ScalarValue::lowest(dtype)),
                    ReduceOp::Min => ops::value(ScalarValue::highest(dtype)),
                };
                for j in 0..count {
                    let mut inner = bind.clone();
                    inner.insert(var, j as u32);
                    let ok = format_ident!("{}_ok{}", name, j);
                    self.push(center_section, quote! {
                        // SAFETY: `row` is in `0..rows` (checked above) and `j < count`.
                        let #ok: bool = unsafe { *#table.get_unchecked(#row as usize * #count + #j) } >= 0;
                    });
                    if section == Section::Level && center_section != Section::Level {
                        self.level_inputs.insert(ok.to_string(), ScalarType::Bool);
                    }
                    for b in &body {
                        let deeper = self.vars[*b as usize]
                            .iter()
                            .any(|v| !inner.contains_key(v));
                        if !deeper {
                            self.emit_instance(*b, &inner)?;
                        }
                    }
                    let v = self.reference(value, &inner, section);
                    let step = match op {
                        ReduceOp::Sum => ops::binary(BinaryOp::Add, dtype, acc.clone(), v),
                        ReduceOp::Max => ops::min_max(true, acc.clone(), v),
                        ReduceOp::Min => ops::min_max(false, acc.clone(), v),
                    };
                    let acc_name = format_ident!("{}_acc{}", name, j);
                    self.push(
                        section,
                        quote! {
                            let #acc_name: #ty = if #ok { #step } else { #acc };
                        },
                    );
                    acc = quote!(#acc_name);
                }
                acc
            }
        };
        self.push(section, quote!(let #name_id: #ty = #value;));
        Ok(())
    }

    /// Where a reduction's neighbour row is known: per column, or per level when the center
    /// is reached through a level-dependent dynamic shift.
    fn center_section(&self, center: &AccessPath, from: &str) -> Result<Section, String> {
        let (deps, _) = self.path_deps(center)?;
        let d = deps
            .get(from)
            .copied()
            .ok_or_else(|| format!("a reduction at a point without `{from}`"))?;
        Ok(d.max(Section::Column))
    }

    /// The value of a domain bound (a range's `end` or start); `output_full` for
    /// [`Bound::OutputFull`].
    fn bound(&self, b: &Bound, output_full: TokenStream, end: bool) -> Result<TokenStream, String> {
        Ok(match b {
            Bound::Node(nid) => {
                let i = ident(&format!("v{nid}"));
                quote!(#i)
            }
            Bound::OutputFull => output_full,
            Bound::FieldStart { param, dim } | Bound::FieldEnd { param, dim } => {
                let f = self.field(Source::Param(*param))?;
                let dpos = f
                    .dims
                    .iter()
                    .position(|d| d == dim)
                    .ok_or_else(|| format!("`{}` has no dimension `{dim}`", f.name))?;
                let o = format_ident!("{}_o", prefix(Source::Param(*param)));
                let n = format_ident!("{}_n", prefix(Source::Param(*param)));
                if matches!(b, Bound::FieldStart { .. }) {
                    quote!(#o[#dpos])
                } else {
                    quote!((#o[#dpos] + #n[#dpos]))
                }
            }
            Bound::TargetSize { offset } => {
                let t = self.table_index(offset)?;
                quote!((self.connectivities[#t].target_size() as i64))
            }
            Bound::Reach { .. } => {
                let reach = self.reach(b)?;
                if end {
                    quote!(#reach.1)
                } else {
                    quote!(#reach.0)
                }
            }
        })
    }

    /// `(least, greatest + 1)` of a [`Bound::Reach`]: one pass over the table rows it names.
    fn reach(&self, b: &Bound) -> Result<TokenStream, String> {
        let Bound::Reach {
            offset,
            rows_start,
            rows_end,
        } = b
        else {
            return Err("not a reach bound".into());
        };
        let t = self.table_index(offset)?;
        let lo = self.bound(rows_start, quote!(0), false)?;
        let hi = self.bound(rows_end, quote!(0), true)?;
        Ok(quote!(self.connectivities[#t].reach(#lo, #hi)))
    }

    fn run(&mut self, index: usize) -> Result<TokenStream, String> {
        let stage = self.stage;
        // Every node outside any reduction body, in topological order.
        for id in 0..stage.nodes.len() as NodeId {
            if self.vars[id as usize].is_empty() {
                self.emit_instance(id, &BTreeMap::new())?;
            }
        }
        let out_info: Vec<(Source, FieldInfo)> = stage
            .outputs
            .iter()
            .map(|o| self.field(o.target).map(|f| (o.target, f)))
            .collect::<Result<_, _>>()?;
        let first_out = out_info
            .first()
            .map(|(p, _)| *p)
            .ok_or("a stage without outputs")?;

        // Domain bounds.
        let mut bounds = Vec::new();
        for (j, r) in stage.domain.iter().enumerate() {
            let lo = format_ident!("d{}_lo", j);
            let hi = format_ident!("d{}_hi", j);
            let o = format_ident!("{}_o", prefix(first_out));
            let n = format_ident!("{}_n", prefix(first_out));
            if let (Bound::Reach { .. }, true) = (&r.start, r.start == r.end) {
                // One pass over the table gives both ends.
                let reach = self.reach(&r.start)?;
                bounds.push(quote! {
                    let (#lo, #hi): (i64, i64) = #reach;
                    let #hi: i64 = #hi.max(#lo);
                });
                continue;
            }
            let start = self.bound(&r.start, quote!(#o[#j]), false)?;
            let end = self.bound(&r.end, quote!(#o[#j] + #n[#j]), true)?;
            bounds.push(quote! {
                let #lo: i64 = #start;
                let #hi: i64 = (#end).max(#lo);
            });
        }
        // Temporaries this stage writes: sized to the domain, row-major, in the leased buffers.
        for (t, f) in &out_info {
            let Source::Temporary(_) = t else { continue };
            let (g, o, n, s) = (
                format_ident!("{}", prefix(t)),
                format_ident!("{}_o", prefix(t)),
                format_ident!("{}_n", prefix(t)),
                format_ident!("{}_s", prefix(t)),
            );
            let buf = format_ident!("{}_buf", prefix(t));
            let rank = f.dims.len();
            let los: Vec<_> = (0..rank).map(|j| format_ident!("d{}_lo", j)).collect();
            let his: Vec<_> = (0..rank).map(|j| format_ident!("d{}_hi", j)).collect();
            // An empty reach still spans one point at its origin, where a reduction's
            // masked-out slot reads (and discards) a value: that read stays inside the extent.
            let extents: Vec<TokenStream> = (0..rank)
                .map(|j| {
                    let (lo, hi) = (&los[j], &his[j]);
                    match stage.domain.get(j).map(|r| &r.start) {
                        Some(Bound::Reach { .. }) => quote!((#hi - #lo).max(1)),
                        _ => quote!(#hi - #lo),
                    }
                })
                .collect();
            bounds.push(quote! {
                #o = [#(#los),*];
                #n = [#(#extents),*];
                let mut stride: isize = 1;
                // At least one element per dimension: a reduction's masked-out slot reads the
                // temporary's origin even where the reach is empty (every slot is -1).
                let mut len: usize = 1;
                for d in (0..#rank).rev() {
                    #s[d] = stride;
                    stride *= #n[d] as isize;
                    len *= (#n[d] as usize).max(1);
                }
                ::gt4rs::__private::cpu::ensure_len(&mut scratch.#buf, len);
                #g = ::gt4rs::__private::cpu::Ptr::of_mut(scratch.#buf.as_mut_ptr());
            });
        }
        let program_name = self.program.name.clone();
        // Output domain checks.
        let mut checks = Vec::new();
        for (p, f) in &out_info {
            for (j, r) in stage.domain.iter().enumerate() {
                let dpos = f
                    .dims
                    .iter()
                    .position(|d| d == &r.dim)
                    .ok_or("output without a domain dimension")?;
                let lo = format_ident!("d{}_lo", j);
                let hi = format_ident!("d{}_hi", j);
                let o = format_ident!("{}_o", prefix(p));
                let n = format_ident!("{}_n", prefix(p));
                let fname = &f.name;
                let dim = &r.dim;
                checks.push(quote! {
                    if #lo < #o[#dpos] || #hi > #o[#dpos] + #n[#dpos] {
                        return Err(::gt4rs::Error::Domain {
                            program: #program_name.to_string(),
                            message: format!(
                                "stage {}: the domain {}..{} along {} is not inside output `{}`, which covers {}..{}",
                                #index, #lo, #hi, #dim, #fname, #o[#dpos], #o[#dpos] + #n[#dpos]),
                        });
                    }
                });
            }
        }
        // Read fields are non-empty (clamped and masked reads need some valid point), and
        // local dimensions hold the offset's count.
        for p in self.read_fields.clone() {
            if let Source::Temporary(_) = p {
                // Its buffer holds a point even where its extent is empty (see above).
                continue;
            }
            let f = self.field(p)?;
            let n = format_ident!("{}_n", prefix(p));
            let fname = &f.name;
            for (dpos, d) in f.dims.iter().enumerate() {
                let local_count = self
                    .lowered
                    .offset(d)
                    .filter(|_| self.lowered.dim(d).map(|i| i.kind) == Some(DimKind::Local))
                    .map(|o| o.count as i64);
                let o = format_ident!("{}_o", prefix(p));
                match local_count {
                    Some(count) => checks.push(quote! {
                        if #o[#dpos] != 0 || #n[#dpos] != #count {
                            return Err(::gt4rs::Error::Argument {
                                program: #program_name.to_string(),
                                arg: #fname.to_string(),
                                message: format!("its local dimension {} covers {}..{}, but must cover 0..{}", #d, #o[#dpos], #o[#dpos] + #n[#dpos], #count),
                            });
                        }
                    }),
                    None => checks.push(quote! {
                        if #n[#dpos] == 0 {
                            return Err(::gt4rs::Error::Argument {
                                program: #program_name.to_string(),
                                arg: #fname.to_string(),
                                message: format!("it is read, but is empty along {}", #d),
                            });
                        }
                    }),
                }
            }
        }
        // Column reads: the vertical reach over the whole domain.
        let (klo, khi) = match &self.vertical {
            Some((j, _)) => (format_ident!("d{}_lo", j), format_ident!("d{}_hi", j)),
            None => (format_ident!("k_none_lo"), format_ident!("k_none_hi")),
        };
        for (p, dpos, j, shift) in self.horizontal_checks.clone() {
            let f = self.field(p)?;
            let (lo, hi) = (format_ident!("d{}_lo", j), format_ident!("d{}_hi", j));
            let o = format_ident!("{}_o", prefix(p));
            let n = format_ident!("{}_n", prefix(p));
            let fname = &f.name;
            let dim = &f.dims[dpos];
            checks.push(quote! {
                if #lo + #shift < #o[#dpos] || #hi + #shift > #o[#dpos] + #n[#dpos] {
                    return Err(::gt4rs::Error::Domain {
                        program: #program_name.to_string(),
                        message: format!(
                            "stage {}: argument `{}` is read at {} {}..{} (shift {}), outside its domain {}..{}",
                            #index, #fname, #dim, #lo + #shift, #hi + #shift, #shift, #o[#dpos], #o[#dpos] + #n[#dpos]),
                    });
                }
            });
        }
        for (p, shift) in self.vertical_checks.clone() {
            let f = self.field(p)?;
            let kd = f
                .dims
                .iter()
                .position(|d| self.is_vertical(d))
                .ok_or("column read of a field without a vertical dimension")?;
            let o = format_ident!("{}_o", prefix(p));
            let n = format_ident!("{}_n", prefix(p));
            let fname = &f.name;
            let dim = &f.dims[kd];
            checks.push(quote! {
                if #klo + #shift < #o[#kd] || #khi + #shift > #o[#kd] + #n[#kd] {
                    return Err(::gt4rs::Error::Domain {
                        program: #program_name.to_string(),
                        message: format!(
                            "stage {}: argument `{}` is read at {} {}..{} (shift {}), outside its domain {}..{}",
                            #index, #fname, #dim, #klo + #shift, #khi + #shift, #shift, #o[#kd], #o[#kd] + #n[#kd]),
                    });
                }
            });
        }

        // Loop structure.
        let extents: Vec<TokenStream> = self
            .outer
            .iter()
            .map(|(j, _)| {
                let lo = format_ident!("d{}_lo", j);
                let hi = format_ident!("d{}_hi", j);
                quote!(((#hi - #lo) as usize))
            })
            .collect();
        let n_outer = if extents.is_empty() {
            quote!(1usize)
        } else {
            quote!(1usize #(* #extents)*)
        };
        // Horizontal indices: decoded once per block, then advanced like an odometer (no
        // division per point).
        let mut decode_block = Vec::new();
        let mut decode = Vec::new();
        if self.outer.len() == 1 {
            let lo = format_ident!("d{}_lo", self.outer[0].0);
            decode.push(quote!(let i0: i64 = #lo + p as i64;));
        } else if !self.outer.is_empty() {
            decode_block.push(quote!(let mut rem: usize = lo;));
            for (idx, (j, _)) in self.outer.iter().enumerate().rev() {
                let cur = format_ident!("cur{}", idx);
                let lo = format_ident!("d{}_lo", j);
                let hi = format_ident!("d{}_hi", j);
                decode_block.push(quote! {
                    let ext = (#hi - #lo) as usize;
                    let mut #cur: i64 = #lo + (rem % ext) as i64;
                    rem /= ext;
                });
            }
            for idx in 0..self.outer.len() {
                let i = format_ident!("i{}", idx);
                let cur = format_ident!("cur{}", idx);
                decode.push(quote!(let #i: i64 = #cur;));
            }
            let last = self.outer.len() - 1;
            let cur = format_ident!("cur{}", last);
            decode.push(quote!(#cur += 1;));
            for idx in (1..self.outer.len()).rev() {
                let cur = format_ident!("cur{}", idx);
                let up = format_ident!("cur{}", idx - 1);
                let (lo, hi) = (
                    format_ident!("d{}_lo", self.outer[idx].0),
                    format_ident!("d{}_hi", self.outer[idx].0),
                );
                decode.push(quote! {
                    if #cur == #hi {
                        #cur = #lo;
                        #up += 1;
                    }
                });
            }
        }
        let nk = if self.vertical.is_some() {
            quote!(((#khi - #klo) as usize))
        } else {
            quote!(1usize)
        };
        // A tile walks levels `tile_k_lo..tile_k_hi` of its columns. Only stages without a
        // level-to-level carry may split columns: a scan walks each column whole.
        let split_levels = self.vertical.is_some() && stage.scan.is_none();
        let (tile_klo, tile_khi) = if split_levels {
            (format_ident!("tile_k_lo"), format_ident!("tile_k_hi"))
        } else {
            (klo.clone(), khi.clone())
        };
        let tile_nk = if self.vertical.is_some() {
            quote!(((#tile_khi - #tile_klo) as usize))
        } else {
            quote!(1usize)
        };
        let tile_levels = if split_levels {
            quote! {
                let tile_k_lo: i64 = #klo + level_lo as i64;
                let tile_k_hi: i64 = #klo + level_hi as i64;
            }
        } else {
            quote!(let _ = (level_lo, level_hi);)
        };

        // Output stores.
        let mut out_bases = Vec::new();
        let mut level_stores = Vec::new();
        let mut fast = FastParts::default();
        for (oi, ((p, f), o)) in out_info.iter().zip(&stage.outputs).enumerate() {
            let fp = format_ident!("{}", prefix(p));
            let fo = format_ident!("{}_o", prefix(p));
            let fs = format_ident!("{}_s", prefix(p));
            let base = format_ident!("out{}_b", oi);
            let ty = rust_type(f.dtype);
            let mut terms = Vec::new();
            let mut kd = None;
            for (dpos, d) in f.dims.iter().enumerate() {
                if self.is_vertical(d) {
                    kd = Some(dpos);
                    terms.push(quote!((-#fo[#dpos]) as isize * #fs[#dpos]));
                } else {
                    let idx = self
                        .outer
                        .iter()
                        .position(|(_, od)| od == d)
                        .ok_or("output dimension outside the domain")?;
                    let i = format_ident!("i{}", idx);
                    terms.push(quote!((#i - #fo[#dpos]) as isize * #fs[#dpos]));
                }
            }
            out_bases.push(quote! {
                let #base: *mut #ty = #fp.get().wrapping_offset(0isize #(+ #terms)*);
            });
            let v = self.reference(o.value, &BTreeMap::new(), Section::Level);
            match kd {
                Some(kd) => {
                    level_stores.push(quote! {
                        // SAFETY: the domain lies inside this output (checked before the loop)
                        // and tiles cover disjoint points and levels, so no other thread
                        // touches this element.
                        unsafe { *#base.offset(k as isize * #fs[#kd]) = #v; }
                    });
                    fast.unit_conds.push(quote!(#fs[#kd] == 1));
                    let slice = format_ident!("out{}", oi);
                    fast.params.push(quote!(#slice: &mut [#ty]));
                    fast.reslice.push(quote!(let #slice = &mut #slice[..n];));
                    fast.args.push(quote! {
                        // SAFETY: unit vertical stride; the tile's levels of this column lie
                        // inside the output, and this tile alone writes them.
                        unsafe { ::core::slice::from_raw_parts_mut(#base.offset(#tile_klo as isize), #tile_nk) }
                    });
                    fast.stores.push(quote!(#slice[lev] = #v;));
                }
                None => level_stores.push(quote! {
                    // SAFETY: the domain lies inside this output (checked before the loop) and
                    // tiles cover disjoint points and levels.
                    unsafe { *#base = #v; }
                }),
            }
        }

        // Scan carries.
        let mut carry_init = Vec::new();
        let mut carry_update = Vec::new();
        if let Some(scan) = &stage.scan {
            for (ci, c) in scan.carry.iter().enumerate() {
                let cname = format_ident!("c{}", ci);
                let ty = rust_type(c.dtype);
                let init = ident(&format!("v{}", c.init));
                let next = self.reference(c.next, &BTreeMap::new(), Section::Level);
                carry_init.push(quote!(let mut #cname: #ty = #init;));
                match c.active {
                    Some(a) => {
                        let active = self.reference(a, &BTreeMap::new(), Section::Level);
                        carry_update.push(quote!(#cname = if #active { #next } else { #init };));
                    }
                    None => carry_update.push(quote!(#cname = #next;)),
                }
            }
        }

        let uniform = self.uniform.clone();
        let column = self.column.clone();
        let level: Vec<TokenStream> = self.level.iter().map(|(_, t)| t.clone()).collect();
        let used_fields: Vec<syn::Ident> = {
            let mut set: BTreeSet<Source> = self.read_fields.clone();
            set.extend(out_info.iter().map(|(p, _)| *p));
            set.into_iter()
                .map(|p| format_ident!("{}", prefix(p)))
                .collect()
        };
        let has_general = self.load_kinds.contains(&Some(LoadKind::General));
        // Reading an output of the same stage is only sound at the point being written:
        // elsewhere another block may be writing it concurrently.
        for node in &stage.nodes {
            if let Node::Load { source, path, .. } = node {
                if !path.is_empty() && out_info.iter().any(|(q, _)| q == source) {
                    let f = self.field(*source)?;
                    return Err(format!(
                        "`{}` is written by a call that also reads it shifted; write the result to another field",
                        f.name
                    ));
                }
            }
        }
        // Reads of outputs and outputs written twice would alias the fast path's slices.
        let reads_outputs = self
            .read_fields
            .iter()
            .any(|p| out_info.iter().any(|(q, _)| q == p))
            || out_info
                .iter()
                .enumerate()
                .any(|(i, (p, _))| out_info[..i].iter().any(|(q, _)| q == p));
        let level_loop = match (&self.vertical, &stage.scan) {
            (None, _) => quote! {
                #(#level)*
                #(#level_stores)*
            },
            (Some(_), Some(scan)) => {
                let range = if scan.forward {
                    quote!(#klo..#khi)
                } else {
                    quote!((#klo..#khi).rev())
                };
                quote! {
                    #(#carry_init)*
                    for k in #range {
                        #(#level)*
                        #(#level_stores)*
                        #(#carry_update)*
                    }
                }
            }
            (Some(_), None) => {
                let general = quote! {
                    for k in #tile_klo..#tile_khi {
                        #(#level)*
                        #(#level_stores)*
                    }
                };
                if !has_general && !reads_outputs && !self.level_can_fail {
                    self.fast_path(index, general, fast, &tile_klo, &tile_nk)?
                } else {
                    general
                }
            }
        };
        let err_label = quote!('points);
        Ok(quote! {
            {
                #(#uniform)*
                #(#bounds)*
                let n_outer: usize = #n_outer;
                let nk: usize = #nk;
                if n_outer > 0 && nk > 0 {
                    #(#checks)*
                    let err_slot = ::gt4rs::__private::cpu::ErrorSlot::new();
                    {
                        let err = &err_slot;
                        #( let #used_fields = #used_fields; )*
                        let body = move |lo: usize, hi: usize, level_lo: usize, level_hi: usize| {
                            #tile_levels
                            #(#decode_block)*
                            #err_label: for p in lo..hi {
                                #(#decode)*
                                #(#column)*
                                #(#out_bases)*
                                #level_loop
                            }
                        };
                        ::gt4rs::__private::cpu::for_tiles(n_outer, nk, #split_levels, &self.cpu, body);
                    }
                    err_slot.take()?;
                }
            }
        })
    }

    /// The vertical loop over slices, behind a run-time check that every column it touches has
    /// unit vertical stride; `general` otherwise.
    fn fast_path(
        &mut self,
        index: usize,
        general: TokenStream,
        fast: FastParts,
        klo: &syn::Ident,
        nk: &TokenStream,
    ) -> Result<TokenStream, String> {
        let func = format_ident!("stage{}_levels", index);
        let FastParts {
            mut unit_conds,
            mut params,
            mut args,
            stores,
            mut reslice,
        } = fast;
        let mut columns = BTreeMap::new();
        for (name, base, p) in self.columns.clone() {
            let f = self.field(p)?;
            let kd = f
                .dims
                .iter()
                .position(|d| self.is_vertical(d))
                .ok_or("column without a vertical dimension")?;
            let s = format_ident!("{}_s", prefix(p));
            unit_conds.push(quote!(#s[#kd] == 1));
            let ty = rust_type(f.dtype);
            let col = format_ident!("{}_col", name);
            params.push(quote!(#col: &[#ty]));
            reslice.push(quote!(let #col = &#col[..n];));
            args.push(quote! {
                // SAFETY: unit vertical stride, and the column's levels `lo + shift ..
                // hi + shift` lie inside the field (checked before the loop).
                unsafe { ::core::slice::from_raw_parts(#base.offset(#klo as isize) as *const _, #nk) }
            });
            columns.insert(name.to_string(), col);
        }
        let mut body = Vec::new();
        for (column, ts) in &self.level {
            match column
                .as_ref()
                .and_then(|c| columns.get(&c.to_string()).map(|col| (c, col)))
            {
                Some((name, col)) => body.push(quote!(let #name = #col[lev];)),
                None => body.push(ts.clone()),
            }
        }
        for (name, dtype) in &self.level_inputs {
            if self.level_names.contains(name) {
                continue;
            }
            let i = ident(name);
            let ty = rust_type(*dtype);
            params.push(quote!(#i: #ty));
            args.push(quote!(#i));
        }
        Ok(quote! {
            if #(#unit_conds)&&* {
                // A function of its own: its slice arguments tell the compiler that the
                // columns do not alias, so the level loop vectorises.
                #[inline(always)]
                fn #func(n: usize, k0: i64, #(#params),*) {
                    // Re-slicing to `n` lets the compiler drop the bounds checks below.
                    #(#reslice)*
                    for lev in 0..n {
                        let k: i64 = k0 + lev as i64;
                        #(#body)*
                        #(#stores)*
                    }
                }
                #func(#nk, #klo, #(#args),*);
            } else {
                #general
            }
        })
    }
}

/// The output side of the fast path, gathered while the outputs are emitted.
#[derive(Default)]
struct FastParts {
    /// `stride == 1` conditions.
    unit_conds: Vec<TokenStream>,
    /// `name: &mut [T]` parameters of the level function.
    params: Vec<TokenStream>,
    /// The slices passed for them.
    args: Vec<TokenStream>,
    /// `name[lev] = value;`
    stores: Vec<TokenStream>,
    /// `let name = &mut name[..n];`
    reslice: Vec<TokenStream>,
}
