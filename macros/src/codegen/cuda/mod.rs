//! The CUDA emitter: CUDA C text for every stage of the lowered program, emitted into the
//! program module as `cuda::SOURCE` with launch metadata (`cuda::KERNELS`) and one
//! `#[repr(C)]` parameter struct per kernel. Emitted whether or not the runtime is built with
//! the `cuda` feature, so the source can be inspected and tested anywhere.

pub mod source;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use gt4rs_ir::fieldview::Program;
use gt4rs_ir::lower::lower;
use gt4rs_ir::ScalarType;

use source::{FieldRef, FieldRole, FieldType, KernelSource};

/// The whole translation: the lowering, then [`source::generate`].
pub fn translate(program: &Program) -> Result<source::CudaSource, String> {
    let lowered = lower(program).map_err(|e| e.message)?;
    source::generate(program, &lowered)
}

/// Emits `pub mod cuda { SOURCE, KERNELS, UNSUPPORTED, StageNParams… }`. A program the CUDA
/// emitter cannot translate still compiles (other backends work): `UNSUPPORTED` says why.
pub fn emit(program: &Program) -> TokenStream {
    let (text, kernels, unsupported) = match translate(program) {
        Ok(s) => (s.text, s.kernels, quote!(::core::option::Option::None)),
        Err(message) => (
            String::new(),
            Vec::new(),
            quote!(::core::option::Option::Some(#message)),
        ),
    };
    let infos = kernels.iter().map(kernel_info);
    let structs = kernels.iter().map(param_struct);
    quote! {
        /// The program translated to CUDA C: one kernel per stage.
        pub mod cuda {
            /// The CUDA C translation unit (compiled by NVRTC at `compile()`).
            pub const SOURCE: &str = #text;
            /// Launch metadata of every kernel of [`SOURCE`], in stage order.
            pub const KERNELS: &[::gt4rs::__private::cuda_source::KernelInfo] = &[ #(#infos),* ];
            /// Why the program has no CUDA translation, if it has none.
            pub const UNSUPPORTED: ::core::option::Option<&str> = #unsupported;
            #(#structs)*
        }
    }
}

fn rust_scalar(t: ScalarType) -> TokenStream {
    match t {
        ScalarType::Bool => quote!(bool),
        ScalarType::I32 => quote!(i32),
        ScalarType::I64 => quote!(i64),
        ScalarType::F32 => quote!(f32),
        ScalarType::F64 => quote!(f64),
    }
}

fn rust_type(t: FieldType) -> TokenStream {
    match t {
        // Device pointers (`CUdeviceptr`): 8 bytes, like the C pointers they stand for.
        FieldType::ConstPtr(_) | FieldType::MutPtr(_) | FieldType::Table | FieldType::ErrorSlot => {
            quote!(u64)
        }
        FieldType::Scalar(t) => rust_scalar(t),
    }
}

/// The Rust name of kernel `stage`'s parameter struct.
pub fn struct_name(stage: usize) -> syn::Ident {
    format_ident!("Stage{}Params", stage)
}

fn param_struct(k: &KernelSource) -> TokenStream {
    let name = struct_name(k.stage);
    let doc = format!(
        "The by-value parameter of kernel `{}`; field for field the C struct `{}_params` of [`SOURCE`].",
        k.name, k.name
    );
    let fields = k.params.iter().map(|(f, _)| {
        let ident = syn::Ident::new(&f.name, Span::call_site());
        let ty = rust_type(f.ty);
        quote!(pub #ident: #ty)
    });
    quote! {
        #[doc = #doc]
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct #name {
            #(#fields,)*
        }
    }
}

fn role_tokens(role: &FieldRole) -> TokenStream {
    let r = quote!(::gt4rs::__private::cuda_source::FieldRole);
    let f = |field: &FieldRef| match *field {
        FieldRef::Param(p) => quote!(::gt4rs::__private::cuda_source::FieldRef::Param(#p)),
        FieldRef::Temporary(t) => {
            quote!(::gt4rs::__private::cuda_source::FieldRef::Temporary(#t))
        }
    };
    match role {
        FieldRole::Data { field } => {
            let field = f(field);
            quote!(#r::Data { field: #field })
        }
        FieldRole::Origin { field, dim } => {
            let field = f(field);
            quote!(#r::Origin { field: #field, dim: #dim })
        }
        FieldRole::Extent { field, dim } => {
            let field = f(field);
            quote!(#r::Extent { field: #field, dim: #dim })
        }
        FieldRole::Stride { field, dim } => {
            let field = f(field);
            quote!(#r::Stride { field: #field, dim: #dim })
        }
        FieldRole::Table { index } => quote!(#r::Table { index: #index }),
        FieldRole::TableRows { index } => quote!(#r::TableRows { index: #index }),
        FieldRole::Scalar { param } => quote!(#r::Scalar { param: #param }),
        FieldRole::Bound { dim, end } => quote!(#r::Bound { dim: #dim, end: #end }),
        FieldRole::Error => quote!(#r::Error),
    }
}

fn kernel_info(k: &KernelSource) -> TokenStream {
    let name = &k.name;
    let stage = k.stage;
    let scan = k.scan;
    let outer = &k.outer_dims;
    let vertical = match k.vertical_dim {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let st = struct_name(k.stage);
    let fields = k.params.iter().map(|(f, role)| {
        let n = &f.name;
        let ident = syn::Ident::new(n, Span::call_site());
        let c = f.ty.c_decl();
        let role = role_tokens(role);
        quote!(::gt4rs::__private::cuda_source::ParamField {
            name: #n,
            c_type: #c,
            offset: ::core::mem::offset_of!(#st, #ident),
            role: #role,
        })
    });
    let errors = &k.errors;
    quote! {
        ::gt4rs::__private::cuda_source::KernelInfo {
            name: #name,
            stage: #stage,
            scan: #scan,
            outer_dims: &[ #(#outer),* ],
            vertical_dim: #vertical,
            size: ::core::mem::size_of::<#st>(),
            fields: &[ #(#fields),* ],
            errors: &[ #(#errors),* ],
        }
    }
}
