//! How the CPU kernels reach memory for a load: once per column (or per stage) for a value
//! without a vertical dimension, through a column base pointer for a read at the level plus a
//! static shift (vectorised by the fast path, its vertical reach checked before the loop), and
//! position by position, checked, at every level otherwise.

use std::collections::BTreeSet;

use quote::{format_ident, quote};

use gt4rs_ir::failure::Failure;
use gt4rs_ir::stage::{Node, NodeId, Source};

use super::{ident, ColumnRead, FastForm, LevelStatement, StageEmitter};
use crate::codegen::cpu::rust_type;
use crate::codegen::stage_walk::{prefix, Bind, Section, Spelling, StageWalk};
use gt4rs_ir::ScalarType;

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
    for (id, node) in walk.stage.nodes.iter().enumerate() {
        let Node::Load { source, path, .. } = node else {
            kinds.push(None);
            continue;
        };
        read.insert(*source);
        let has_vertical = walk
            .field(*source)?
            .dims
            .iter()
            .any(|d| walk.is_vertical(d));
        let (_, shift) = walk.path_deps(path)?;
        kinds.push(Some(
            match (
                walk.column_position_section(id as NodeId)?,
                has_vertical,
                shift,
            ) {
                (Section::Column, true, Some(shift)) => LoadKind::Column { shift },
                (Section::Level, _, _) | (_, true, _) => LoadKind::General,
                _ => LoadKind::Hoisted,
            },
        ));
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
        let pos_section = self.walk.column_position_section(id)?;
        let mut undefined = Vec::new();
        let pos = self.resolve_path(
            name,
            path,
            bind,
            pos_section,
            *guarded,
            Some((p, &f)),
            &mut undefined,
        )?;
        let fp = format_ident!("{}", prefix(p));
        let o = format_ident!("{}_o", prefix(p));
        let n = format_ident!("{}_n", prefix(p));
        let s = format_ident!("{}_s", prefix(p));
        let ty = rust_type(*dtype);
        let mut terms = Vec::new();
        let mut vertical_stride = None;
        for (dpos, d) in f.dims.iter().enumerate() {
            if self.walk.is_local(d) {
                let slot = match local {
                    Some(slot) => i64::from(StageWalk::slot(*slot, bind)),
                    None => return Err(format!("sparse field `{}` read without a slot", f.name)),
                };
                // The local dimension's extent is checked against the offset's count before
                // the loop (a precondition), so the slot is in range.
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
            if *guarded {
                let outside = format_ident!("{}_p{}_out", name, dpos);
                self.push(
                    pos_section,
                    quote! {
                        let #outside: bool = #pexpr < #o[#dpos] || #pexpr >= #o[#dpos] + #n[#dpos];
                        let #pv: i64 = (#pexpr).clamp(#o[#dpos], #o[#dpos] + #n[#dpos] - 1);
                    },
                );
                undefined.push(quote!(#outside));
            } else if self.walk.checked_before_loop(id, dpos) {
                // A domain index plus a constant: its range over the whole domain is checked
                // once, before the loop.
                self.push(pos_section, quote!(let #pv: i64 = #pexpr;));
            } else {
                let failure = Failure::ReadOutside {
                    field: self.walk.field_name(p),
                    dim: d.clone(),
                };
                let values = [
                    quote!(#pv),
                    quote!(#o[#dpos]),
                    quote!(#o[#dpos] + #n[#dpos]),
                ];
                let fail = self.fail(pos_section, &failure, &values);
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
        for offset in self.walk.node(id).children() {
            undefined.extend(self.undefined_flag(offset, bind, pos_section));
        }
        let name_id = ident(name);
        match kind {
            LoadKind::Column { shift } => {
                let kd = vertical_stride.ok_or("column load without a vertical dimension")?;
                let base = format_ident!("{}_b", name);
                self.push(Section::Column, quote! {
                    let #base: *mut #ty = #fp.get().wrapping_offset(0isize #(+ #terms)*).wrapping_offset(((#shift as i64).wrapping_sub(#o[#kd]) as isize).wrapping_mul(#s[#kd]));
                });
                let guard = guarded.then(|| (shift, format_ident!("{}_kout", name)));
                let code = match &guard {
                    None => quote! {
                        // SAFETY: the horizontal position was checked above and `k + shift` lies in
                        // the field's vertical range for every level of the domain (checked before
                        // the loop), so the element is inside the buffer.
                        let #name_id: #ty = unsafe { *#base.wrapping_offset((k as isize).wrapping_mul(#s[#kd])) };
                    },
                    Some((_, out)) => {
                        let level = format_ident!("{}_k", name);
                        quote! {
                            let #level: i64 = k.wrapping_add(#shift);
                            let #out: bool = #level < #o[#kd] || #level >= #o[#kd] + #n[#kd];
                            // SAFETY: the horizontal position was clamped into the field above and
                            // the level is clamped into it here (the base pointer is at level
                            // `shift`), so the element is inside the buffer.
                            let #name_id: #ty = unsafe { *#base.wrapping_offset(((#level.clamp(#o[#kd], #o[#kd] + #n[#kd] - 1)).wrapping_sub(#shift) as isize).wrapping_mul(#s[#kd])) };
                        }
                    }
                };
                self.level.push(LevelStatement {
                    code,
                    fast: FastForm::ColumnRead(self.columns.len()),
                });
                if let Some((_, out)) = &guard {
                    // The horizontal conditions once per column, the level's at every level.
                    let mut conditions = Vec::new();
                    if !undefined.is_empty() {
                        let horizontal = format!("{name}_hout");
                        let any = self.any_of(undefined);
                        self.define(pos_section, &horizontal, ScalarType::Bool, any);
                        conditions.push(self.flag_ref(&horizontal, pos_section, Section::Level));
                    }
                    conditions.push(quote!(#out));
                    self.define_flag(name, Section::Level, conditions);
                } else {
                    self.define_flag(name, pos_section, undefined);
                }
                self.columns.push(ColumnRead {
                    name: name_id,
                    base,
                    field: p,
                    guard,
                });
            }
            _ => {
                self.define_flag(name, pos_section, undefined);
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
