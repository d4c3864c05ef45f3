//! How the CPU kernels reach memory for a load: once per column (or per stage) for a value
//! without a vertical dimension, through a column base pointer for a read at the level plus a
//! static shift (vectorised by the fast path, its vertical reach checked before the loop), and
//! position by position, checked, at every level otherwise.

use std::collections::BTreeSet;

use quote::{format_ident, quote};

use gt4rs_ir::failure::Failure;
use gt4rs_ir::stage::{Node, NodeId, Source, Step};

use super::{ident, ColumnRead, DynamicColumnRead, FastForm, LevelStatement, StageEmitter};
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
    /// A read at a level that depends on the level (`K + offset` with `offset` a field,
    /// GT4Py's `as_offset`) whose horizontal position does not: the horizontal position, its
    /// table reads and the column's base pointer once per column, only the level at every
    /// level (checked; in a branch, clamped and flagged).
    DynamicColumn,
    /// Position depends on the level in a way a column cannot express: computed and checked
    /// at every level.
    General,
}

impl LoadKind {
    /// Whether the load is resolved at every level in a way the fast path's slices cannot
    /// express.
    pub(super) fn needs_general_loop(self) -> bool {
        self == LoadKind::General
    }
}

/// Whether load `id` is a [`LoadKind::DynamicColumn`]: of a field with a vertical dimension
/// and no mask, its only dynamic shifts along the vertical, and its horizontal position
/// independent of the level.
fn is_dynamic_column(walk: &StageWalk<'_>, id: NodeId) -> Result<bool, String> {
    let Node::Load { source, path, .. } = walk.node(id) else {
        return Ok(false);
    };
    if walk.mask_of(*source).is_some() {
        return Ok(false);
    }
    let f = walk.field(*source)?;
    if !f.dims.iter().any(|d| walk.is_vertical(d)) {
        return Ok(false);
    }
    let mut dynamic_vertical = false;
    for step in &path.steps {
        if let Step::Dynamic { dim, .. } = step {
            if !walk.is_vertical(dim) {
                return Ok(false);
            }
            dynamic_vertical = true;
        }
    }
    if !dynamic_vertical {
        return Ok(false);
    }
    let (deps, _) = walk.path_deps(path)?;
    Ok(f.dims
        .iter()
        .filter(|d| !walk.is_local(d) && !walk.is_vertical(d))
        .filter_map(|d| deps.get(d))
        .all(|section| *section < Section::Level))
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
        if is_dynamic_column(walk, id as NodeId)? {
            kinds.push(Some(LoadKind::DynamicColumn));
            continue;
        }
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
            ..
        } = self.walk.node(id)
        else {
            return Ok(());
        };
        let p = *source;
        let f = self.walk.field(p)?;
        let kind = self.load_kinds[id as usize].unwrap_or(LoadKind::General);
        // A dynamic column's horizontal position is resolved per column; its level expression
        // (which names the level's offset) is only used at the level.
        let pos_section = if kind == LoadKind::DynamicColumn {
            Section::Column
        } else {
            self.walk.column_position_section(id)?
        };
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
        let mut vertical_position = None;
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
            if self.walk.is_vertical(d) && kind == LoadKind::DynamicColumn {
                vertical_stride = Some(dpos);
                vertical_position = pos.get(d).cloned();
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
        // The nodes of the path's dynamic shifts (for a dynamic column, level values).
        let mut level_undefined = Vec::new();
        for offset in self.walk.node(id).path_children() {
            if kind == LoadKind::DynamicColumn {
                level_undefined.extend(self.undefined_flag(offset, bind, Section::Level));
            } else {
                undefined.extend(self.undefined_flag(offset, bind, pos_section));
            }
        }
        // A temporary's mask has the temporary's layout: it is read at the same element.
        let mask = self.walk.mask_of(p).map(|m| {
            (
                format_ident!("{}", prefix(m)),
                format_ident!("{}_mask", name),
            )
        });
        let name_id = ident(name);
        match kind {
            LoadKind::DynamicColumn => {
                let kd =
                    vertical_stride.ok_or("dynamic column load without a vertical dimension")?;
                let level_position =
                    vertical_position.ok_or("dynamic column load without a level position")?;
                let base = format_ident!("{}_b", name);
                self.push(
                    Section::Column,
                    quote! {
                        let #base: *mut #ty = #fp.get().wrapping_offset(0isize #(+ #terms)*).wrapping_offset((#o[#kd] as isize).wrapping_neg().wrapping_mul(#s[#kd]));
                    },
                );
                let (level, out) = (format_ident!("{}_k", name), format_ident!("{}_kout", name));
                let (slice, first, relative) = (
                    format_ident!("{}_dcol", name),
                    format_ident!("{}_dfirst", name),
                    format_ident!("{}_krel", name),
                );
                // The fast path reads the column as a slice of all the field's levels: the
                // level is clamped into it and flagged where outside.
                let fast_read = quote! {
                    let #level: i64 = #level_position;
                    let #relative: i64 = #level.wrapping_sub(#first);
                    let #out: bool = #relative < 0 || #relative >= #slice.len() as i64;
                    // SAFETY: the index is clamped into the slice, which the fast path takes
                    // only where it is not empty.
                    let #name_id: #ty = unsafe { *#slice.get_unchecked(#relative.clamp(0, #slice.len() as i64 - 1) as usize) };
                };
                self.dynamic_columns.push(DynamicColumnRead {
                    slice,
                    first,
                    base: base.clone(),
                    field: p,
                    vertical: kd,
                    dtype: *dtype,
                });
                let mut conditions = Vec::new();
                if !undefined.is_empty() {
                    let horizontal = format!("{name}_hout");
                    let any = self.any_of(undefined);
                    self.define(Section::Column, &horizontal, ScalarType::Bool, any);
                    conditions.push(self.flag_ref(&horizontal, Section::Column, Section::Level));
                }
                if *guarded {
                    self.level.push(LevelStatement {
                        code: quote! {
                            let #level: i64 = #level_position;
                            let #out: bool = #level < #o[#kd] || #level >= #o[#kd] + #n[#kd];
                            // SAFETY: the horizontal position was clamped into the field above
                            // and the level is clamped into it here (a read in a branch: where
                            // it is outside, the value is flagged undefined), so the element is
                            // inside the buffer.
                            let #name_id: #ty = unsafe { *#base.wrapping_offset((#level.clamp(#o[#kd], #o[#kd] + #n[#kd] - 1) as isize).wrapping_mul(#s[#kd])) };
                        },
                        fast: FastForm::DynamicRead {
                            code: fast_read,
                            reports: false,
                        },
                    });
                    conditions.push(quote!(#out));
                } else {
                    let failure = Failure::ReadOutside {
                        field: self.walk.field_name(p),
                        dim: f.dims[kd].clone(),
                    };
                    let values = [quote!(#level), quote!(#o[#kd]), quote!(#o[#kd] + #n[#kd])];
                    // The fast path notes a level outside the field, and the general loop, run
                    // again, reports it.
                    let exit = self.exit_with(Section::Level, &failure, &values);
                    self.level.push(LevelStatement {
                        code: quote! {
                            let #level: i64 = #level_position;
                            if #level < #o[#kd] || #level >= #o[#kd] + #n[#kd] #exit
                            // SAFETY: the horizontal position was checked against the field
                            // above and the level here, so the element is inside the buffer.
                            let #name_id: #ty = unsafe { *#base.wrapping_offset((#level as isize).wrapping_mul(#s[#kd])) };
                        },
                        fast: FastForm::DynamicRead {
                            code: quote! {
                                #fast_read
                                report_again |= #out;
                            },
                            reports: true,
                        },
                    });
                }
                conditions.extend(level_undefined);
                self.define_flag(name, Section::Level, conditions);
            }
            LoadKind::Column { shift } => {
                let kd = vertical_stride.ok_or("column load without a vertical dimension")?;
                let base = format_ident!("{}_b", name);
                let column_base = |pointer: &syn::Ident| {
                    quote! {
                        #pointer.get().wrapping_offset(0isize #(+ #terms)*).wrapping_offset(((#shift as i64).wrapping_sub(#o[#kd]) as isize).wrapping_mul(#s[#kd]))
                    }
                };
                let value_base = column_base(&fp);
                self.push(Section::Column, quote!(let #base: *mut #ty = #value_base;));
                let mask_base = mask.as_ref().map(|(mp, _)| {
                    let mask_base = format_ident!("{}_mb", name);
                    let at = column_base(mp);
                    self.push(Section::Column, quote!(let #mask_base: *mut bool = #at;));
                    mask_base
                });
                let guard = guarded.then(|| (shift, format_ident!("{}_kout", name)));
                // The level read: `k` itself, or clamped into the field for a read in a branch.
                let (level_index, level_check) = match &guard {
                    None => (quote!(k), quote!()),
                    Some((_, out)) => {
                        let level = format_ident!("{}_k", name);
                        (
                            quote!(((#level.clamp(#o[#kd], #o[#kd] + #n[#kd] - 1)).wrapping_sub(#shift))),
                            quote! {
                                let #level: i64 = k.wrapping_add(#shift);
                                let #out: bool = #level < #o[#kd] || #level >= #o[#kd] + #n[#kd];
                            },
                        )
                    }
                };
                let mask_read = match (&mask, &mask_base) {
                    (Some((_, mask_name)), Some(mask_base)) => quote! {
                        // SAFETY: the mask has the temporary's layout, so its element is the
                        // value's, inside its buffer.
                        let #mask_name: bool = unsafe { *#mask_base.wrapping_offset((#level_index as isize).wrapping_mul(#s[#kd])) };
                    },
                    _ => quote!(),
                };
                let code = quote! {
                    #level_check
                    // SAFETY: the horizontal position was checked (or clamped) above, and `k +
                    // shift` lies in the field's vertical range for every level of the domain
                    // (checked before the loop), or is clamped into it here for a read in a
                    // branch (the base pointer is at level `shift`): the element is inside the
                    // buffer.
                    let #name_id: #ty = unsafe { *#base.wrapping_offset((#level_index as isize).wrapping_mul(#s[#kd])) };
                    #mask_read
                };
                self.level.push(LevelStatement {
                    code,
                    fast: FastForm::ColumnRead(self.columns.len()),
                });
                if guard.is_some() || mask.is_some() {
                    // The horizontal conditions once per column, the level's at every level.
                    let mut conditions = Vec::new();
                    if !undefined.is_empty() {
                        let horizontal = format!("{name}_hout");
                        let any = self.any_of(undefined);
                        self.define(pos_section, &horizontal, ScalarType::Bool, any);
                        conditions.push(self.flag_ref(&horizontal, pos_section, Section::Level));
                    }
                    if let Some((_, out)) = &guard {
                        conditions.push(quote!(#out));
                    }
                    if let Some((_, mask_name)) = &mask {
                        conditions.push(quote!(#mask_name));
                    }
                    self.define_flag(name, Section::Level, conditions);
                } else {
                    self.define_flag(name, pos_section, undefined);
                }
                self.columns.push(ColumnRead {
                    name: name_id,
                    base,
                    mask: mask.map(|(_, mask_name)| mask_name).zip(mask_base),
                    field: p,
                    guard,
                });
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
                match mask {
                    Some((mp, mask_name)) => {
                        self.push(
                            section,
                            quote! {
                                // SAFETY: the mask has the temporary's layout, so its element
                                // is the value's, inside its buffer.
                                let #mask_name: bool = unsafe { *#mp.get().offset(0isize #(+ #terms)*) };
                            },
                        );
                        let mut conditions = Vec::new();
                        if !undefined.is_empty() {
                            let position = format!("{name}_pos");
                            let any = self.any_of(undefined);
                            self.define(pos_section, &position, ScalarType::Bool, any);
                            conditions.push(self.flag_ref(&position, pos_section, section));
                        }
                        conditions.push(quote!(#mask_name));
                        self.define_flag(name, section.max(pos_section), conditions);
                    }
                    None => self.define_flag(name, pos_section, undefined),
                }
            }
        }
        Ok(())
    }
}
