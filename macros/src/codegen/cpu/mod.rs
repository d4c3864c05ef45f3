//! The fused CPU emitter: one Rust loop nest per stage of the lowered program.
//!
//! `run_cpu` takes raw pointers, origins, shapes and strides of every field argument once, then
//! runs each stage: cheap straight-line checks (domain inside every output, vertical reach of
//! every column read), then a loop over horizontal points (parallel over blocks of
//! `CpuOptions::chunk` points above `parallel_threshold`) with the vertical loop innermost. What
//! depends only on the horizontal point (neighbour indices, horizontal-only loads, column base
//! pointers) is computed once per column, outside the vertical loop. When every column read and
//! written has unit vertical stride, the vertical loop runs in a separate function over slices,
//! so the compiler knows the columns do not alias and vectorises it.

mod failure;
mod ops;
mod stage;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use gt4rs_ir::fieldview::{Program, Role};
use gt4rs_ir::stage::StageProgram;
use gt4rs_ir::{ScalarType, Type};

use crate::codegen::program::ArgsInfo;

/// Emits `impl Compiled { fn run_cpu(&self, args: Args) -> Result<(), Error> }` and
/// `CPU_UNSUPPORTED`: `None`, or why the program cannot run on the CPU backend. A program the
/// CPU backend cannot lower still compiles (the embedded backend may run it); `compile()` for
/// the CPU backend then returns that reason as an error.
pub fn emit(
    program: &Program,
    lowered: Result<&StageProgram, &str>,
    args: &ArgsInfo,
) -> TokenStream {
    let ty = &args.ty;
    match lowered
        .map_err(str::to_string)
        .and_then(|l| emit_body(program, l))
    {
        Ok((scratch, body)) => quote! {
            const CPU_UNSUPPORTED: ::core::option::Option<&str> = ::core::option::Option::None;
            #scratch
            impl Compiled {
                // Kept out of `call`: inlined there, its large frame and pre-loop checks made a
                // 1-point call about 25 ns slower (`--bench call_overhead`, docs/performance.md).
                #[inline(never)]
                #[allow(unused_variables, unused_mut, unused_unsafe, unused_parens, unused_labels, clippy::all)]
                fn run_cpu(&self, args: #ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    let mut args = args;
                    #body
                    Ok(())
                }
            }
        },
        Err(message) => {
            let message = format!(
                "gt4rs: program `{}` cannot run on the cpu backend: {}",
                program.name, message
            );
            quote! {
                const CPU_UNSUPPORTED: ::core::option::Option<&str> = ::core::option::Option::Some(#message);
                /// No temporaries: the CPU backend does not run this program.
                #[derive(Debug, Default)]
                pub struct CpuScratch;
                impl Compiled {
                    fn run_cpu(&self, args: #ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                        let _ = args;
                        Err(::gt4rs::Error::Execution {
                            program: NAME.to_string(),
                            message: #message.to_string(),
                        })
                    }
                }
            }
        }
    }
}

/// The program's `CpuScratch` (one buffer per temporary, kept between calls in the
/// `Compiled` program's pool) and the body of `run_cpu`.
fn emit_body(
    program: &Program,
    lowered: &StageProgram,
) -> Result<(TokenStream, TokenStream), String> {
    let used_offsets: Vec<String> = program
        .used_offsets()
        .into_iter()
        .map(|o| o.name.clone())
        .collect();
    let mut fields = Vec::new();
    // Mutable pointers first: the shared borrows for metadata come after every `as_mut_ptr`.
    let mut meta = Vec::new();
    for (i, p) in program.params.iter().enumerate() {
        let Type::Field { dims, .. } = &p.ty else {
            continue;
        };
        let ident = syn::Ident::new(&p.name, Span::call_site());
        let ptr = format_ident!("f{}", i);
        let (o, n, s) = (
            format_ident!("f{}_o", i),
            format_ident!("f{}_n", i),
            format_ident!("f{}_s", i),
        );
        if p.role == Role::In {
            fields.push(
                quote!(let #ptr = ::gt4rs::__private::cpu::Ptr::of_const(args.#ident.as_ptr());),
            );
        } else {
            fields.push(
                quote!(let #ptr = ::gt4rs::__private::cpu::Ptr::of_mut(args.#ident.as_mut_ptr());),
            );
        }
        let idx: Vec<usize> = (0..dims.len()).collect();
        let rank = dims.len();
        meta.push(quote! {
            let #o: [i64; #rank] = [#( args.#ident.origin()[#idx] ),*];
            let #n: [i64; #rank] = [#( args.#ident.shape()[#idx] as i64 ),*];
            let #s: [isize; #rank] = [#( args.#ident.strides()[#idx] ),*];
        });
    }
    let mut scalars = Vec::new();
    for (i, p) in program.params.iter().enumerate() {
        if let Type::Scalar(_) = &p.ty {
            let ident = syn::Ident::new(&p.name, Span::call_site());
            let name = format_ident!("s{}", i);
            scalars.push(quote!(let #name = args.#ident;));
        }
    }
    let mut tables = Vec::new();
    for (i, _) in used_offsets.iter().enumerate() {
        let t = format_ident!("t{}", i);
        let rows = format_ident!("t{}_rows", i);
        tables.push(quote! {
            let #t: &[i32] = self.connectivities[#i].as_slice();
            let #rows: i64 = self.connectivities[#i].rows() as i64;
        });
    }
    // Temporaries: sized by the stage that writes them (its domain gives their extent), in
    // buffers leased from the program's pool for the call (no lease, so no lock, without any).
    let mut temporaries = Vec::new();
    if !lowered.temporaries.is_empty() {
        temporaries.push(quote!(let mut scratch = self.cpu_scratch.lease();));
    }
    let mut scratch_fields = Vec::new();
    for (t, temp) in lowered.temporaries.iter().enumerate() {
        let ty = rust_type(temp.dtype);
        let rank = temp.dims.len();
        let (g, buf, o, n, s) = (
            format_ident!("g{}", t),
            format_ident!("g{}_buf", t),
            format_ident!("g{}_o", t),
            format_ident!("g{}_n", t),
            format_ident!("g{}_s", t),
        );
        scratch_fields.push(quote!(#buf: ::std::vec::Vec<#ty>));
        temporaries.push(quote! {
            let mut #g = ::gt4rs::__private::cpu::Ptr::of_mut(::core::ptr::null_mut::<#ty>());
            let mut #o: [i64; #rank] = [0; #rank];
            let mut #n: [i64; #rank] = [0; #rank];
            let mut #s: [isize; #rank] = [0; #rank];
        });
    }
    let mut stages = Vec::new();
    for (index, s) in lowered.stages.iter().enumerate() {
        stages.push(stage::emit(program, lowered, &used_offsets, index, s)?);
    }
    let scratch = quote! {
        /// The buffers of the program's temporaries, reused by later calls.
        #[derive(Debug, Default)]
        pub struct CpuScratch {
            #(#scratch_fields,)*
        }
    };
    let body = quote! {
        #(#fields)*
        #(#meta)*
        #(#scalars)*
        #(#tables)*
        #(#temporaries)*
        #(#stages)*
    };
    Ok((scratch, body))
}

/// The Rust type of elements of `t` in generated code.
fn rust_type(t: ScalarType) -> TokenStream {
    let name = format_ident!("{}", t.rust_name());
    quote!(#name)
}

#[cfg(test)]
mod tests;
