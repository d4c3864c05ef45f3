//! One program of `export_c!`: after its definition macro handed over its parameters
//! (`__export_c! { {library} {name} {path} "<parameters>" }`), a module `<library>_<name>`
//! with the handle's entries (`<library>_<name>_compile`, `_call`, `_free`) and their
//! `BINDING`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{braced, Ident, LitStr, Path};

use gt4rs_ir::ScalarType;

use super::{check_fortran_name, entry, text, Arg, Array, CFunction, Handle, HandleUse};
use crate::codegen::bind::{ParamDef, ParamKind};

/// The input of `__export_c!`.
struct Resumed {
    library: Ident,
    name: Ident,
    path: Path,
    payload: LitStr,
}

impl Parse for Resumed {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let library;
        braced!(library in input);
        let name;
        braced!(name in input);
        let path;
        braced!(path in input);
        Ok(Resumed {
            library: library.parse()?,
            name: name.parse()?,
            path: path.parse()?,
            payload: input.parse()?,
        })
    }
}

/// Entry point of `__export_c!`.
pub fn resume(input: TokenStream) -> TokenStream {
    let resumed = match syn::parse2::<Resumed>(input) {
        Ok(r) => r,
        Err(e) => return e.to_compile_error(),
    };
    let params: Vec<ParamDef> = match serde_json::from_str(&resumed.payload.value()) {
        Ok(p) => p,
        Err(e) => {
            return syn::Error::new(
                resumed.name.span(),
                format!("gt4rs: corrupt program payload: {e}"),
            )
            .to_compile_error()
        }
    };
    match emit(&resumed, &params) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

/// The handle of a compiled program, as an argument.
fn program_handle(library: &str, name: &str, program: &TokenStream, usage: HandleUse) -> Handle {
    Handle {
        name: "program".to_string(),
        c_type: format!("{library}_{name}"),
        fortran_type: format!("{name}_program"),
        rust: quote!(#program::Compiled),
        usage,
    }
}

/// The options handle of `library` (made by `<library>_options_new`).
pub fn options_handle(library: &str, usage: HandleUse) -> Handle {
    Handle {
        name: "options".to_string(),
        c_type: format!("{library}_options"),
        fortran_type: format!("{library}_options"),
        rust: quote!(::gt4rs::ffi::OptionsHandle),
        usage,
    }
}

fn emit(resumed: &Resumed, params: &[ParamDef]) -> syn::Result<TokenStream> {
    let span = resumed.name.span();
    let (library, name) = (resumed.library.to_string(), resumed.name.to_string());
    let program = crate::codegen::bind::path_from_inside(&resumed.path);
    let program_text = crate::definitions::path_key(&resumed.path);
    for fortran in [
        name.clone(),
        format!("{name}_compile"),
        format!("{name}_program"),
    ] {
        check_fortran_name(&fortran, span)?;
    }
    check_fortran_name(
        &text::interface_name(&format!("{library}_{name}_compile")),
        span,
    )?;

    let mut args = vec![Arg::Handle(program_handle(
        &library,
        &name,
        &program,
        HandleUse::Read,
    ))];
    let mut views = Vec::new();
    let mut described = Vec::new();
    for p in params {
        let ident = Ident::new(&p.name, Span::call_site());
        let dtype = p
            .dtype
            .as_deref()
            .and_then(ScalarType::from_rust_name)
            .ok_or_else(|| {
                syn::Error::new(
                    span,
                    format!("program `{program_text}`: parameter `{}` is a tuple, which the C ABI does not pass", p.name),
                )
            })?;
        let role = match p.kind {
            ParamKind::FieldRead => "read",
            ParamKind::FieldWritten => "written",
            ParamKind::Scalar => "scalar",
        };
        described.push(if p.dims.is_empty() {
            format!("  {}: {} {role}", p.name, dtype.rust_name())
        } else {
            format!(
                "  {}: ({}) {} {role}",
                p.name,
                p.dims.join(", "),
                dtype.rust_name()
            )
        });
        match p.kind {
            ParamKind::Scalar => args.push(Arg::Scalar {
                name: p.name.clone(),
                dtype,
            }),
            kind => {
                let writes = kind == ParamKind::FieldWritten;
                let view = if writes {
                    quote!(::gt4rs::view::MutOf<'_, #program::types::#ident>)
                } else {
                    quote!(::gt4rs::view::RefOf<'_, #program::types::#ident>)
                };
                args.push(Arg::Array(Array {
                    name: p.name.clone(),
                    dtype,
                    dims: p.dims.clone(),
                    writes,
                    optional: false,
                    view,
                }));
            }
        }
        views.push(quote!(#ident));
    }

    let compile_name = format!("{library}_{name}_compile");
    let compile = CFunction {
        c_name: compile_name.clone(),
        fortran_name: format!("{name}_compile"),
        doc: format!(
            "Compiles program `{program_text}` with the options (backend, connectivities) into a new\nhandle in `program`; free it with {library}_{name}_free."
        ),
        args: vec![
            Arg::Handle(options_handle(&library, HandleUse::Read)),
            Arg::Handle(program_handle(&library, &name, &program, HandleUse::Make)),
        ],
        body: quote! {
            let compiled = #program::compile(&options.0)?;
            // SAFETY: `program` is null (an error) or the caller's place for the handle.
            unsafe { ::gt4rs::ffi::give_handle(#compile_name, program, compiled) }
        },
    };
    let call = CFunction {
        c_name: format!("{library}_{name}_call"),
        fortran_name: name.clone(),
        doc: format!(
            "Runs program `{program_text}` (compiled by {library}_{name}_compile) on the caller's\narrays, in place. Parameters (dimensions, element type, use):\n{}",
            described.join("\n")
        ),
        args,
        body: quote! {
            program.call_views(#program::Views { #(#views),* })?;
            Ok(())
        },
    };
    let free_c = format!("{library}_{name}_free");
    let free_doc = format!("Frees a handle made by {library}_{name}_compile and nulls it (a null handle is left alone).");
    let [free_decl, free_interface, free_wrapper] = text::free_texts(
        &free_c,
        &format!("{name}_free"),
        &format!("{library}_{name}"),
        &format!("{name}_program"),
        &free_doc,
    );
    let free_ident = Ident::new(&free_c, Span::call_site());
    let compile_entry = entry::emit(&compile);
    let call_entry = entry::emit(&call);

    let c_types = format!("typedef struct {library}_{name} {library}_{name};\n");
    let c = format!(
        "{}\n{}\n{free_decl}",
        text::c_declaration(&compile),
        text::c_declaration(&call)
    );
    let fortran_types = text::handle_type(
        &format!("{name}_program"),
        &format!("A compiled `{program_text}` ({name}_compile makes it, {name}_free frees it)."),
    );
    let fortran_interfaces = format!(
        "{}{}{free_interface}",
        text::fortran_interface(&compile),
        text::fortran_interface(&call)
    );
    let fortran_procedures = format!(
        "{}\n{}\n{free_wrapper}",
        text::fortran_wrapper(&compile),
        text::fortran_wrapper(&call)
    );
    let fortran_public = format!("{name}_compile, {name}, {name}_free");
    let mod_doc = format!("The C ABI of program `{program_text}` (see `BINDING`).");
    // Named apart from the program, whose path may be the same bare name.
    let module = Ident::new(&format!("{library}_{name}"), Span::call_site());
    Ok(quote! {
        #[doc = #mod_doc]
        #[allow(non_snake_case, non_camel_case_types, unused_imports)]
        pub mod #module {
            use super::*;

            #compile_entry

            #call_entry

            #[doc = #free_doc]
            ///
            /// # Safety
            /// `program` must be null or point to a handle this library made and has not freed.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn #free_ident(program: *mut *mut #program::Compiled) {
                // SAFETY: the caller's contract above.
                unsafe { ::gt4rs::ffi::free_handle(program) }
            }

            /// The C declarations and Fortran interfaces of this program's entries.
            pub const BINDING: ::gt4rs::ffi::bindings::Binding = ::gt4rs::ffi::bindings::Binding {
                name: #name,
                c_types: #c_types,
                c: #c,
                fortran_types: #fortran_types,
                fortran_interfaces: #fortran_interfaces,
                fortran_procedures: #fortran_procedures,
                fortran_public: #fortran_public,
            };
        }
    })
}
