//! Parse and check: fieldview Rust (a `syn::ItemFn`) to the typed fieldview IR.
//!
//! Every misuse is a `syn::Error` at the user's span; all errors of an item are combined and
//! reported together.

pub mod names;

use proc_macro2::TokenStream;
use syn::ItemFn;

use gt4rs_ir::fieldview::{Operator, Program};

use crate::collect::{Env, ItemKind};

/// Checks a `#[field_operator]` or `#[scan_operator]` (with its attribute tokens) against the
/// collected definitions; `key` becomes [`Operator::key`].
pub fn check_operator(
    kind: ItemKind,
    attr: &TokenStream,
    func: &ItemFn,
    env: &Env,
    key: &str,
) -> syn::Result<Operator> {
    let _ = (kind, attr, env, key);
    Err(syn::Error::new_spanned(
        &func.sig.ident,
        "gt4rs: the operator checker is not built yet",
    ))
}

/// Checks a `#[program]` against the collected definitions.
pub fn check_program(attr: &TokenStream, func: &ItemFn, env: &Env) -> syn::Result<Program> {
    let _ = (attr, env);
    Err(syn::Error::new_spanned(
        &func.sig.ident,
        "gt4rs: the program checker is not built yet",
    ))
}
