//! `gt4rs::export_c!`: a library's C ABI.
//!
//! ```text
//! gt4rs::export_c! {
//!     library gt4rs_icon;
//!     offsets { path::E2C2V, path::C2E }
//!     programs { calculate_nabla4 = path::calculate_nabla4; }
//!     functions { path::diffusion_run }
//! }
//! ```
//!
//! expands to `pub mod gt4rs_icon` holding the library's own entries (`_last_error`, options
//! with a backend and ICON's connectivities), one module per program (through the program's
//! definition macro, as `bind!` does) and `LIBRARY`, the list of every entry's declarations
//! that `gt4rs::ffi::bindings` writes as a C header and a Fortran module.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, Ident, Path, Token};

use gt4rs_ir::ScalarType;

use super::program::options_handle;
use super::{check_fortran_name, entry, text, Arg, Array, CFunction, HandleUse};
use crate::codegen::bind::path_from_inside;

/// One `name = path;` of `programs { … }`.
struct ProgramItem {
    name: Ident,
    path: Path,
}

struct LibraryInput {
    library: Ident,
    offsets: Vec<Path>,
    programs: Vec<ProgramItem>,
    functions: Vec<Path>,
}

impl Parse for LibraryInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let keyword: Ident = input.parse()?;
        if keyword != "library" {
            return Err(syn::Error::new(
                keyword.span(),
                "`export_c!` starts with `library name;`",
            ));
        }
        let library: Ident = input.parse()?;
        input.parse::<Token![;]>()?;
        let (mut offsets, mut programs, mut functions) = (Vec::new(), Vec::new(), Vec::new());
        while !input.is_empty() {
            let section: Ident = input.parse()?;
            let content;
            braced!(content in input);
            match section.to_string().as_str() {
                "offsets" => {
                    offsets.extend(Punctuated::<Path, Token![,]>::parse_terminated(&content)?)
                }
                "functions" => {
                    functions.extend(Punctuated::<Path, Token![,]>::parse_terminated(&content)?)
                }
                "programs" => {
                    while !content.is_empty() {
                        let name: Ident = content.parse()?;
                        content.parse::<Token![=]>()?;
                        let path: Path = content.parse()?;
                        content.parse::<Token![;]>()?;
                        programs.push(ProgramItem { name, path });
                    }
                }
                other => {
                    return Err(syn::Error::new(
                        section.span(),
                        format!("unknown section `{other}` (offsets, programs, functions)"),
                    ))
                }
            }
        }
        Ok(LibraryInput {
            library,
            offsets,
            programs,
            functions,
        })
    }
}

/// The view type of one of ICON's `idx`/`blk` arrays, `(nproma, nblks, neighbours)`.
fn icon_table_view() -> TokenStream {
    quote!(
        ::gt4rs::view::FieldRef<
            '_,
            (
                ::gt4rs::ffi::icon::Nproma,
                ::gt4rs::ffi::icon::Nblks,
                ::gt4rs::ffi::icon::Neighbours
            ),
            i32,
        >
    )
}

fn icon_array(name: &str) -> Arg {
    Arg::Array(Array {
        name: name.to_string(),
        dtype: ScalarType::I32,
        dims: vec!["nproma".into(), "nblks".into(), "neighbours".into()],
        writes: false,
        optional: false,
        view: icon_table_view(),
    })
}

