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
mod specialise;
mod stage;

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use gt4rs_ir::fieldview::{Literal, Program, Role};
use gt4rs_ir::lower::lower;
use gt4rs_ir::stage::{Source, StageProgram};
use gt4rs_ir::tile_groups::tile_groups;
use gt4rs_ir::{ScalarType, Type};

use crate::codegen::program::ArgsInfo;
use specialise::{specialised_statics, Specialised};

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
    let statics = lowered.map_or_else(|_| Vec::new(), |l| specialised_statics(program, l));
    let unspecialised = || {
        lowered
            .map_err(str::to_string)
            .and_then(|l| emit_body(program, l, None, ""))
            .map(|(scratch, body)| (scratch, kernel_copies(&format_ident!("run_cpu"), ty, &body)))
    };
    let emitted = if !statics.is_empty() {
        // A copy that cannot be lowered (not expected where the program itself can be)
        // leaves the program unspecialised rather than unable to run.
        emit_specialised(program, &statics, ty).or_else(|_| unspecialised())
    } else {
        unspecialised()
    };
    match emitted {
        Ok((scratch, run_cpu)) => {
            let tracked = kernel_copies_tracked();
            let widest = widest_kernel_copy();
            quote! {
                const CPU_UNSUPPORTED: ::core::option::Option<&str> = ::core::option::Option::None;
                #tracked
                #widest
                #scratch
                impl Compiled {
                    #run_cpu
                }
            }
        }
        Err(message) => {
            let message = format!(
                "gt4rs: program `{}` cannot run on the cpu backend: {}",
                program.name, message
            );
            quote! {
                const CPU_UNSUPPORTED: ::core::option::Option<&str> = ::core::option::Option::Some(#message);
                /// No kernels: nothing to choose.
                const WIDEST_KERNEL_COPY: ::gt4rs::Vectors = ::gt4rs::Vectors::Baseline;
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

/// `fn name(&self, args) -> Result<(), Error>` running `body`'s loops, compiled up to three
/// times on x86-64: `name_portable` for the build's target, `name_avx2` with AVX2 and FMA
/// (unless the target has AVX2) and `name_avx512` with AVX-512 too (unless the target has
/// AVX-512F); `name` calls the widest that `CpuOptions::vectors` allows, which `compile()` has
/// lowered to what the CPU has. The baseline x86-64 target vectorises two doubles per
/// instruction in sixteen registers; the compute-bound stages (∇² and the Smagorinsky
/// coefficient, the w diffusion) ran 20-35 % faster with four in thirty-two (the diffusion step
/// 20 %); AVX-512's gathers vectorise the loops that read at a level taken from a field (the
/// pressure gradient 14-25 % faster than with AVX2, the θ diffusion with `apply_zdiffusion_t`
/// 59-65 %, docs/performance.md). Closures defined in a copy (each stage's body over a tile) inherit
/// its target features; the column loops and operations they call are `#[inline(always)]`, so
/// they compile with them too.
///
/// The wider copies are left out of a crate's own unit tests (`cfg(test)`): those check what a
/// program computes, which every copy computes bit for bit alike, and each further copy costs
/// about as much build time as the first (the stencil library's unit tests took 8.5 minutes of
/// CPU time to build with three). A crate whose programs only test the semantics may build one
/// copy everywhere: `GT4RS_KERNEL_COPIES=portable` in the environment of its build, or
/// `cargo:rustc-env=GT4RS_KERNEL_COPIES=portable` from its build script (`gt4rs-tests` does);
/// [`kernel_copies_tracked`] makes cargo rebuild the crate when the variable changes.
fn kernel_copies(name: &syn::Ident, args_ty: &TokenStream, body: &TokenStream) -> TokenStream {
    // `fn function` running the loops, after `attributes`.
    let loops = |function: &syn::Ident, attributes: TokenStream| {
        quote! {
            #attributes
            #[inline(never)]
            #[allow(unused_variables, unused_mut, unused_unsafe, unused_parens, unused_labels, clippy::all)]
            fn #function(&self, args: #args_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                let mut args = args;
                #body
                Ok(())
            }
        }
    };
    if one_kernel_copy() {
        // Kept out of `call`: inlined there, its large frame and pre-loop checks made a 1-point
        // call about 25 ns slower (`--bench call_overhead`, docs/performance.md).
        return loops(name, quote!());
    }
    let (portable, avx2, avx512) = (
        format_ident!("{}_portable", name),
        format_ident!("{}_avx2", name),
        format_ident!("{}_avx512", name),
    );
    let avx2_target =
        quote!(#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2"), not(test)))]);
    let avx512_target =
        quote!(#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f"), not(test)))]);
    let portable_loops = loops(&portable, quote!());
    let avx2_loops = loops(
        &avx2,
        quote!(#avx2_target #[target_feature(enable = "avx2,fma")]),
    );
    let avx512_loops = loops(
        &avx512,
        quote!(#avx512_target #[target_feature(enable = "avx2,fma,avx512f,avx512vl,avx512bw,avx512dq,avx512cd")]),
    );
    quote! {
        // Only the choice is inlined into `call`; the loops are kept out of it: inlined there,
        // their large frame and pre-loop checks made a 1-point call about 25 ns slower
        // (`--bench call_overhead`, docs/performance.md).
        #[inline(always)]
        fn #name(&self, args: #args_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
            #avx512_target
            if self.cpu.vectors == ::gt4rs::Vectors::Avx512 {
                // SAFETY: `compile()` lowers `vectors` to what this CPU has
                // (`cpu::on_this_machine`), so it has every feature `#avx512` is compiled for.
                return unsafe { self.#avx512(args) };
            }
            #avx2_target
            if self.cpu.vectors >= ::gt4rs::Vectors::Avx2 {
                // SAFETY: as above; `#avx2` needs AVX2 and FMA only.
                return unsafe { self.#avx2(args) };
            }
            self.#portable(args)
        }
        #portable_loops
        #avx2_loops
        #avx512_loops
    }
}

/// `WIDEST_KERNEL_COPY`, the widest vectors a copy of the program's kernels uses, which
/// `compile()` lowers `CpuOptions::vectors` to, so that the options a compiled program shows
/// name the copy it runs: with every copy (x86-64, not a unit test) AVX-512; with one copy, what
/// the build's target has.
fn widest_kernel_copy() -> TokenStream {
    let every_copy = if one_kernel_copy() {
        quote!(false)
    } else {
        quote!(cfg!(all(target_arch = "x86_64", not(test))))
    };
    quote! {
        const WIDEST_KERNEL_COPY: ::gt4rs::Vectors =
            if #every_copy || cfg!(all(target_arch = "x86_64", target_feature = "avx512f")) {
                ::gt4rs::Vectors::Avx512
            } else if cfg!(all(target_arch = "x86_64", target_feature = "avx2")) {
                ::gt4rs::Vectors::Avx2
            } else {
                ::gt4rs::Vectors::Baseline
            };
    }
}

/// Whether the crate being compiled asked for one copy of the kernels (`GT4RS_KERNEL_COPIES`).
fn one_kernel_copy() -> bool {
    std::env::var_os("GT4RS_KERNEL_COPIES").is_some_and(|copies| copies == "portable")
}

/// A constant naming `GT4RS_KERNEL_COPIES` through `option_env!`, emitted once per program:
/// rustc records the variables a crate's code reads that way in its dep-info, and cargo
/// rebuilds the crate when one changes. The macro's own read of the variable is invisible to
/// both, so without it a crate built with one copy would keep its one copy after the variable
/// is unset.
fn kernel_copies_tracked() -> TokenStream {
    quote! {
        const _: ::core::option::Option<&str> = ::core::option_env!("GT4RS_KERNEL_COPIES");
    }
}

/// One loop nest per combination of the specialised static arguments' cases, each lowered
/// with those values fixed, chosen by a `match` at the call: a branch on a static argument that
/// is not taken is then neither computed nor read (ICON's `apply_zdiffusion_t = false` skips the
/// truly horizontal diffusion and its gathers, `type_shear != 2` the gradients of w), and the
/// stages left may take the fast path. Returns the scratch types with each copy's `run_cpu_vN`,
/// and `fn run_cpu` holding the match.
fn emit_specialised(
    program: &Program,
    statics: &[Specialised],
    args_ty: &TokenStream,
) -> Result<(TokenStream, TokenStream), String> {
    // Every combination, the earlier arguments varying slowest and each argument's literal
    // cases before its `_`: the `match` then takes the first arm that fits, which is the copy
    // of exactly the literals the values equal.
    let mut combinations: Vec<Vec<usize>> = vec![Vec::new()];
    for s in statics {
        combinations = combinations
            .into_iter()
            .flat_map(|prefix| {
                (0..s.cases.len()).map(move |c| {
                    let mut next = prefix.clone();
                    next.push(c);
                    next
                })
            })
            .collect();
    }
    let mut scratch_defs = Vec::new();
    let mut functions = Vec::new();
    let mut scratch_fields = Vec::new();
    let mut arms = Vec::new();
    for (variant, combination) in combinations.iter().enumerate() {
        let values: Vec<(u32, Literal)> = statics
            .iter()
            .zip(combination)
            .map(|(s, &c)| (s.param, s.cases[c].value))
            .collect();
        let fixed = program.with_scalar_values(&values);
        let lowered = lower(&fixed).map_err(|e| e.message)?;
        // The copy's name in the stage times: its static arguments' values.
        let label = statics
            .iter()
            .zip(combination)
            .map(|(s, &c)| s.cases[c].label.as_str())
            .collect::<Vec<_>>()
            .join(",");
        let (scratch, body) = emit_body(&fixed, &lowered, Some(variant), &label)?;
        let (field, ty) = (
            format_ident!("v{}", variant),
            format_ident!("CpuScratchV{}", variant),
        );
        scratch_defs.push(scratch);
        scratch_fields.push(quote!(#field: #ty));
        let pattern = statics
            .iter()
            .zip(combination)
            .map(|(s, &c)| &s.cases[c].pattern);
        // A function per copy: one function holding every copy's loops was optimised worse
        // (the truly horizontal diffusion's general loop took 1.6x as long).
        let function = format_ident!("run_cpu_v{}", variant);
        functions.push(kernel_copies(&function, args_ty, &body));
        arms.push(quote!((#(#pattern,)*) => self.#function(args)?,));
    }
    let names = statics.iter().map(|s| &s.name);
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
    // The match is compiled once: each specialisation's `run_cpu_vN` has the copies of its
    // loops and picks one.
    let run_cpu = quote! {
        #[inline(always)]
        fn run_cpu(&self, args: #args_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
            match (#(args.#names,)*) {
                #(#arms)*
            }
            Ok(())
        }
    };
    Ok((scratch, run_cpu))
}

/// The loop nests of `lowered`; for `Some(variant)`, its scratch type is `CpuScratchV{variant}`,
/// a field `v{variant}` of the program's `CpuScratch`.
fn emit_body(
    program: &Program,
    lowered: &StageProgram,
    variant: Option<usize>,
    label: &str,
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
    // Every stage's prologue and checks first, then the stages' loops in order: a call whose
    // checks fail writes nothing, and one that fails inside a loop says what it wrote.
    let mut stages = Vec::new();
    let written = written_params(program, lowered);
    for (index, s) in lowered.stages.iter().enumerate() {
        let code = stage::emit(program, lowered, &used_offsets, index, s)?;
        let (tiles, err) = (
            format_ident!("stage{}", index),
            format_ident!("stage{}_err", index),
        );
        stages.push(quote! {
            let #err = ::gt4rs::__private::cpu::ErrorSlot::new();
            let #tiles = {
                let err = &#err;
                #code
            };
        });
    }
    // Consecutive stages that may share tiles run tile by tile together (where the call's
    // domains and `CpuOptions::stage_group_chunk` allow it); a failure in one of them may
    // leave any of the group's outputs partly written.
    let mut runs = Vec::new();
    for group in tile_groups(lowered) {
        let before: BTreeSet<&str> = written[..group.start].iter().flatten().copied().collect();
        let failing: BTreeSet<&str> = written[group.clone()].iter().flatten().copied().collect();
        let writes = if failing.is_empty() {
            "temporaries".to_string()
        } else {
            failing.iter().copied().collect::<Vec<_>>().join(", ")
        };
        let (before, failing) = (before.into_iter(), failing.into_iter());
        let tiles: Vec<syn::Ident> = group.clone().map(|i| format_ident!("stage{}", i)).collect();
        let errs = group.clone().map(|i| format_ident!("stage{}_err", i));
        let (run, writes) = if let [alone] = tiles.as_slice() {
            (quote!(#alone.run(&self.cpu);), writes)
        } else {
            (
                quote! {
                    ::gt4rs::__private::cpu::for_tiles_of_stages(
                        &[#(#tiles.in_group()),*],
                        &self.cpu,
                    );
                },
                format!(
                    "stages {}-{} in tiles: {writes}",
                    group.start,
                    group.end - 1
                ),
            )
        };
        let first = group.start as u32;
        let together = group.len() > 1;
        let stopped = quote! {
            |e| ::gt4rs::__private::cpu::stopped_after_writing(e, &[#(#before),*], &[#(#failing),*], #together)
        };
        runs.push(quote! {
            let started = ::gt4rs::profiling::stages::start();
            #run
            #(
                #errs.take().map_err(#stopped)?;
            )*
            ::gt4rs::profiling::stages::finish(started, ::core::module_path!(), NAME, #label, #first, #writes);
        });
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
        #(#runs)*
    };
    Ok((scratch, body))
}

/// Per stage, the names of the arguments it writes (not its temporaries).
fn written_params<'p>(program: &'p Program, lowered: &StageProgram) -> Vec<BTreeSet<&'p str>> {
    lowered
        .stages
        .iter()
        .map(|s| {
            s.outputs
                .iter()
                .filter_map(|o| match o.target {
                    Source::Param(p) => program.params.get(p as usize).map(|p| p.name.as_str()),
                    Source::Temporary(_) => None,
                })
                .collect()
        })
        .collect()
}

/// The Rust type of elements of `t` in generated code.
fn rust_type(t: ScalarType) -> TokenStream {
    let name = format_ident!("{}", t.rust_name());
    quote!(#name)
}

#[cfg(test)]
mod tests;
