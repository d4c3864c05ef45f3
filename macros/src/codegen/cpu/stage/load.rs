//! How the CPU kernels reach memory for a load: once per column (or per stage) for a value
//! without a vertical dimension, through a column base pointer for a read at the level plus a
//! static shift (vectorised by the fast path, its vertical reach checked before the loop), and
//! position by position, checked, at every level otherwise.

use std::collections::BTreeSet;

use quote::{format_ident, quote};

use gt4rs_ir::stage::{Node, NodeId, Source, Step};

use super::{ident, StageEmitter};
use crate::codegen::cpu::rust_type;
use crate::codegen::stage_walk::{prefix, Bind, Section, Spelling, StageWalk};

/// How a load reaches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LoadKind {
    /// No vertical dependency: read once per column (or once per stage).
    Hoisted,
    /// `base(column) + (k + shift) * stride_k`: a column, read level by level.
    Column { shift: i64 },
    /// Position depends on the level in a way a column cannot express: computed and checked
    /// at every level.
    General,
}

/// Per node, how a load reaches memory (`None` for other nodes); and every field read.
pub(super) fn classify(
    walk: &StageWalk<'_>,
) -> Result<(Vec<Option<LoadKind>>, BTreeSet<Source>), String> {
    let mut kinds = Vec::with_capacity(walk.stage.nodes.len());
    let mut read = BTreeSet::new();
    for node in &walk.stage.nodes {
        let Node::Load {
            source,
            path,
            guarded,
            ..
        } = node
        else {
            kinds.push(None);
            continue;
        };
        let f = walk.field(*source)?;
        let (deps, shift) = walk.path_deps(path)?;
        let mut horizontal = Section::Uniform;
        let mut has_vertical = false;
        for d in f.dims.iter().filter(|d| !walk.is_local(d)) {
            let dep = *deps.get(d).ok_or_else(|| {
                format!(
                    "`{}` is read at a point without its dimension `{d}`",
                    f.name
                )
            })?;
            if walk.is_vertical(d) {
                has_vertical = true;
            } else {
                horizontal = horizontal.max(dep);
            }
        }
        read.insert(*source);
        kinds.push(Some(if has_vertical {
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
        }));
    }
    Ok((kinds, read))
}

impl StageEmitter<'_> {
    pub(super) fn emit_load(&mut self, id: NodeId, bind: &Bind, name: &str) -> Result<(), String> {
        let Node::Load {
            source,
            path,
            local,
            dtype,
            guarded,
        } = self.walk.node(id)
        else {
            return Ok(());
        };
        let p = *source;
        let f = self.walk.field(p)?;
        let kind = self.load_kinds[id as usize].unwrap_or(LoadKind::General);
        let pos_section = match kind {
            LoadKind::General => Section::Level,
            LoadKind::Column { .. } => Section::Column,
            LoadKind::Hoisted => self.walk.sections[id as usize],
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
            if self.walk.is_local(d) {
                let slot = match local {
                    Some(slot) => i64::from(StageWalk::slot(*slot, bind)),
                    None => return Err(format!("sparse field `{}` read without a slot", f.name)),
                };
                // The local dimension's extent is checked against the offset's count before
                // the loop (see `run`), so the slot is in range.
                terms.push(quote!((#slot - #o[#dpos]) as isize * #s[#dpos]));
                continue;
            }
            if self.walk.is_vertical(d) && matches!(kind, LoadKind::Column { .. }) {
                vertical_stride = Some(dpos);
                continue;
            }
            let pexpr = pos
                .get(d)
                .cloned()
                .ok_or_else(|| format!("no position for `{d}`"))?;
            let pv = format_ident!("{}_p{}", name, dpos);
            let domain_dim = self
                .walk
                .outer
                .iter()
                .find(|(_, od)| od == d)
                .map(|(j, _)| *j);
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
                    self.walk.sections[id as usize]
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
}
