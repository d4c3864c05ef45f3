//! What a field or scan operator expands to: only its definition macro. Operators have no
//! run-time existence of their own; programs inline them.

use proc_macro2::TokenStream;
use syn::ItemFn;

use gt4rs_ir::fieldview::{Bundle, Operator};

use crate::definitions::{definition_macro, Def, Env};

pub fn emit(func: &ItemFn, op: &Operator, env: &Env) -> TokenStream {
    let mut bundle = Bundle {
        operators: vec![op.clone()],
        ..Bundle::default()
    };
    bundle.merge(&env.bundle);
    let def = Def::Operator {
        key: op.key.clone(),
        bundle,
    };
    definition_macro(&func.vis, &func.sig.ident, &op.key, &def)
}

/// For an operator with errors: callers learn that it is broken instead of a missing macro.
pub fn emit_broken(func: &ItemFn, key: &str) -> TokenStream {
    let def = Def::Broken {
        name: func.sig.ident.to_string(),
    };
    definition_macro(&func.vis, &func.sig.ident, key, &def)
}