/// The entries every library has: its last error, and options (backend, connectivities).
fn common(library: &str, offsets: &[Path]) -> syn::Result<(TokenStream, TokenStream)> {
    let span = Span::call_site();
    let mut functions = Vec::new();
    let new_name = format!("{library}_options_new");
    functions.push(CFunction {
        c_name: new_name.clone(),
        fortran_name: new_name.clone(),
        doc: format!(
            "Makes options for {library}_*_compile: the backend (GT4RS_BACKEND_CPU, _EMBEDDED or\n_CUDA) and, set next, the connectivities; free them with {library}_options_free."
        ),
        args: vec![
            Arg::Scalar {
                name: "backend".into(),
                dtype: ScalarType::I32,
            },
            Arg::Handle(options_handle(library, HandleUse::Make)),
        ],
        body: quote! {
            let backend = ::gt4rs::ffi::backend(#new_name, backend)?;
            let value = ::gt4rs::ffi::OptionsHandle(::gt4rs::Options::new(backend));
            // SAFETY: `options` is null (an error) or the caller's place for the handle.
            unsafe { ::gt4rs::ffi::give_handle(#new_name, options, value) }
        },
    });
    for offset in offsets {
        let Some(last) = offset.segments.last() else {
            return Err(syn::Error::new_spanned(offset, "an offset's path"));
        };
        let offset_name = last.ident.to_string().to_lowercase();
        let c_name = format!("{library}_connectivity_{offset_name}");
        check_fortran_name(&text::interface_name(&c_name), last.ident.span())?;
        let path = path_from_inside(offset);
        functions.push(CFunction {
            c_name: c_name.clone(),
            fortran_name: c_name.clone(),
            doc: format!(
                "Sets the {} table of the options from ICON's 1-based `idx`/`blk` arrays\n(nproma, nblks, neighbours) of `rows` points whose neighbours are among\n`target_size` points; converted to gt4rs's 0-based table once, here.",
                last.ident
            ),
            args: vec![
                Arg::Handle(options_handle(library, HandleUse::Change)),
                icon_array("idx"),
                icon_array("blk"),
                Arg::Scalar {
                    name: "rows".into(),
                    dtype: ScalarType::I64,
                },
                Arg::Scalar {
                    name: "target_size".into(),
                    dtype: ScalarType::I64,
                },
            ],
            body: quote! {
                let table = ::gt4rs::ffi::icon::connectivity::<#path>(#c_name, idx, blk, rows, target_size)?;
                options.0.connectivities.insert(&table);
                Ok(())
            },
        });
    }
    let free_c = format!("{library}_options_free");
    let free_doc = format!("Frees options made by {library}_options_new and nulls the handle.");
    let [free_decl, free_interface, free_wrapper] = text::free_texts(
        &free_c,
        &free_c,
        &format!("{library}_options"),
        &format!("{library}_options"),
        &free_doc,
    );
    let last_error_c = format!("{library}_last_error");
    let last_error_doc = "The message of the last failure on this thread (empty if none).";
    let last_error_c_decl =
        format!("/*\n * {last_error_doc}\n */\nconst char *{last_error_c}(void);\n");
    let last_error_interface_name = text::interface_name(&last_error_c);
    let last_error_interface = format!(
        "    function {last_error_interface_name}() bind(C, name=\"{last_error_c}\") result(message)\n      import\n      type(c_ptr) :: message\n    end function {last_error_interface_name}\n"
    );
    let last_error_wrapper = format!(
        "  ! {last_error_doc}\n  function {last_error_c}() result(message)\n    character(len=:), allocatable :: message\n    message = gt4rs_string({last_error_interface_name}())\n  end function {last_error_c}\n"
    );

    let mut c = String::new();
    let mut interfaces = String::new();
    let mut procedures = String::new();
    let mut public = vec![last_error_c.clone(), free_c.clone()];
    let mut entries = Vec::new();
    for f in &functions {
        c.push_str(&text::c_declaration(f));
        c.push('\n');
        interfaces.push_str(&text::fortran_interface(f));
        procedures.push_str(&text::fortran_wrapper(f));
        procedures.push('\n');
        public.push(f.fortran_name.clone());
        entries.push(entry::emit(f));
    }
    c.push_str(&free_decl);
    c.push('\n');
    c.push_str(&last_error_c_decl);
    interfaces.push_str(&free_interface);
    interfaces.push_str(&last_error_interface);
    procedures.push_str(&free_wrapper);
    procedures.push('\n');
    procedures.push_str(&last_error_wrapper);
    let c_types = format!("typedef struct {library}_options {library}_options;\n");
    let fortran_types = text::handle_type(
        &format!("{library}_options"),
        &format!("Compile options ({library}_options_new makes them, {library}_options_free frees them)."),
    );
    let public = public.join(", ");
    let (free_ident, last_error_ident) =
        (Ident::new(&free_c, span), Ident::new(&last_error_c, span));
    let tokens = quote! {
        #(#entries)*

        #[doc = #free_doc]
        ///
        /// # Safety
        /// `options` must be null or point to a handle this library made and has not freed.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn #free_ident(options: *mut *mut ::gt4rs::ffi::OptionsHandle) {
            // SAFETY: the caller's contract above.
            unsafe { ::gt4rs::ffi::free_handle(options) }
        }

        #[doc = #last_error_doc]
        /// The string stays valid until the next failing call on this thread.
        #[unsafe(no_mangle)]
        pub extern "C" fn #last_error_ident() -> *const ::core::ffi::c_char {
            ::gt4rs::ffi::last_error_ptr()
        }
    };
    let binding = quote! {
        ::gt4rs::ffi::bindings::Binding {
            name: "options",
            c_types: #c_types,
            c: #c,
            fortran_types: #fortran_types,
            fortran_interfaces: #interfaces,
            fortran_procedures: #procedures,
            fortran_public: #public,
        }
    };
    Ok((tokens, binding))
}

/// Entry point of `export_c!`.
pub fn start(input: TokenStream) -> TokenStream {
    let parsed = match syn::parse2::<LibraryInput>(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error(),
    };
    match emit(&parsed) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

fn emit(input: &LibraryInput) -> syn::Result<TokenStream> {
    let library = &input.library;
    let library_str = library.to_string();
    let (common, common_binding) = common(&library_str, &input.offsets)?;
    let mut chains = Vec::new();
    let mut items = vec![quote!(&COMMON)];
    for p in &input.programs {
        let (name, path) = (&p.name, &p.path);
        let inside = path_from_inside(path);
        chains.push(quote!( #inside ! { @gt4rs_export { #library } { #name } { #inside } } ));
        let module = format_ident!("{}_{}", library, name);
        items.push(quote!(&#module::BINDING));
    }
    for f in &input.functions {
        let inside = path_from_inside(f);
        items.push(quote!(&#inside::BINDING));
    }
    let doc = format!(
        "The C ABI of `{library_str}`: every entry, and [`LIBRARY`], their declarations for the C header and Fortran module."
    );
    Ok(quote! {
        #[doc = #doc]
        #[allow(non_snake_case, non_camel_case_types, unused_imports)]
        pub mod #library {
            use super::*;

            #common

            #(#chains)*

            /// The declarations of the library's own entries.
            pub const COMMON: ::gt4rs::ffi::bindings::Binding = #common_binding;

            /// Every entry of the library, for `gt4rs::ffi::bindings`.
            pub static LIBRARY: ::gt4rs::ffi::bindings::Library = ::gt4rs::ffi::bindings::Library {
                name: #library_str,
                items: &[#(#items),*],
            };
        }
    })
}
