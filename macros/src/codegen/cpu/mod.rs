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

use gt4rs_ir::fieldview::{Literal, Program, Role};
use gt4rs_ir::lower::lower;
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
    let statics = bool_statics(program);
    let emitted = if (1..=MAX_SPECIALISED_STATICS).contains(&statics.len()) && lowered.is_ok() {
        // A copy that cannot be lowered (not expected where the program itself can be)
        // leaves the program unspecialised rather than unable to run.
        emit_specialised(program, &statics, ty).or_else(|_| {
            lowered
                .map_err(str::to_string)
                .and_then(|l| emit_body(program, l, None))
        })
    } else {
        lowered
            .map_err(str::to_string)
            .and_then(|l| emit_body(program, l, None))
    };
    match emitted {
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
/// The most `bool` static arguments a program's CPU kernels are specialised on (2^n copies).
const MAX_SPECIALISED_STATICS: usize = 3;

/// The program's `bool` static arguments: position and name.
fn bool_statics(program: &Program) -> Vec<(u32, syn::Ident)> {
    program
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_static && p.ty == Type::Scalar(ScalarType::Bool))
        .map(|(i, p)| (i as u32, syn::Ident::new(&p.name, Span::call_site())))
        .collect()
}

/// One loop nest per combination of the `bool` static arguments' values, each lowered with
/// those values fixed, chosen by a `match` at the call: a branch on a static flag that is not
/// taken is then neither computed nor read (ICON's `apply_zdiffusion_t = false` skips the
/// truly horizontal diffusion and its gathers), and the stages left may take the fast path.
fn emit_specialised(
    program: &Program,
    statics: &[(u32, syn::Ident)],
    args_ty: &TokenStream,
) -> Result<(TokenStream, TokenStream), String> {
    let mut scratch_defs = Vec::new();
    let mut functions = Vec::new();
    let mut scratch_fields = Vec::new();
    let mut arms = Vec::new();
    for variant in 0..1usize << statics.len() {
        let values: Vec<(u32, Literal)> = statics
            .iter()
            .enumerate()
            .map(|(bit, (param, _))| (*param, Literal::Bool(variant >> bit & 1 == 1)))
            .collect();
        let fixed = program.with_scalar_values(&values);
        let lowered = lower(&fixed).map_err(|e| e.message)?;
        let (scratch, body) = emit_body(&fixed, &lowered, Some(variant))?;
        let (field, ty) = (
            format_ident!("v{}", variant),
            format_ident!("CpuScratchV{}", variant),
        );
        scratch_defs.push(scratch);
        scratch_fields.push(quote!(#field: #ty));
        let pattern = values.iter().map(|(_, v)| match v {
            Literal::Bool(b) => quote!(#b),
            _ => quote!(_),
        });
        // A function per copy: one function holding every copy's loops was optimised worse
        // (the truly horizontal diffusion's general loop took 1.6x as long).
        let function = format_ident!("run_cpu_v{}", variant);
        functions.push(quote! {
            #[inline(never)]
            #[allow(unused_variables, unused_mut, unused_unsafe, unused_parens, unused_labels, clippy::all)]
            fn #function(&self, args: #args_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                let mut args = args;
                #body
                Ok(())
            }
        });
        arms.push(quote!((#(#pattern,)*) => self.#function(args)?,));
    }
    let names = statics.iter().map(|(_, name)| name);
    let scratch = quote! {
        #(#scratch_defs)*
        /// The buffers of the program's temporaries, per specialisation, reused by later calls.
        #[derive(Debug, Default)]
        pub struct CpuScratch {
            #(#scratch_fields,)*
        }
        impl Compiled {
            #(#functions)*
        }
    };
    let body = quote! {
        match (#(args.#names,)*) {
            #(#arms)*
        }
    };
    Ok((scratch, body))
}

/// The loop nests of `lowered`; for `Some(variant)`, its scratch type is `CpuScratchV{variant}`,
/// a field `v{variant}` of the program's `CpuScratch`.
fn emit_body(
    program: &Program,
    lowered: &StageProgram,
    variant: Option<usize>,
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
        temporaries.push(match variant {
            None => quote!(let mut scratch = self.cpu_scratch.lease();),
            Some(v) => {
                let field = format_ident!("v{}", v);
                quote! {
                    let mut lease = self.cpu_scratch.lease();
                    let scratch = &mut lease.#field;
                }
            }
        });
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
    let scratch_ty = match variant {
        None => format_ident!("CpuScratch"),
        Some(v) => format_ident!("CpuScratchV{}", v),
    };
    let scratch = quote! {
        /// The buffers of the program's temporaries, reused by later calls.
        #[derive(Debug, Default)]
        pub struct #scratch_ty {
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
