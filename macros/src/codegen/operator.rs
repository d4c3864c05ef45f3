//! What a field or scan operator expands to: only its definition macro. Operators have no
//! run-time existence of their own; programs inline them.

use proc_macro2::{Literal, TokenStream};
use syn::ItemFn;

use gt4rs_ir::fieldview::{Bundle, Operator};

use crate::definitions::{definition_macro, serialise_operator, Def, Env, Payload};

/// The definition macro of `op`: its payload carries `op` and every operator `env` collected
/// (the operators `op` calls, transitively), each as the literal it came in.
pub fn emit(func: &ItemFn, op: &Operator, env: &Env) -> TokenStream {
    let bundle = Bundle {
        dims: env.bundle.dims.clone(),
        offsets: env.bundle.offsets.clone(),
        ..Bundle::default()
    };
    let def = Def::Operator {
        key: op.key.clone(),
        bundle,
    };
    let mut payload = Payload::of(&def);
    payload
        .operators
        .push((op.key.clone(), Literal::string(&serialise_operator(op))));
    payload.operators.extend(
        env.operators
            .iter()
            .filter(|(key, _)| *key != op.key)
            .cloned(),
    );
    definition_macro(&func.vis, &func.sig.ident, &op.key, &payload)
}

/// For an operator with errors: callers learn that it is broken instead of a missing macro.
pub fn emit_broken(func: &ItemFn, key: &str) -> TokenStream {
    let def = Def::Broken {
        name: func.sig.ident.to_string(),
    };
    definition_macro(&func.vis, &func.sig.ident, key, &Payload::of(&def))
}
