//! Proc macros of gt4rs. Entry points only dispatch; the work is in ordinary functions over
//! `proc_macro2::TokenStream` (unit-tested without a compiler run).
//!
//! Cross-item visibility: every dimension, offset and operator also emits a hidden
//! `macro_rules!` definition macro under the item's own name (macro namespace), which hands
//! the item's checked IR to `__collect!`. An operator or program that mentions other items
//! expands by chained calls of their definition macros, resolved by the same paths the user
//! wrote.
//!
//! * `definitions`: the vocabulary items hand each other: `Def`, `Env`, `ItemKind`, the keys of
//!   items and paths, the hidden definition macros;
//! * `collect`: the driver, which walks the chain of definition macros and hands the item with
//!   what it collected to `frontend`, then to `codegen`;
//! * `frontend`: parse and check to the fieldview IR;
//! * `codegen`: the tokens an operator, a program or `bind!` expands to;
//! * `entities`: `dimensions!`, `scalar_types!`, `offsets!`.
//!
//! `frontend` and `codegen` depend on `definitions` only, never on the driver nor on each
//! other: the driver (and this file) is the one place where checking meets emitting, so either
//! side changes without pulling the other into its build and its imports.

mod codegen;
mod collect;
mod definitions;
mod entities;
mod frontend;
#[cfg(test)]
mod fuzz;

use proc_macro::TokenStream;

use crate::definitions::ItemKind;

/// `#[field_operator]`: a pure function over fields, fused into its callers.
#[proc_macro_attribute]
pub fn field_operator(attr: TokenStream, item: TokenStream) -> TokenStream {
    collect::start(ItemKind::FieldOperator, attr.into(), item.into()).into()
}

/// `#[scan_operator(axis = K, forward = true, init = …)]`: a carry along a vertical dimension.
#[proc_macro_attribute]
pub fn scan_operator(attr: TokenStream, item: TokenStream) -> TokenStream {
    collect::start(ItemKind::ScanOperator, attr.into(), item.into()).into()
}

/// `#[program]`: calls of operators written to output fields over domains; generates a module
/// with `Args`, `compile` and `Compiled::call`.
#[proc_macro_attribute]
pub fn program(attr: TokenStream, item: TokenStream) -> TokenStream {
    collect::start(ItemKind::Program, attr.into(), item.into()).into()
}

/// `dimensions! { pub Cell, Edge: horizontal; pub K: vertical; }`
#[proc_macro]
pub fn dimensions(input: TokenStream) -> TokenStream {
    entities::dimensions(input.into()).into()
}

/// `scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }`
#[proc_macro]
pub fn scalar_types(input: TokenStream) -> TokenStream {
    entities::scalar_types(input.into()).into()
}

/// `offsets! { pub E2C: Edge => Cell [2]; }`
#[proc_macro]
pub fn offsets(input: TokenStream) -> TokenStream {
    entities::offsets(input.into()).into()
}

/// `bind! { pub mod vn_update = path::to::program(area_edge, horizontal_start); }`: the
/// program with some read-only fields and scalars bound once at `compile()`; `Args` holds
/// only the other parameters.
#[proc_macro]
pub fn bind(input: TokenStream) -> TokenStream {
    codegen::bind::start(input.into()).into()
}

/// `export_c! { library name; offsets { … } programs { name = path; … } functions { … } }`:
/// a library's C ABI (`extern "C"` entries of the programs and functions listed, options with
/// ICON's connectivities) and `LIBRARY`, the declarations `gt4rs::ffi::bindings` writes as a C
/// header and a Fortran module. See docs/fortran.md.
#[proc_macro]
pub fn export_c(input: TokenStream) -> TokenStream {
    codegen::c_abi::library::start(input.into()).into()
}

/// Continuation of `export_c!` after a program's definition macro (generated code only).
#[doc(hidden)]
#[proc_macro]
pub fn __export_c(input: TokenStream) -> TokenStream {
    codegen::c_abi::program::resume(input.into()).into()
}

/// `#[export_c(library)]` on a function of views and scalars: the function as written plus a
/// module of its name holding its C entry `<library>_<name>` and its declarations (list it
/// under `functions` in the library's `export_c!`).
#[proc_macro_attribute]
pub fn export_c_fn(attr: TokenStream, item: TokenStream) -> TokenStream {
    codegen::c_abi::function::emit(attr.into(), item.into()).into()
}

/// Continuation of `bind!` after the program's definition macro (generated code only).
#[doc(hidden)]
#[proc_macro]
pub fn __bind(input: TokenStream) -> TokenStream {
    codegen::bind::resume(input.into()).into()
}

/// Continuation of the chained expansion (generated code only).
#[doc(hidden)]
#[proc_macro]
pub fn __collect(input: TokenStream) -> TokenStream {
    collect::resume(input.into()).into()
}

/// Generates a program module from a signature and serialised fieldview IR, bypassing the
/// checker: `__program_from_ir! { fn name(a: &Field<…>, …) {} , "<Program JSON>" }`. For
/// testing the backends independently of the frontend.
#[doc(hidden)]
#[proc_macro]
pub fn __program_from_ir(input: TokenStream) -> TokenStream {
    codegen::program::from_ir(input.into()).into()
}
