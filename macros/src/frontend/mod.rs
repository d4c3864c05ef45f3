//! Parse and check: fieldview Rust (a `syn::ItemFn`) to the typed fieldview IR.
//!
//! Every misuse is a `syn::Error` at the user's span; all errors of an item are combined and
//! reported together.
//!
//! * `types`: dimension names and syn types to IR types;
//! * `expr`: blocks, `let`, literals, operators, tuples, casts, `if`;
//! * `builtins`: shifts, local indices, math, reductions, `select`, `broadcast`,
//!   `concat_where` and operator calls;
//! * `operator`: field and scan operator signatures;
//! * `program`: program parameters, roles, `write_to` statements and domains.

mod builtins;
mod diagnostics;
mod expr;
pub mod names;
mod operator;
mod program;
mod types;

#[cfg(test)]
mod tests;

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
    operator::check(kind, attr, func, env, key)
}

/// Checks a `#[program]` against the collected definitions.
pub fn check_program(attr: &TokenStream, func: &ItemFn, env: &Env) -> syn::Result<Program> {
    program::check(attr, func, env)
}
