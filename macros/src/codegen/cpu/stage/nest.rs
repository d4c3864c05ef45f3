//! The loop nest around a stage's sections: the prologue (domain bounds, temporaries, checks
//! made once), the loop over tiles of horizontal points and levels, the stores, a scan's
//! carries, and the vertical loop (through the fast path where it can take it).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use gt4rs_ir::stage::Source;

use super::fast_path::FastParts;
use super::interleave::{interleaved_columns, MAX_NODES};
use super::scope::one_scope;
use super::{ident, StageEmitter};
use crate::codegen::cpu::rust_type;
use crate::codegen::stage_walk::{carry_flag, prefix, Bind, FieldInfo, Section, Spelling};

/// How the loop over the domain is laid out: the horizontal points decoded from the flat
/// index, the levels a tile walks.
struct LoopShape {
    /// Number of horizontal points and of levels of the whole domain.
    n_outer: TokenStream,
    nk: TokenStream,
    /// Horizontal indices decoded once per tile, and advanced per point like an odometer (no
    /// division per point).
    decode_tile: Vec<TokenStream>,
    decode_point: Vec<TokenStream>,
    /// Whether tiles may split columns into blocks of levels (a scan walks whole columns).
    split_levels: bool,
    /// The first and one-past-last level of the whole domain and of a tile, and a tile's
    /// level count.
    klo: syn::Ident,
    khi: syn::Ident,
    tile_klo: syn::Ident,
    tile_khi: syn::Ident,
    tile_nk: TokenStream,
    /// The tile's levels from the levels `for_tiles` hands the body.
    tile_levels: TokenStream,
}

/// The stores of a stage's outputs.
struct Stores {
    /// Per output: its base pointer at the column.
    bases: Vec<TokenStream>,
    /// Per output: its store at the level.
    at_level: Vec<TokenStream>,
    fast: FastParts,
}

/// A scan's carry: set before the first level, updated after each.
#[derive(Default)]
struct Carries {
    init: Vec<TokenStream>,
    update: Vec<TokenStream>,
}

