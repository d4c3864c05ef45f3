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

#![warn(missing_docs)]

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
///
/// The parameters are fields (`Field<(Edge, K), f64>`, by value) and scalars; the body is one
/// expression over them: arithmetic (broadcast over the union of the dimensions), shifts
/// (`q.at(E2C[1])`, `q.at(K + 1)`), reductions (`neighbor_sum(q.at(C2E), C2E)`, `max_over`,
/// `min_over`), `select(cond, a, b)`, `concat_where`, `if` on a scalar, math methods
/// (`x.sqrt()`), casts (`x as f32`), tuples, `let`s, and calls of other operators by path, in
/// this crate or another. The macro checks it when the crate compiles (an error points at the
/// offending span) and emits nothing callable on its own: programs call it. The language is
/// `docs/language.md`; a complete example is on the crate page of `gt4rs`.
#[proc_macro_attribute]
pub fn field_operator(attr: TokenStream, item: TokenStream) -> TokenStream {
    collect::start(ItemKind::FieldOperator, attr.into(), item.into()).into()
}

/// `#[scan_operator(axis = K, forward = true, init = …)]`: a carry along a vertical dimension.
///
/// The first parameter is the carry (a scalar or a tuple of scalars, the type of `init` and of
/// the result); the others are the per-level values of the fields it is called with. The body
/// computes the carry of a level from the carry of the level before (`forward = true`: from
/// the first level up). Called from an operator or a program with fields, it returns a field
/// of the carries, one per level: a tridiagonal solve's sweep, a column integral.
#[proc_macro_attribute]
pub fn scan_operator(attr: TokenStream, item: TokenStream) -> TokenStream {
    collect::start(ItemKind::ScanOperator, attr.into(), item.into()).into()
}

/// `#[program]`: calls of operators written to output fields over domains; generates a module
/// with `Args`, `compile` and `Compiled::call`.
///
/// Parameters are `&Field<…>` (read), `&mut Field<…>` (written, or read and written) and
/// scalars; a scalar marked `#[static_arg]` may be specialised at `compile()`. Each statement
/// writes an operator call to an output, over the whole field or a domain:
/// `op(a, b).write_to(out, domain![Edge: start..end, K: 1..nlev])`. The program's module
/// (named like the function) holds `NAME`, `Args` (one public field per parameter, typed as
/// written), `compile(&Options) -> Result<Compiled, Error>`, `Compiled::call(Args)`,
/// `options(&Options)` (the options it runs with, and their sources) and `signature()`; its
/// documentation shows the call with this program's own parameters.
#[proc_macro_attribute]
pub fn program(attr: TokenStream, item: TokenStream) -> TokenStream {
    collect::start(ItemKind::Program, attr.into(), item.into()).into()
}

/// `dimensions! { pub Cell, Edge: horizontal; pub K: vertical; }`: declares dimension types.
///
/// Each name becomes a zero-sized type implementing `gt4rs::Dimension`, named in field types
/// (`Field<(Edge, K), f64>`). Horizontal dimensions are a mesh's (or a Cartesian grid's)
/// points; a vertical dimension is the column, along which scans run. Fields list their
/// dimensions horizontal first, then local (offsets), then vertical.
#[proc_macro]
pub fn dimensions(input: TokenStream) -> TokenStream {
    entities::dimensions(input.into()).into()
}

/// `scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }`: named element types.
///
/// Each name becomes a type alias that operators and programs may use in their signatures
/// (`Field<(Cell, K), vpfloat>`); the checker resolves it, so one source compiles in double or
/// mixed precision by declaring the aliases in two modules.
#[proc_macro]
pub fn scalar_types(input: TokenStream) -> TokenStream {
    entities::scalar_types(input.into()).into()
}

/// `offsets! { pub E2C: Edge => Cell [2]; }`: declares neighbour offsets.
///
/// `E2C: Edge => Cell [2]` says every edge has two cells: `q.at(E2C[0])` reads a cell field on
/// edges, `q.at(E2C)` gives all neighbours as the local dimension `E2C`, reduced by
/// `neighbor_sum(…, E2C)`. Add `with skip_values` where a table may hold -1 (a missing
/// neighbour, which reductions skip); without it, a -1 in the table is an error when the
/// `gt4rs::Connectivity` is built. Each name becomes a type implementing `gt4rs::Offset`.
#[proc_macro]
pub fn offsets(input: TokenStream) -> TokenStream {
    entities::offsets(input.into()).into()
}

/// `bind! { pub mod vn_update = path::to::program(area_edge, horizontal_start); }`: the
/// program with some read-only fields and scalars bound once at `compile()`; `Args` holds
/// only the other parameters.
///
/// The module holds `Bound` (the bound values: fields as `Arc<Field<…>>`, scalars by value),
/// `compile(&Options, Bound)`, `Args` and `Compiled::call(Args)`. Passing a bound parameter
/// again does not compile; binding a written field is a compile error.
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
