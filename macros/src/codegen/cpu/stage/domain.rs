//! The stage's domain bounds, and the temporaries it writes, sized to its domain.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use gt4rs_ir::failure::Failure;
use gt4rs_ir::stage::{Bound, Source};

use super::StageEmitter;
use crate::codegen::cpu::failure;
use crate::codegen::stage_walk::{prefix, FieldInfo, Spelling};

impl StageEmitter<'_> {
    /// The value of a domain bound (a range's `end` or start); `output_full` for
    /// [`Bound::OutputFull`].
    pub(super) fn bound(
        &self,
        b: &Bound,
        output_full: TokenStream,
        end: bool,
    ) -> Result<TokenStream, String> {
        Ok(match b {
            Bound::Node(nid) => self.name(&format!("v{nid}")),
            Bound::OutputFull => output_full,
            Bound::FieldStart { param, dim } | Bound::FieldEnd { param, dim } => {
                let f = self.walk.field(Source::Param(*param))?;
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
                let t = self.walk.table_index(offset)?;
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
    pub(super) fn reach(&self, b: &Bound) -> Result<TokenStream, String> {
        let Bound::Reach {
            offset,
            rows_start,
            rows_end,
        } = b
        else {
            return Err("not a reach bound".into());
        };
        let t = self.walk.table_index(offset)?;
        let lo = self.bound(rows_start, quote!(0), false)?;
        let hi = self.bound(rows_end, quote!(0), true)?;
        Ok(quote!(self.connectivities[#t].reach(#lo, #hi)))
    }

    /// `d<j>_lo` and `d<j>_hi` of every domain dimension: a start past the end is an error,
    /// but for a reach (the rows it is taken over may hold no neighbour), which is then empty.
    pub(super) fn bounds(
        &self,
        outputs: &[(Source, FieldInfo)],
    ) -> Result<Vec<TokenStream>, String> {
        let (first_out, first_field) = outputs.first().ok_or("a stage without outputs")?;
        let mut bounds = Vec::new();
        for (j, r) in self.walk.stage.domain.iter().enumerate() {
            let lo = format_ident!("d{}_lo", j);
            let hi = format_ident!("d{}_hi", j);
            let o = format_ident!("{}_o", prefix(*first_out));
            let n = format_ident!("{}_n", prefix(*first_out));
            // The output's dimension of this range (a sparse output's local one has none).
            let full = first_field.dims.iter().position(|d| *d == r.dim);
            if let (Bound::Reach { .. }, true) = (&r.start, r.start == r.end) {
                // One pass over the table gives both ends.
                let reach = self.reach(&r.start)?;
                bounds.push(quote! {
                    let (#lo, #hi): (i64, i64) = #reach;
                    let #hi: i64 = #hi.max(#lo);
                });
                continue;
            }
            let (start, end) = match full {
                Some(d) => (
                    self.bound(&r.start, quote!(#o[#d]), false)?,
                    self.bound(&r.end, quote!(#o[#d] + #n[#d]), true)?,
                ),
                None if r.start != Bound::OutputFull && r.end != Bound::OutputFull => (
                    self.bound(&r.start, quote!(0), false)?,
                    self.bound(&r.end, quote!(0), true)?,
                ),
                None => return Err(format!("the first output has no dimension `{}`", r.dim)),
            };
            if let Bound::Reach { .. } = r.start {
                bounds.push(quote! {
                    let #lo: i64 = #start;
                    let #hi: i64 = (#end).max(#lo);
                });
                continue;
            }
            let reversed = Failure::ReversedDomain { dim: r.dim.clone() };
            let error = failure::error(&reversed, &[quote!(#lo), quote!(#hi)], &Vec::new());
            bounds.push(quote! {
                let #lo: i64 = #start;
                let #hi: i64 = #end;
                if #hi < #lo {
                    return Err(#error);
                }
            });
        }
        Ok(bounds)
    }

    /// The temporaries this stage writes: sized to the domain, row-major, in the leased
    /// buffers.
    pub(super) fn temporaries(&self, outputs: &[(Source, FieldInfo)]) -> Vec<TokenStream> {
        let mut code = Vec::new();
        for (t, f) in outputs {
            let Source::Temporary(tn) = *t else { continue };
            let t = *t;
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
            let too_large = quote! {
                ::gt4rs::Error::Domain {
                    program: NAME.to_string(),
                    message: ::std::format!(
                        "the domain {:?} has too many points for temporary {}",
                        [#((#los, #his)),*],
                        #tn
                    ),
                }
            };
            let extents: Vec<TokenStream> = (0..rank)
                .map(|j| {
                    let (lo, hi) = (&los[j], &his[j]);
                    let points = quote!(#hi.checked_sub(#lo).ok_or_else(|| #too_large)?);
                    match self.walk.stage.domain.get(j).map(|r| &r.start) {
                        Some(Bound::Reach { .. }) => quote!((#points).max(1)),
                        _ => points,
                    }
                })
                .collect();
            code.push(quote! {
                #o = [#(#los),*];
                #n = [#(#extents),*];
                // At least one element per dimension: a reduction's masked-out slot reads the
                // temporary's origin even where the reach is empty (every slot is -1).
                let (strides, len) = ::gt4rs::__private::cpu::dense_layout(#n).ok_or_else(|| #too_large)?;
                #s = strides;
                ::gt4rs::__private::cpu::ensure_len(&mut scratch.#buf, len);
                #g = ::gt4rs::__private::cpu::Ptr::of_mut(scratch.#buf.as_mut_ptr());
            });
        }
        code
    }
}
