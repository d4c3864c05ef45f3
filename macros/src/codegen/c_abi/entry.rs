//! The `extern "C"` entry of a [`CFunction`]: raw arguments in, checked views and values for
//! the body, a status out. Nothing the caller passes is copied: arrays become views of its
//! memory after their sizes, strides, pointers and mutual overlap are checked.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use gt4rs_ir::ScalarType;

use super::{Arg, CFunction, HandleUse};

fn ident(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::call_site())
}

/// The Rust type of elements of `t`.
fn rust_type(t: ScalarType) -> TokenStream {
    let name = format_ident!("{}", t.rust_name());
    quote!(#name)
}

/// The entry's parameters and the statements converting them, for one argument.
fn convert(function: &str, arg: &Arg) -> (Vec<TokenStream>, TokenStream) {
    match arg {
        Arg::Array(a) => {
            let name = ident(&a.name);
            let name_str = &a.name;
            let elem = rust_type(a.dtype);
            let rank = a.dims.len();
            let pointer = if a.writes {
                quote!(*mut #elem)
            } else {
                quote!(*const #elem)
            };
            let sizes: Vec<syn::Ident> = (0..rank)
                .map(|d| format_ident!("{}_size_{}", a.name, d))
                .collect();
            let strides: Vec<syn::Ident> = (0..rank)
                .map(|d| format_ident!("{}_stride_{}", a.name, d))
                .collect();
            let mut params = vec![quote!(#name: #pointer)];
            params.extend(sizes.iter().map(|s| quote!(#s: i64)));
            params.extend(strides.iter().map(|s| quote!(#s: i64)));
            let (shape, stride, origin) = (
                format_ident!("{}_shape", a.name),
                format_ident!("{}_strides", a.name),
                format_ident!("{}_origin", a.name),
            );
            let view = &a.view;
            let bools = (a.dtype == ScalarType::Bool).then(|| {
                quote! {
                    ::gt4rs::ffi::check_bools(#function, #name_str, #name as *const bool, &#shape, &#stride)?;
                }
            });
            let build = quote! {{
                // SAFETY: the caller passes a pointer to its array's first element with the
                // array's sizes and element strides (the convention of the bindings); the parts
                // are checked (null, alignment, span, distinct elements of a written array)
                // before any element is read, and the view lives for this call only.
                let view = unsafe { <#view>::from_raw_parts(#name, &#shape, &#stride, &#origin) }
                    .map_err(|e| ::gt4rs::ffi::bad_view(#function, #name_str, e))?;
                #bools
                view
            }};
            let conversion = if a.optional {
                quote! {
                    let #name = if #name.is_null() { None } else { Some(#build) };
                }
            } else {
                quote! {
                    ::gt4rs::ffi::non_null(#function, #name_str, #name as *const #elem, &#shape)?;
                    let #name = #build;
                }
            };
            let statements = quote! {
                let #shape: [usize; #rank] = ::gt4rs::ffi::sizes(#function, #name_str, [#(#sizes),*])?;
                let #stride: [isize; #rank] = ::gt4rs::ffi::strides(#function, #name_str, [#(#strides),*])?;
                let #origin = [0i64; #rank];
                #conversion
            };
            (params, statements)
        }
        Arg::Scalar { name, dtype } => {
            let name = ident(name);
            if *dtype == ScalarType::Bool {
                // One byte, read as an integer: a Fortran `.true.` need not be 1.
                (
                    vec![quote!(#name: u8)],
                    quote!(let #name: bool = #name != 0;),
                )
            } else {
                let ty = rust_type(*dtype);
                (vec![quote!(#name: #ty)], quote!())
            }
        }
        Arg::Handle(h) => {
            let name = ident(&h.name);
            let ty = &h.rust;
            let what = format!("{} handle `{}`", h.c_type, h.name);
            match h.usage {
                HandleUse::Read => (
                    vec![quote!(#name: *const #ty)],
                    quote! {
                        // SAFETY: a non-null handle is one this library made and has not freed
                        // (the bindings' contract).
                        let #name: &#ty = unsafe { ::gt4rs::ffi::handle(#function, #what, #name) }?;
                    },
                ),
                HandleUse::Change => (
                    vec![quote!(#name: *mut #ty)],
                    quote! {
                        // SAFETY: as for a read handle; the caller does not use it meanwhile.
                        let #name: &mut #ty = unsafe { ::gt4rs::ffi::handle_mut(#function, #what, #name) }?;
                    },
                ),
                HandleUse::Make => (vec![quote!(#name: *mut *mut #ty)], quote!()),
            }
        }
    }
}

/// The `#[no_mangle] extern "C"` entry of `f`.
pub fn emit(f: &CFunction) -> TokenStream {
    let c_name = ident(&f.c_name);
    let function = f.c_name.as_str();
    let mut params = Vec::new();
    let mut conversions = Vec::new();
    for arg in &f.args {
        let (p, c) = convert(function, arg);
        params.extend(p);
        conversions.push(c);
    }
    let arrays: Vec<TokenStream> = f
        .args
        .iter()
        .filter_map(|a| match a {
            Arg::Array(a) => {
                let (name, name_str, writes) = (ident(&a.name), a.name.as_str(), a.writes);
                let range = if a.optional {
                    quote!(#name.as_ref().and_then(|v| v.address_range()))
                } else {
                    quote!(#name.address_range())
                };
                Some(quote!(::gt4rs::ffi::Extent { name: #name_str, range: #range, written: #writes }))
            }
            _ => None,
        })
        .collect();
    let writes_any = f
        .args
        .iter()
        .any(|a| matches!(a, Arg::Array(a) if a.writes));
    let disjoint = (writes_any && arrays.len() > 1)
        .then(|| quote!(::gt4rs::ffi::check_disjoint(#function, &[#(#arrays),*])?;));
    let doc = &f.doc;
    let body = &f.body;
    quote! {
        #[doc = #doc]
        ///
        /// # Safety
        /// Each array pointer must be null or point to the first element of an array with the
        /// sizes and element strides passed after it, alive and not used by anything else
        /// during the call; each handle must be null or one this library made and has not
        /// freed.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments, unused_mut, unused_variables)]
        pub unsafe extern "C" fn #c_name(#(#params),*) -> ::core::ffi::c_int {
            ::gt4rs::ffi::entry(#function, || {
                #(#conversions)*
                #disjoint
                #body
            })
        }
    }
}
