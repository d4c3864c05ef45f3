//! The fast path: the vertical loop as a function over slices, which the compiler knows do not
//! alias, so it vectorises; taken where every column it touches has unit vertical stride.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{ident, FastForm, StageEmitter};
use crate::codegen::cpu::rust_type;
use gt4rs_ir::stage::{Node, Source};

use super::load::LoadKind;
use super::scope::one_scope;
use crate::codegen::stage_walk::prefix;

/// The output side of the fast path, gathered while the outputs are emitted.
#[derive(Default)]
pub(super) struct FastParts {
    /// `stride == 1` conditions.
    pub unit_conds: Vec<TokenStream>,
    /// `name: &mut [T]` parameters of the level function.
    pub params: Vec<TokenStream>,
    /// The slices passed for them.
    pub args: Vec<TokenStream>,
    /// `name[lev] = value;`
    pub stores: Vec<TokenStream>,
    /// `let name = &mut name[..n];`
    pub reslice: Vec<TokenStream>,
    /// Each output with a vertical dimension and its slice.
    pub outputs: Vec<(Source, syn::Ident)>,
}

impl StageEmitter<'_> {
    /// The vertical loop over slices, behind a run-time check that every column it touches has
    /// unit vertical stride; `general(lo, hi)` (the loop over levels `lo..hi`) otherwise, and
    /// for the levels at either end where a read in a branch leaves its field (there its value
    /// is clamped and flagged per level, which a slice cannot do). `nk` is the number of levels
    /// from `klo` to `khi`.
    pub(super) fn fast_path(
        &mut self,
        general: &dyn Fn(&syn::Ident, &syn::Ident) -> TokenStream,
        fast: FastParts,
        (klo, khi): (&syn::Ident, &syn::Ident),
        nk: &TokenStream,
    ) -> Result<TokenStream, String> {
        let func = format_ident!("stage{}_levels", self.walk.index);
        let FastParts {
            mut unit_conds,
            mut params,
            mut args,
            stores,
            mut reslice,
            outputs,
        } = fast;
        let mut slices = Vec::with_capacity(self.columns.len());
        // Per read in a branch, the levels `lo..hi` where it lies inside its field.
        let mut inside = Vec::new();
        for column in self.columns.clone() {
            if let Some((_, slice)) = outputs.iter().find(|(p, _)| *p == column.field) {
                // An update in place (see `read_in_place`): the output's own slice.
                slices.push(slice.clone());
                continue;
            }
            let f = self.walk.field(column.field)?;
            let kd = f
                .dims
                .iter()
                .position(|d| self.walk.is_vertical(d))
                .ok_or("column without a vertical dimension")?;
            let s = format_ident!("{}_s", prefix(column.field));
            unit_conds.push(quote!(#s[#kd] == 1));
            if let Some((shift, _)) = &column.guard {
                // A read in a branch is not checked before the loop: the fast levels are those
                // where its slice lies inside the field.
                let (o, n) = (
                    format_ident!("{}_o", prefix(column.field)),
                    format_ident!("{}_n", prefix(column.field)),
                );
                inside.push((
                    quote!(#o[#kd].saturating_sub(#shift)),
                    quote!((#o[#kd] + #n[#kd]).saturating_sub(#shift)),
                ));
            }
            let ty = rust_type(f.dtype);
            let col = format_ident!("{}_col", column.name);
            params.push(quote!(#col: &[#ty]));
            reslice.push(quote!(let #col = &#col[..n];));
            let base = &column.base;
            args.push(quote! {
                // SAFETY: unit vertical stride, and the column's levels `lo + shift ..
                // hi + shift` lie inside the field (checked before the loop, or above for a
                // read in a branch).
                unsafe { ::core::slice::from_raw_parts(#base.wrapping_offset(#klo as isize) as *const _, #nk) }
            });
            if let Some((_, mask_base)) = &column.mask {
                let mask_col = format_ident!("{}_mcol", column.name);
                params.push(quote!(#mask_col: &[bool]));
                reslice.push(quote!(let #mask_col = &#mask_col[..n];));
                args.push(quote! {
                    // SAFETY: the mask has the temporary's layout, so its column's levels are
                    // the value's, inside its buffer.
                    unsafe { ::core::slice::from_raw_parts(#mask_base.wrapping_offset(#klo as isize) as *const _, #nk) }
                });
            }
            slices.push(col);
        }
        // Each field's stride and extent once, however many of its columns are read.
        let mut conditioned = std::collections::BTreeSet::new();
        for dynamic in &self.dynamic_columns {
            let field = dynamic.field;
            let (o, n, s) = (
                format_ident!("{}_o", prefix(field)),
                format_ident!("{}_n", prefix(field)),
                format_ident!("{}_s", prefix(field)),
            );
            let kd = dynamic.vertical;
            if conditioned.insert(field) {
                // A clamped read needs a level to clamp to.
                unit_conds.push(quote!(#s[#kd] == 1 && #n[#kd] > 0));
            }
            let (slice, first, base) = (&dynamic.slice, &dynamic.first, &dynamic.base);
            let ty = rust_type(dynamic.dtype);
            params.push(quote!(#slice: &[#ty]));
            params.push(quote!(#first: i64));
            args.push(quote! {
                // SAFETY: unit vertical stride; the column's levels `o .. o + n` are the
                // field's, inside its buffer (the base pointer is at level 0).
                unsafe { ::core::slice::from_raw_parts(#base.wrapping_offset(#o[#kd] as isize) as *const _, #n[#kd] as usize) }
            });
            args.push(quote!(#o[#kd]));
        }
        let mut body = Vec::new();
        let mut reports_again = false;
        for statement in &self.level {
            match &statement.fast {
                FastForm::Same => body.push(statement.code.clone()),
                FastForm::ColumnRead(i) => {
                    let (column, col) = (&self.columns[*i], &slices[*i]);
                    let name = &column.name;
                    body.push(quote!(let #name = #col[lev];));
                    if let Some((mask_name, _)) = &column.mask {
                        let mask_col = format_ident!("{}_mcol", column.name);
                        body.push(quote!(let #mask_name: bool = #mask_col[lev];));
                    }
                    if let Some((_, out)) = &column.guard {
                        body.push(quote!(let #out: bool = false;));
                    }
                }
                FastForm::UndefinedWrite(cond) => {
                    body.push(quote!(report_again |= #cond;));
                    reports_again = true;
                }
                FastForm::DynamicRead { code, reports } => {
                    body.push(code.clone());
                    reports_again |= *reports;
                }
            }
        }
        // Where the loop reduces over neighbours whose presence is known per column, the
        // flags it reads from outside it, at their usual value (every neighbour present,
        // nothing undefined), give a second copy of the loop with those values written in:
        // LLVM turns a select between a sum and its previous value on a loop-invariant flag
        // into a branch around the neighbour's load, and that loop does not vectorise. (Other
        // flags only feed the undefined-write test, which vectorises as it is; a copy for them
        // measured slower.)
        let mut usual_args = args.clone();
        let mut usual = Vec::new();
        for (name, dtype) in &self.level_inputs {
            if self.level_names.contains(name) {
                continue;
            }
            let i = ident(name);
            let ty = rust_type(*dtype);
            params.push(quote!(#i: #ty));
            args.push(quote!(#i));
            match self.level_flags.get(name) {
                Some(&value) => {
                    usual_args.push(quote!(#value));
                    usual.push(if value { quote!(#i) } else { quote!(!#i) });
                }
                None => usual_args.push(quote!(#i)),
            }
        }
        // A slot's presence is the one flag whose usual value is `true`.
        let reduces_over_slots = self.level_flags.values().any(|&usual| usual);
        let call = if !reduces_over_slots {
            quote!(#func(#nk, #klo, #(#args),*))
        } else {
            quote! {
                {
                    if #(#usual)&&* {
                        #func(#nk, #klo, #(#usual_args),*)
                    } else {
                        #func(#nk, #klo, #(#args),*)
                    }
                }
            }
        };
        // One scope for a level's values (`scope`).
        let level_body = one_scope(
            std::iter::once(quote!(let k: i64 = k0 + lev as i64;))
                .chain(body.iter().cloned())
                .chain(stores.iter().cloned()),
        );
        let (function, run) = if !reports_again {
            (
                quote! {
                    // A function of its own: its slice arguments tell the compiler that the
                    // columns do not alias, so the level loop vectorises.
                    #[inline(always)]
                    fn #func(n: usize, k0: i64, #(#params),*) {
                        // Re-slicing to `n` lets the compiler drop the bounds checks below.
                        #(#reslice)*
                        for lev in 0..n {
                            #level_body
                        }
                    }
                },
                quote!(#call;),
            )
        } else {
            // It also says whether it wrote an undefined value (a branch that read outside a
            // field or through a missing neighbour was taken) or read a dynamic level outside
            // its field; the general loop then runs the same levels again to report the first
            // such point.
            let again = general(klo, khi);
            (
                quote! {
                    #[inline(always)]
                    fn #func(n: usize, k0: i64, #(#params),*) -> bool {
                        #(#reslice)*
                        let mut report_again = false;
                        for lev in 0..n {
                            #level_body
                        }
                        report_again
                    }
                },
                quote! {
                    if #call {
                        #again
                    }
                },
            )
        };
        let everywhere = general(klo, khi);
        if unit_conds.is_empty() {
            unit_conds.push(quote!(true));
        }
        if inside.is_empty() {
            return Ok(quote! {
                if #(#unit_conds)&&* {
                    #function
                    #run
                } else {
                    #everywhere
                }
            });
        }
        let (fast_lo, fast_hi) = (format_ident!("fast_k_lo"), format_ident!("fast_k_hi"));
        let (los, his): (Vec<_>, Vec<_>) = inside.into_iter().unzip();
        let (below, above) = (general(klo, &fast_lo), general(&fast_hi, khi));
        unit_conds.push(quote!(#fast_lo < #fast_hi));
        Ok(quote! {
            #function
            let #fast_lo: i64 = #klo #(.max(#los))*;
            let #fast_hi: i64 = #khi #(.min(#his))*;
            if #(#unit_conds)&&* {
                #below
                {
                    let #klo: i64 = #fast_lo;
                    let #khi: i64 = #fast_hi;
                    #run
                }
                #above
            } else {
                #everywhere
            }
        })
    }

    /// Whether every read of field `p` (an output) is at the point the stage writes, through
    /// its column: the fast path then reads it from the output's slice, before the store. Not
    /// for a sparse output, which has a slice per slot.
    pub(super) fn read_in_place(&self, p: Source) -> bool {
        let sparse = self
            .walk
            .stage
            .outputs
            .iter()
            .any(|o| o.target == p && o.local.is_some());
        !sparse
            && self
                .walk
                .stage
                .nodes
                .iter()
                .enumerate()
                .all(|(id, node)| match node {
                    Node::Load { source, path, .. } if *source == p => {
                        path.steps.is_empty()
                            && self.load_kinds[id] == Some(LoadKind::Column { shift: 0 })
                    }
                    _ => true,
                })
    }
}
