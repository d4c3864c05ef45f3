//! Parse and check: fieldview Rust (a `syn::ItemFn`) to the typed fieldview IR.
//!
//! Every misuse is a `syn::Error` at the user's span; all errors of an item are combined and
//! reported together. Other items' definitions arrive in an `Env` (`crate::definitions`); the
//! checker neither knows how the driver collected them nor what `codegen` makes of its IR.
//!
//! * `names`: which paths of an item name dimensions, offsets or operators (collection);
//! * `recursion`: operators calling each other, found in the item's file before collecting;
//! * `types`: dimension names and syn types to IR types;
//! * `expr`: the `Checker`: blocks, `let`, literals, operators, tuples, casts, `if`;
//! * `shift`, `math`, `call`, `builtins`: shifts and local indices, math functions, calls of
//!   builtins and operators, reductions / `select` / `broadcast` / `concat_where`;
//! * `operator`: field and scan operator signatures and the scan attribute;
//! * `program`: program parameters, roles, `write_to` statements and domains;
//! * `diagnostics`: collects every error of an item.

mod builtins;
mod call;
mod diagnostics;
mod expr;
mod math;
mod modules;
pub mod names;
pub(crate) mod operator;
mod program;
mod recursion;
mod shift;
mod types;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;
use syn::ItemFn;

use gt4rs_ir::fieldview::{Operator, Program};

use crate::definitions::{Env, ItemKind};

/// Checks a `#[field_operator]` or `#[scan_operator]` (with its attribute tokens) against the
/// collected definitions; `key` becomes [`Operator::key`].
pub fn check_operator(
    kind: ItemKind,
    attr: &TokenStream,
    func: &ItemFn,
    env: &Env,
    key: &str,
) -> syn::Result<Operator> {
    operator::check(kind, attr, func, env, key)
}

/// Checks a `#[program]` against the collected definitions.
pub fn check_program(attr: &TokenStream, func: &ItemFn, env: &Env) -> syn::Result<Program> {
    program::check(attr, func, env)
}
