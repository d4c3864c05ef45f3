//! The fast path: the vertical loop as a function over slices, which the compiler knows do not
//! alias, so it vectorises; taken where every column it touches has unit vertical stride.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{ident, StageEmitter};
use crate::codegen::cpu::rust_type;
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
}

impl StageEmitter<'_> {
    /// The vertical loop over slices, behind a run-time check that every column it touches has
    /// unit vertical stride; `general` otherwise.
    pub(super) fn fast_path(
        &mut self,
        general: TokenStream,
        fast: FastParts,
        klo: &syn::Ident,
        nk: &TokenStream,
    ) -> Result<TokenStream, String> {
        let func = format_ident!("stage{}_levels", self.walk.index);
        let FastParts {
            mut unit_conds,
            mut params,
            mut args,
            stores,
            mut reslice,
        } = fast;
        let mut columns = BTreeMap::new();
        for (name, base, p) in self.columns.clone() {
            let f = self.walk.field(p)?;
            let kd = f
                .dims
                .iter()
                .position(|d| self.walk.is_vertical(d))
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
                unsafe { ::core::slice::from_raw_parts(#base.wrapping_offset(#klo as isize) as *const _, #nk) }
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
