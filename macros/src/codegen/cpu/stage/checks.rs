//! What the CPU kernels check once, before their loop: the stage's preconditions (its domain
//! inside every output, read arguments holding what is read of them, reads with static shifts
//! inside their fields over the whole domain), the ones the CUDA launcher checks on the host.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use gt4rs_ir::failure::PreconditionKind;

use super::StageEmitter;
use crate::codegen::cpu::failure;
use crate::codegen::stage_walk::prefix;

impl StageEmitter<'_> {
    /// Each precondition, in order: the first that fails returns its error.
    pub(super) fn preconditions(&self) -> Vec<TokenStream> {
        let mut checks = Vec::new();
        for c in &self.walk.preconditions {
            let o = format_ident!("{}_o", prefix(c.field));
            let n = format_ident!("{}_n", prefix(c.field));
            let dim = c.dim;
            let (origin, end) = (quote!(#o[#dim]), quote!(#o[#dim].saturating_add(#n[#dim])));
            let (violated, values) = match c.kind {
                PreconditionKind::Covers { domain_dim, shift } => {
                    let lo = format_ident!("d{}_lo", domain_dim);
                    let hi = format_ident!("d{}_hi", domain_dim);
                    (
                        quote!(!::gt4rs::__private::ir::failure::covers(#lo, #hi, #shift, #origin, #n[#dim])),
                        vec![quote!(#lo), quote!(#hi), origin, end],
                    )
                }
                PreconditionKind::NotEmpty => (quote!(#n[#dim] == 0), vec![]),
                PreconditionKind::Spans { count } => (
                    quote!(#origin != 0 || #n[#dim] != #count),
                    vec![origin, end],
                ),
            };
            let error = failure::error(&c.failure, &values, &Vec::new());
            checks.push(quote! {
                if #violated {
                    return Err(#error);
                }
            });
        }
        checks
    }
}
