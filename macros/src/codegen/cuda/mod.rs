//! The CUDA emitter: CUDA C text for every stage of the lowered program, emitted into the
//! program module as `cuda::SOURCE`, with the kernel program the launcher needs (the stages and
//! each kernel's parameter struct, `gt4rs_ir::kernel`) serialised beside it. Emitted whether or
//! not the runtime is built with the `cuda` feature, so the source can be inspected and tested
//! anywhere.

mod ops;
pub mod source;

use proc_macro2::TokenStream;
use quote::quote;

use gt4rs_ir::fieldview::Program;
use gt4rs_ir::kernel::KernelProgram;
use gt4rs_ir::stage::StageProgram;

/// The translation of a lowered program: its CUDA source and kernel program.
pub fn translate(
    program: &Program,
    lowered: &StageProgram,
) -> Result<(String, KernelProgram), String> {
    let source = source::generate(program, lowered)?;
    Ok((
        source.text,
        KernelProgram {
            stages: lowered.clone(),
            kernels: source.kernels,
        },
    ))
}

/// Emits `pub mod cuda { SOURCE, translation() }`. A program the lowering or the CUDA emitter
/// cannot translate still compiles (other backends may run it): its translation says why.
pub fn emit(program: &Program, lowered: Result<&StageProgram, &str>) -> TokenStream {
    let translated = lowered
        .map_err(str::to_string)
        .and_then(|l| translate(program, l));
    let (text, kernels) = match translated {
        Ok((text, kernels)) => {
            let json = kernels.to_json();
            (text, quote!(::core::result::Result::Ok(#json)))
        }
        Err(why) => (String::new(), quote!(::core::result::Result::Err(#why))),
    };
    quote! {
        /// The program translated to CUDA C: one kernel per stage.
        pub mod cuda {
            use super::*;

            /// The CUDA C translation unit (compiled by NVRTC at `compile()`).
            pub const SOURCE: &str = #text;

            /// The serialised kernel program, or why the program has no CUDA translation.
            const KERNELS_JSON: ::core::result::Result<&str, &str> = #kernels;

            /// Source, kernels and stages: everything the CUDA launcher needs.
            pub fn translation() -> ::gt4rs::__private::cuda_source::Translation {
                static KERNELS: ::gt4rs::__private::OnceLock<::gt4rs::__private::ir::kernel::KernelProgram> =
                    ::gt4rs::__private::OnceLock::new();
                ::gt4rs::__private::cuda_source::Translation {
                    name: NAME,
                    source: SOURCE,
                    program: ir(),
                    kernels: KERNELS_JSON.map(|json| {
                        KERNELS.get_or_init(|| {
                            ::gt4rs::__private::ir::kernel::KernelProgram::from_json(json)
                                .expect("the macro serialised this kernel program itself")
                        })
                    }),
                }
            }
        }
    }
}
