//! The fused CPU emitter: one Rust loop nest per stage of the lowered program.

use proc_macro2::TokenStream;
use quote::quote;

use gt4rs_ir::fieldview::Program;

use crate::codegen::program::ArgsInfo;

/// Emits `impl Compiled { fn run_cpu(&self, args: Args) -> Result<(), Error> }`.
pub fn emit(program: &Program, args: &ArgsInfo) -> TokenStream {
    let ty = &args.ty;
    let name = &program.name;
    quote! {
        impl Compiled {
            fn run_cpu(&self, args: #ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                let _ = args;
                Err(::gt4rs::Error::Execution {
                    program: #name.to_string(),
                    message: "the cpu backend is not built yet".to_string(),
                })
            }
        }
    }
}