impl StageEmitter<'_> {
    /// The stage's whole code, once every instance is emitted into its section.
    ///
    /// With `rest`, the stage is a scan whose first level this emitter's stage runs and whose
    /// other levels `rest`'s runs (`gt4rs_ir::carried`): the same nodes but the carried ones,
    /// so this stage's prologue and column values serve both.
    pub(super) fn loop_nest(
        &mut self,
        rest: Option<&mut StageEmitter<'_>>,
    ) -> Result<TokenStream, String> {
        let outputs = self.outputs()?;
        let mut prologue = self.bounds(&outputs)?;
        prologue.extend(self.temporaries(&outputs));
        let checks = self.preconditions();
        let shape = self.loop_shape();
        let stores = self.stores(&outputs, &shape)?;
        let carries = self.scan_carries();
        let (mut nodes, mut level_must_stop) = (self.walk.stage.nodes.len(), self.level_must_stop);
        let rest_levels = match rest {
            Some(rest) => {
                let stores = rest.stores(&outputs, &shape)?;
                let Carries { update, .. } = rest.scan_carries();
                let level = rest.level.iter().map(|l| l.code.clone());
                nodes = rest
                    .needs
                    .as_ref()
                    .map_or(nodes, |n| n.iter().filter(|x| **x).count());
                level_must_stop |= rest.level_must_stop;
                Some(one_scope(level.chain(stores.at_level).chain(update)))
            }
            None => None,
        };
        // A scan too large to walk columns side by side runs its first level before the loop.
        let peel_first = nodes > MAX_NODES;
        let level_loop = self.level_loop(
            &outputs,
            &shape,
            stores.at_level,
            stores.fast,
            carries,
            rest_levels.map(|rest| (rest, peel_first)),
        )?;
        let uniform = &self.uniform;
        let column = &self.column;
        let LoopShape {
            n_outer,
            nk,
            decode_tile,
            decode_point,
            split_levels,
            tile_levels,
            ..
        } = shape;
        let out_bases = stores.bases;
        // One scope for the column's values and one for each level's (`scope`).
        let point_body = one_scope(
            decode_point
                .into_iter()
                .chain(column.iter().cloned())
                .chain(out_bases)
                .chain(std::iter::once(level_loop)),
        );
        let err_label = quote!('points);
        // A scan walks groups of columns side by side where its point body allows it.
        let groups = self
            .walk
            .stage
            .scan
            .as_ref()
            .filter(|_| self.walk.vertical.is_some() && nodes <= MAX_NODES)
            .and_then(|_| interleaved_columns(&point_body, !level_must_stop))
            .unwrap_or_else(|| quote!(let first = lo;));
        // The stage's first horizontal index, where tiles of a group of stages align.
        let start = match self.walk.outer.as_slice() {
            [(j, _)] => {
                let lo = format_ident!("d{}_lo", j);
                quote!(#lo)
            }
            _ => quote!(0i64),
        };
        // The prologue and the checks run where this block is, before any stage's loop (so a
        // call that a check refuses writes nothing); the loop is the body of the `StageTiles`
        // it evaluates to, which keeps this stage's names apart from the other stages'. `err`
        // is the stage's error slot, bound around this block.
        Ok(quote! {
            {
                #(#uniform)*
                #(#prologue)*
                let n_outer: usize = #n_outer;
                let nk: usize = #nk;
                let active = n_outer > 0 && nk > 0;
                if active {
                    #(#checks)*
                }
                ::gt4rs::__private::cpu::StageTiles {
                    active,
                    start: #start,
                    n_outer,
                    levels: nk,
                    split_levels: #split_levels,
                    body: move |lo: usize, hi: usize, level_lo: usize, level_hi: usize| {
                        #tile_levels
                        #(#decode_tile)*
                        #groups
                        #err_label: for p in first..hi {
                            #point_body
                        }
                    },
                }
            }
        })
    }

    fn outputs(&self) -> Result<Vec<(Source, FieldInfo)>, String> {
        self.walk
            .stage
            .outputs
            .iter()
            .map(|o| self.walk.field(o.target).map(|f| (o.target, f)))
            .collect()
    }

    /// The first and one-past-last level of the domain.
    fn level_range(&self) -> (syn::Ident, syn::Ident) {
        match &self.walk.vertical {
            Some((j, _)) => (format_ident!("d{}_lo", j), format_ident!("d{}_hi", j)),
            None => (format_ident!("k_none_lo"), format_ident!("k_none_hi")),
        }
    }

    fn loop_shape(&self) -> LoopShape {
        let outer = &self.walk.outer;
        let extents: Vec<TokenStream> = outer
            .iter()
            .map(|(j, _)| {
                let lo = format_ident!("d{}_lo", j);
                let hi = format_ident!("d{}_hi", j);
                // Counted without overflow (`hi >= lo`): a domain too large to count cannot lie
                // inside its outputs, which the checks before the loop report.
                quote!((#hi.wrapping_sub(#lo) as u64 as usize))
            })
            .collect();
        let n_outer = if extents.is_empty() {
            quote!(1usize)
        } else {
            quote!(1usize #(.saturating_mul(#extents))*)
        };
        let mut decode_tile = Vec::new();
        let mut decode_point = Vec::new();
        if outer.len() == 1 {
            let lo = format_ident!("d{}_lo", outer[0].0);
            decode_point.push(quote!(let i0: i64 = #lo + p as i64;));
        } else if !outer.is_empty() {
            decode_tile.push(quote!(let mut rem: usize = lo;));
            for (idx, (j, _)) in outer.iter().enumerate().rev() {
                let cur = format_ident!("cur{}", idx);
                let lo = format_ident!("d{}_lo", j);
                let hi = format_ident!("d{}_hi", j);
                decode_tile.push(quote! {
                    let ext = (#hi - #lo) as usize;
                    let mut #cur: i64 = #lo + (rem % ext) as i64;
                    rem /= ext;
                });
            }
            for idx in 0..outer.len() {
                let i = format_ident!("i{}", idx);
                let cur = format_ident!("cur{}", idx);
                decode_point.push(quote!(let #i: i64 = #cur;));
            }
            let last = outer.len() - 1;
            let cur = format_ident!("cur{}", last);
            decode_point.push(quote!(#cur += 1;));
            for idx in (1..outer.len()).rev() {
                let cur = format_ident!("cur{}", idx);
                let up = format_ident!("cur{}", idx - 1);
                let (lo, hi) = (
                    format_ident!("d{}_lo", outer[idx].0),
                    format_ident!("d{}_hi", outer[idx].0),
                );
                decode_point.push(quote! {
                    if #cur == #hi {
                        #cur = #lo;
                        #up += 1;
                    }
                });
            }
        }
        let (klo, khi) = self.level_range();
        let has_levels = self.walk.vertical.is_some();
        let nk = if has_levels {
            quote!((#khi.wrapping_sub(#klo) as u64 as usize))
        } else {
            quote!(1usize)
        };
        // A tile walks levels `tile_k_lo..tile_k_hi` of its columns. Only stages without a
        // level-to-level carry may split columns: a scan walks each column whole.
        let split_levels = has_levels && self.walk.stage.scan.is_none();
        let (tile_klo, tile_khi) = if split_levels {
            (format_ident!("tile_k_lo"), format_ident!("tile_k_hi"))
        } else {
            (klo.clone(), khi.clone())
        };
        let tile_nk = if has_levels {
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
        LoopShape {
            n_outer,
            nk,
            decode_tile,
            decode_point,
            split_levels,
            klo,
            khi,
            tile_klo,
            tile_khi,
            tile_nk,
            tile_levels,
        }
    }

    /// Each output's base pointer at the column and its store at the level (and the same
    /// through a slice, for the fast path).
    fn stores(
        &mut self,
        outputs: &[(Source, FieldInfo)],
        shape: &LoopShape,
    ) -> Result<Stores, String> {
        let mut stores = Stores {
            bases: Vec::new(),
            at_level: Vec::new(),
            fast: FastParts::default(),
        };
        let (tile_klo, tile_nk) = (&shape.tile_klo, &shape.tile_nk);
        let stage = self.walk.stage;
        for (oi, ((p, f), output)) in outputs.iter().zip(&stage.outputs).enumerate() {
            let value = output.value;
            let fp = format_ident!("{}", prefix(*p));
            let fo = format_ident!("{}_o", prefix(*p));
            let fs = format_ident!("{}_s", prefix(*p));
            let base = format_ident!("out{}_b", oi);
            let ty = rust_type(f.dtype);
            let mut terms = Vec::new();
            let mut kd = None;
            for (dpos, d) in f.dims.iter().enumerate() {
                if self.walk.is_vertical(d) {
                    kd = Some(dpos);
                    terms.push(
                        quote!((#fo[#dpos] as isize).wrapping_neg().wrapping_mul(#fs[#dpos])),
                    );
                } else if self.walk.is_local(d) {
                    // A sparse output's slot: its local dimension spans `0..count` (checked
                    // before the loop).
                    let slot = output.local.ok_or_else(|| {
                        format!("sparse output `{}` written without a slot", f.name)
                    })? as i64;
                    terms.push(quote!((#slot - #fo[#dpos]) as isize * #fs[#dpos]));
                } else {
                    let idx = self
                        .walk
                        .outer
                        .iter()
                        .position(|(_, od)| od == d)
                        .ok_or("output dimension outside the domain")?;
                    let i = format_ident!("i{}", idx);
                    terms.push(quote!((#i - #fo[#dpos]) as isize * #fs[#dpos]));
                }
            }
            stores.bases.push(quote! {
                let #base: *mut #ty = #fp.get() #(.wrapping_offset(#terms))*;
            });
            let v = self.reference(value, &Bind::new(), Section::Level);
            match kd {
                Some(kd) => {
                    stores.at_level.push(quote! {
                        // SAFETY: the domain (and a sparse output's slot) lies inside this
                        // output (checked before the loop) and tiles cover disjoint points and
                        // levels, so no other thread touches this element.
                        unsafe { *#base.wrapping_offset((k as isize).wrapping_mul(#fs[#kd])) = #v; }
                    });
                    let fast = &mut stores.fast;
                    fast.unit_conds.push(quote!(#fs[#kd] == 1));
                    let slice = format_ident!("out{}", oi);
                    fast.params.push(quote!(#slice: &mut [#ty]));
                    fast.reslice.push(quote!(let #slice = &mut #slice[..n];));
                    fast.args.push(quote! {
                        // SAFETY: unit vertical stride; the tile's levels of this column lie
                        // inside the output, and this tile alone writes them.
                        unsafe { ::core::slice::from_raw_parts_mut(#base.wrapping_offset(#tile_klo as isize), #tile_nk) }
                    });
                    fast.stores.push(quote!(#slice[lev] = #v;));
                    fast.outputs.push((*p, slice));
                }
                None => stores.at_level.push(quote! {
                    // SAFETY: the domain (and a sparse output's slot) lies inside this output
                    // (checked before the loop) and tiles cover disjoint points and levels.
                    unsafe { *#base = #v; }
                }),
            }
        }
        Ok(stores)
    }

    /// A scan's carry components: set from their initial value before the first level, and
    /// after each level to the next value (or back to the initial one outside the scan's
    /// active region).
    fn scan_carries(&mut self) -> Carries {
        let mut carries = Carries::default();
        let Some(scan) = &self.walk.stage.scan else {
            return carries;
        };
        for (ci, c) in scan.carry.iter().enumerate() {
            let cname = format_ident!("c{}", ci);
            let ty = rust_type(c.dtype);
            let init = ident(&format!("v{}", c.init));
            let next = self.reference(c.next, &Bind::new(), Section::Level);
            let flag = ident(&carry_flag(ci as u32));
            let (flag_init, flag_after) = self.carry_flags(c);
            carries.init.push(quote!(let mut #flag: bool = #flag_init;));
            carries.update.push(quote!(#flag = #flag_after;));
            carries.init.push(quote!(let mut #cname: #ty = #init;));
            match c.active {
                Some(a) => {
                    let active = self.reference(a, &Bind::new(), Section::Level);
                    carries
                        .update
                        .push(quote!(#cname = if #active { #next } else { #init };));
                }
                None => carries.update.push(quote!(#cname = #next;)),
            }
        }
        carries
    }

    /// The vertical loop of a column (its statements and stores), through the fast path where
    /// it can take one.
    fn level_loop(
        &mut self,
        outputs: &[(Source, FieldInfo)],
        shape: &LoopShape,
        stores: Vec<TokenStream>,
        fast: FastParts,
        carries: Carries,
        rest_levels: Option<(TokenStream, bool)>,
    ) -> Result<TokenStream, String> {
        let level: Vec<TokenStream> = self.level.iter().map(|l| l.code.clone()).collect();
        let (klo, khi) = (&shape.klo, &shape.khi);
        let (tile_klo, tile_khi) = (&shape.tile_klo, &shape.tile_khi);
        Ok(match (&self.walk.vertical, &self.walk.stage.scan) {
            (None, _) => one_scope(level.into_iter().chain(stores)),
            (Some(_), Some(scan)) => {
                let range = if scan.forward {
                    quote!(#klo..#khi)
                } else {
                    quote!((#klo..#khi).rev())
                };
                let Carries { init, update } = carries;
                let body = one_scope(level.into_iter().chain(stores).chain(update));
                match rest_levels {
                    None => quote! {
                        #(#init)*
                        for k in #range {
                            #body
                        }
                    },
                    // The first level in scan order computes everything, the others take the
                    // values of the level before from the carry. A column walked alone runs its
                    // first level before the loop over the others (`peel`: 2-8 % less on the
                    // solver steps than a branch in the loop, docs/performance.md).
                    Some((rest, true)) => {
                        let (first, others) = if scan.forward {
                            (quote!(#klo), quote!((#klo + 1)..#khi))
                        } else {
                            (quote!(#khi - 1), quote!((#klo..#khi - 1).rev()))
                        };
                        quote! {
                            #(#init)*
                            if #klo < #khi {
                                let k: i64 = #first;
                                #body
                                for k in #others {
                                    #rest
                                }
                            }
                        }
                    }
                    // One loop where columns may be walked side by side: a group of columns
                    // records an undefined write at the first level as at any other, and a
                    // failing group handed to the one-column loop never runs a column's first
                    // level twice (before the loop, the group's other columns would have
                    // stored theirs, which a stage updating in place would read again).
                    Some((rest, false)) => {
                        let first = if scan.forward {
                            quote!(#klo)
                        } else {
                            quote!(#khi.wrapping_sub(1))
                        };
                        quote! {
                            #(#init)*
                            for k in #range {
                                if k == #first {
                                    #body
                                } else {
                                    #rest
                                }
                            }
                        }
                    }
                }
            }
            (Some(_), None) => {
                let body = one_scope(level.iter().cloned().chain(stores.iter().cloned()));
                let general = |lo: &syn::Ident, hi: &syn::Ident| {
                    quote! {
                        for k in #lo..#hi {
                            #body
                        }
                    }
                };
                let has_general = self
                    .load_kinds
                    .iter()
                    .flatten()
                    .any(|kind| kind.needs_general_loop());
                // Reads of outputs and outputs written twice would alias the fast path's
                // slices; an output read at the point it is written (an update in place)
                // is read from its own slice. A sparse output's slots are distinct elements,
                // so their columns are disjoint slices.
                let stored = &self.walk.stage.outputs;
                let reads_outputs = self
                    .read_fields
                    .iter()
                    .any(|p| outputs.iter().any(|(q, _)| q == p) && !self.read_in_place(*p))
                    || stored.iter().enumerate().any(|(i, o)| {
                        stored[..i]
                            .iter()
                            .any(|q| q.target == o.target && q.local == o.local)
                    });
                if !has_general && !reads_outputs && !self.level_can_fail {
                    self.fast_path(&general, fast, (tile_klo, tile_khi), &shape.tile_nk)?
                } else {
                    general(tile_klo, tile_khi)
                }
            }
        })
    }
}
