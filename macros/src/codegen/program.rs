//! What a `#[program]` expands to: a module named after it with
//!
//! * `Args`: one public field per parameter, typed exactly as the user wrote it;
//! * `compile(&Options) -> Result<Compiled, Error>`: resolves the backend and binds the
//!   connectivities the program needs (checked once, here);
//! * `Compiled::call(&self, Args) -> Result<(), Error>`: validates cheaply and runs;
//! * `ir()` and `signature()`: the program as data.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{FnArg, ItemFn, Lifetime, Pat, Type};

use gt4rs_ir::fieldview::{Program, Role};
use gt4rs_ir::lower::lower;

use crate::codegen::{cpu, cuda};

/// The spelling of the `Args` type inside generated code (`Args<'_>` or `Args`).
pub struct ArgsInfo {
    pub ty: TokenStream,
}

pub fn emit(func: &ItemFn, program: &Program) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    let name_str = name.to_string();
    let lifetime = Lifetime::new("'a", proc_macro2::Span::call_site());
    let mut has_refs = false;
    let mut fields = Vec::new();
    let mut view_fields = Vec::new();
    let mut views_of = Vec::new();
    let mut reborrows = Vec::new();
    let mut dyn_takes = Vec::new();
    let mut dyn_args = Vec::new();
    let mut dyn_gives = Vec::new();
    let mut type_aliases = Vec::new();
    let mut statics: Vec<(syn::Ident, Type)> = Vec::new();
    for input in &func.sig.inputs {
        let FnArg::Typed(pt) = input else { continue };
        let Pat::Ident(ident) = &*pt.pat else {
            continue;
        };
        let ident = &ident.ident;
        let mut ty = (*pt.ty).clone();
        if let Type::Reference(r) = &mut ty {
            r.lifetime = Some(lifetime.clone());
            has_refs = true;
        }
        let doc = param_doc(program, &ident.to_string());
        let ident_str = ident.to_string();
        let bare = match &*pt.ty {
            Type::Reference(r) => (*r.elem).clone(),
            other => other.clone(),
        };
        type_aliases.push(quote!(#[doc = #doc] pub type #ident = #bare;));
        if program
            .params
            .iter()
            .any(|p| p.name == ident_str && p.is_static)
        {
            statics.push((ident.clone(), bare));
        }
        match &*pt.ty {
            Type::Reference(r) => {
                let inner = &r.elem;
                if r.mutability.is_some() {
                    dyn_takes.push(quote!(let mut #ident: #inner =
                        ::gt4rs::__private::dynamic::take_field(NAME, source, #ident_str)?;));
                    dyn_args.push(quote!(#ident: &mut #ident));
                    dyn_gives.push(quote!(::gt4rs::__private::dynamic::give_field(source, #ident_str, #ident)?;));
                } else {
                    dyn_takes.push(quote!(let #ident: #inner =
                        ::gt4rs::__private::dynamic::take_field(NAME, source, #ident_str)?;));
                    dyn_args.push(quote!(#ident: &#ident));
                }
            }
            other => {
                dyn_takes.push(quote!(let #ident: #other =
                    ::gt4rs::__private::dynamic::take_scalar(NAME, source, #ident_str)?;));
                dyn_args.push(quote!(#ident));
            }
        }
        reborrows.push(match &*pt.ty {
            Type::Reference(r) if r.mutability.is_some() => quote!(#ident: args.#ident.reborrow()),
            _ => quote!(#ident: args.#ident),
        });
        let (view_ty, view_of) = match &*pt.ty {
            Type::Reference(r) if r.mutability.is_some() => (
                quote!(::gt4rs::view::MutOf<'a, types::#ident>),
                quote!(#ident: ::gt4rs::view::FieldMut::of(args.#ident)),
            ),
            Type::Reference(_) => (
                quote!(::gt4rs::view::RefOf<'a, types::#ident>),
                quote!(#ident: ::gt4rs::view::FieldRef::of(args.#ident)),
            ),
            _ => (quote!(types::#ident), quote!(#ident: args.#ident)),
        };
        view_fields.push(quote!(#[doc = #doc] pub #ident: #view_ty));
        views_of.push(view_of);
        fields.push(quote!(#[doc = #doc] pub #ident: #ty));
    }
    let (args_decl, args_ty, views_decl, views_ty) = if has_refs {
        (
            quote!(Args<'a>),
            quote!(Args<'_>),
            quote!(Views<'a>),
            quote!(Views<'_>),
        )
    } else {
        (quote!(Args), quote!(Args), quote!(Views), quote!(Views))
    };
    let views_impl = if has_refs {
        quote!(impl<'a> Views<'a>)
    } else {
        quote!(impl Views)
    };
    // Host-side field and scalar views of the typed `Args`, for the embedded and CUDA paths.
    let host_args: Vec<TokenStream> = program
        .params
        .iter()
        .map(|p| {
            let ident = syn::Ident::new(&p.name, proc_macro2::Span::call_site());
            match (&p.ty, p.role) {
                (gt4rs_ir::Type::Field { .. }, _) => quote!(args.#ident.arg()),
                _ => quote!(::gt4rs::__private::args::Arg::scalar(args.#ident)),
            }
        })
        .collect();
    let n_params = program.params.len();
    let static_names: Vec<String> = statics.iter().map(|(i, _)| i.to_string()).collect();
    let static_fields = statics
        .iter()
        .map(|(ident, ty)| quote!(#ident: ::core::option::Option<::std::vec::Vec<#ty>>));
    let static_reads = statics.iter().map(|(ident, _)| {
        let name = ident.to_string();
        quote!(#ident: ::gt4rs::__private::static_variants::read(options, NAME, #name)?)
    });
    let static_checks = statics.iter().map(|(ident, _)| {
        let name = ident.to_string();
        quote! {
            if let Some(compiled) = &self.statics.#ident {
                if !compiled.contains(&args.#ident) && !on_demand {
                    return Err(::gt4rs::__private::static_variants::unlisted(
                        NAME, #name, args.#ident, compiled,
                        self.allow_unlisted_static_values,
                    ));
                }
            }
        }
    });
    let static_check_block = if statics.is_empty() {
        quote!()
    } else {
        quote! {
            // CPU and embedded take static values at run time; CUDA compiled them in.
            let on_demand = self.allow_unlisted_static_values
                && self.backend != ::gt4rs::__private::Resolved::Cuda;
            #( #static_checks )*
        }
    };
    let definition = crate::codegen::bind::definition_macro(vis, name, program);
    let ir_json = program.to_json();
    // Lowered once: both fused backends emit from the same stages (the CUDA launcher reads
    // them from the kernel program the CUDA emitter serialises; nothing lowers at run time).
    let lowered = match lower(program) {
        Ok(lowered) => lowered,
        // A program the fused backends cannot build is an error here, at the program, rather
        // than a program that only the embedded backend would run.
        Err(e) => {
            return syn::Error::new(
                name.span(),
                format!(
                    "the fused backends (cpu, cuda) cannot build this program: {}",
                    e.message
                ),
            )
            .to_compile_error();
        }
    };
    let lowered: Result<&_, &str> = Ok(&lowered);
    let cpu_impl = cpu::emit(
        program,
        lowered,
        // By reference: a program's views are several words per field, and the run functions
        // are not inlined into `call`.
        &ArgsInfo {
            ty: quote!(&mut #views_ty),
        },
    );
    let cuda_impl = cuda::emit(program, lowered);
    let user_docs = crate::codegen::program_doc::user_docs(func);
    let mod_doc = crate::codegen::program_doc::usage(program);
    quote! {
        #( #user_docs )*
        #[doc = #mod_doc]
        #[allow(non_snake_case, unused_imports, clippy::all)]
        #vis mod #name {
            use super::*;

            /// The program's name.
            pub const NAME: &str = #name_str;

            /// The checked program IR, serialised.
            pub const IR_JSON: &str = #ir_json;

            /// The checked program IR.
            pub fn ir() -> &'static ::gt4rs::__private::ir::fieldview::Program {
                static IR: ::gt4rs::__private::OnceLock<::gt4rs::__private::ir::fieldview::Program> =
                    ::gt4rs::__private::OnceLock::new();
                IR.get_or_init(|| {
                    ::gt4rs::__private::ir::fieldview::Program::from_json(IR_JSON)
                        .expect("the macro serialised this IR itself")
                })
            }

            /// Parameter names, dimensions, dtypes and roles.
            pub fn signature() -> ::gt4rs::Signature {
                ::gt4rs::Signature::of(ir())
            }

            /// The type of each parameter, without its reference: `types::<param>`.
            #[allow(non_camel_case_types)]
            pub mod types {
                use super::*;
                #( #type_aliases )*
            }

            /// The values listed for each static argument at `compile()` (`None`: any value).
            #[derive(Clone, Debug, Default)]
            struct StaticVariants {
                #( #static_fields, )*
            }

            /// The arguments of one call.
            pub struct #args_decl {
                #( #fields, )*
            }

            /// The arguments of one call as views of memory the caller owns (the fields of an
            /// [`Args`], or a foreign caller's arrays): what every backend runs on.
            pub struct #views_decl {
                #( #view_fields, )*
            }

            #views_impl {
                /// Views of the fields of `args`, in place.
                #[inline]
                pub fn of(args: #args_decl) -> Self {
                    Views { #( #views_of, )* }
                }
            }

            /// A program compiled for one backend, with its connectivities bound.
            pub struct Compiled {
                backend: ::gt4rs::__private::Resolved,
                cpu: ::gt4rs::CpuOptions,
                connectivities: ::std::vec::Vec<::std::sync::Arc<::gt4rs::ConnectivityTable>>,
                cuda: ::core::option::Option<::gt4rs::__private::cuda_backend::CompiledCuda>,
                // Read by `call`'s static-argument check, which programs without static
                // arguments do not have.
                #[allow(dead_code)]
                statics: StaticVariants,
                #[allow(dead_code)]
                allow_unlisted_static_values: bool,
                debug: ::gt4rs::debug::DebugChecks,
                /// The CPU kernel's temporaries, kept between calls.
                cpu_scratch: ::gt4rs::__private::cpu::ScratchPool<CpuScratch>,
            }

            /// The options this program runs with under `options`, as [`compile`] resolves
            /// them, and where each setting came from: `print!("{}", options(&o)?)` shows what
            /// `gt4rs config show` shows for the library's own programs.
            pub fn options(options: &::gt4rs::Options) -> ::core::result::Result<::gt4rs::ProgramOptions, ::gt4rs::Error> {
                options.program_options(NAME)
            }

            /// Resolves the backend and binds the connectivities from `options`.
            pub fn compile(options: &::gt4rs::Options) -> ::core::result::Result<Compiled, ::gt4rs::Error> {
                options.check_program_names(NAME)?;
                let resolved = options.resolve(NAME, None);
                let backend = ::gt4rs::__private::resolve_backend(
                    resolved.backend, NAME, options.cuda_emulator.is_some())?;
                if let (::gt4rs::__private::Resolved::Cpu, Some(reason)) = (backend, CPU_UNSUPPORTED) {
                    return Err(::gt4rs::Error::BackendUnavailable { backend: "cpu".to_string(), reason: reason.to_string() });
                }
                let connectivities = options.connectivities.bind(ir())?;
                let debug = options.debug_checks()?;
                ::gt4rs::__private::static_variants::check_names(options, NAME, &[#( #static_names ),*])?;
                let statics = StaticVariants { #( #static_reads, )* };
                let cuda = if backend == ::gt4rs::__private::Resolved::Cuda {
                    Some(::gt4rs::__private::cuda_backend::CompiledCuda::compile(
                        &cuda::translation(), options, &connectivities)?)
                } else {
                    None
                };
                Ok(Compiled {
                    backend, cpu: ::gt4rs::__private::cpu::on_this_machine(resolved.cpu).with_vectors_at_most(WIDEST_KERNEL_COPY), connectivities, cuda, statics, debug,
                    allow_unlisted_static_values: options.allow_unlisted_static_values,
                    cpu_scratch: ::core::default::Default::default(),
                })
            }

            impl Compiled {
                /// Runs the program. Points of the outputs outside each call's domain are left
                /// untouched.
                #[inline]
                pub fn call(&self, args: #args_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    self.call_views(Views::of(args))
                }

                /// Runs the program on views (see [`Views`]): what [`call`](Self::call) does
                /// with its fields' data, and what a foreign caller does with its arrays.
                pub fn call_views(&self, mut args: #views_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    #static_check_block
                    if self.debug.is_on() {
                        return self.call_checked(args);
                    }
                    self.run(&mut args)
                }

                fn run(&self, args: &mut #views_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    match self.backend {
                        ::gt4rs::__private::Resolved::Embedded => self.run_embedded(args),
                        ::gt4rs::__private::Resolved::Cpu => self.run_cpu(args),
                        ::gt4rs::__private::Resolved::Cuda => self.run_cuda(args),
                    }
                }

                /// Runs, then the debug checks on what the call wrote.
                #[cold]
                fn call_checked(&self, mut args: #views_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    self.run(&mut Views { #( #reborrows, )* })?;
                    ::gt4rs::__private::debug::after_call(&self.debug, ir(), &Self::host_args(&mut args))
                }

                /// The checks each call runs (see `gt4rs::debug`).
                pub fn debug_checks(&self) -> &::gt4rs::debug::DebugChecks {
                    &self.debug
                }

                /// The backend this program runs on.
                pub fn backend(&self) -> ::gt4rs::Backend {
                    match self.backend {
                        ::gt4rs::__private::Resolved::Embedded => ::gt4rs::Backend::Embedded,
                        ::gt4rs::__private::Resolved::Cpu => ::gt4rs::Backend::Cpu,
                        ::gt4rs::__private::Resolved::Cuda => ::gt4rs::Backend::Cuda,
                    }
                }

                /// The CPU tuning this program resolved at `compile()` (from code, the options
                /// file and the defaults; see `gt4rs::config`), `vectors` lowered to what
                /// this CPU has: the copy of the kernels that runs.
                pub fn cpu_options(&self) -> ::gt4rs::CpuOptions {
                    self.cpu
                }

                /// The compiled CUDA program on the device (device fields, `sync`, graph
                /// capture), when the backend is CUDA and the kernels run on a device.
                pub fn cuda_program(&self) -> ::core::option::Option<&::gt4rs::__private::cuda_backend::CudaProgram> {
                    self.cuda.as_ref().and_then(|c| c.device())
                }

                /// The arguments as the embedded and CUDA backends take them.
                fn host_args<'b>(args: &'b mut #views_ty) -> [::gt4rs::__private::args::Arg<'b>; #n_params] {
                    [ #( #host_args, )* ]
                }

                /// Runs the CUDA kernels with host fields: uploads, launches, downloads, waits.
                fn run_cuda(&self, args: &mut #views_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    match &self.cuda {
                        Some(cuda) => cuda.call_host(&mut Self::host_args(args)),
                        None => Err(::gt4rs::Error::BackendUnavailable {
                            backend: "cuda".to_string(),
                            reason: format!("program `{}` was not compiled for CUDA", NAME),
                        }),
                    }
                }

                fn run_embedded(&self, args: &mut #views_ty) -> ::core::result::Result<(), ::gt4rs::Error> {
                    let tables: ::std::vec::Vec<&::gt4rs::ConnectivityTable> =
                        self.connectivities.iter().map(|t| &**t).collect();
                    ::gt4rs::__private::embedded::run_program(ir(), &mut Self::host_args(args), &tables)
                }
            }

            impl ::gt4rs::__private::dynamic::DynProgram for Compiled {
                fn name(&self) -> &'static str {
                    NAME
                }
                fn signature(&self) -> ::gt4rs::Signature {
                    signature()
                }
                /// Takes every argument from `source` by name once, calls `calls` times (timing
                /// each call), and hands the outputs back.
                fn call_dynamic_timed(
                    &self,
                    source: &mut dyn ::gt4rs::__private::dynamic::ArgSource,
                    calls: usize,
                ) -> ::core::result::Result<::std::vec::Vec<::std::time::Duration>, ::gt4rs::Error> {
                    #( #dyn_takes )*
                    let times = ::gt4rs::__private::dynamic::timed_calls(calls, || {
                        self.call(Args { #( #dyn_args, )* })
                    })?;
                    #( #dyn_gives )*
                    Ok(times)
                }
            }

            #cpu_impl

            #cuda_impl
        }

        #definition
    }
}

fn param_doc(program: &Program, name: &str) -> String {
    match program.params.iter().find(|p| p.name == name) {
        Some(p) => {
            let role = match p.role {
                Role::In => "input",
                Role::Out => "output",
                Role::InOut => "input and output",
            };
            let stat = if p.is_static { ", static" } else { "" };
            format!("`{}`: {} ({}{})", p.name, p.ty, role, stat)
        }
        None => format!("`{name}`"),
    }
}

/// `fn name(params…) {}, "json"` → the program module (see `gt4rs_macros::__program_from_ir`).
pub fn from_ir(input: TokenStream) -> TokenStream {
    let parsed = syn::parse::Parser::parse2(
        |stream: syn::parse::ParseStream| {
            let func: ItemFn = stream.parse()?;
            stream.parse::<syn::Token![,]>()?;
            let json: syn::LitStr = stream.parse()?;
            Ok((func, json))
        },
        input,
    );
    let (func, json) = match parsed {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    match Program::from_json(&json.value()) {
        Ok(program) => emit(&func, &program),
        Err(e) => {
            syn::Error::new(json.span(), format!("invalid program IR: {e}")).to_compile_error()
        }
    }
}
