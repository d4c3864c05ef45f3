//! The C ABI: `gt4rs::export_c!` (a library of programs) and `#[gt4rs::export_c]` (a Rust
//! function taking views and scalars, such as a granule's `diffusion_run`).
//!
//! Everything is generated from one description of each C function ([`CFunction`]): the
//! `extern "C"` entry ([`entry`]), its C declaration and its Fortran `bind(C)` interface and
//! wrapper ([`text`]). The four therefore never disagree, and no header is written by hand.
//!
//! The convention (docs/fortran.md): an array is a pointer to its first element, then its size
//! along each dimension, then its element stride along each dimension (all `int64_t`); a scalar
//! is passed by value (a logical as one byte, 0 or 1 after the conversion the wrapper does); a
//! handle is an opaque pointer. Every entry returns a status (`int`, 0 for success).

pub mod entry;
pub mod function;
pub mod library;
pub mod program;
pub mod text;

use proc_macro2::TokenStream;

use gt4rs_ir::ScalarType;

/// Fortran names are at most 63 characters.
pub const FORTRAN_NAME_LIMIT: usize = 63;

/// An array argument: a view of the caller's memory.
#[derive(Clone, Debug)]
pub struct Array {
    pub name: String,
    pub dtype: ScalarType,
    /// Dimension names, for the declarations' comments; their count is the rank.
    pub dims: Vec<String>,
    /// A `FieldMut` (the call writes it) rather than a `FieldRef`.
    pub writes: bool,
    /// `Option<view>`: a null pointer is `None` (Fortran: an absent optional argument).
    pub optional: bool,
    /// The view type the entry builds (`::gt4rs::view::FieldRef<'_, (Cell, K), f64>`).
    pub view: TokenStream,
}

/// How a handle argument is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleUse {
    /// `const T *`: the object is read.
    Read,
    /// `T *`: the object is changed.
    Change,
    /// `T **`: the entry stores a new handle there.
    Make,
}

/// A handle argument: an opaque pointer to a Rust object.
#[derive(Clone, Debug)]
pub struct Handle {
    pub name: String,
    /// The C struct name (`gt4rs_icon_calculate_nabla4`); also the Rust-side description.
    pub c_type: String,
    /// The Fortran derived type that holds it (`calculate_nabla4_program`).
    pub fortran_type: String,
    /// The Rust type behind the pointer.
    pub rust: TokenStream,
    pub usage: HandleUse,
}

/// One argument of a C function.
#[derive(Clone, Debug)]
pub enum Arg {
    Array(Array),
    Scalar { name: String, dtype: ScalarType },
    Handle(Handle),
}

impl Arg {
    pub fn name(&self) -> &str {
        match self {
            Arg::Array(a) => &a.name,
            Arg::Scalar { name, .. } => name,
            Arg::Handle(h) => &h.name,
        }
    }
}

/// One C function: its symbol, the name of its Fortran wrapper, what it does (for the
/// declarations), its arguments and the Rust body that runs with them converted (arrays as
/// views, logicals as `bool`, handles as references or raw out-pointers). The body evaluates
/// to `Result<(), ::gt4rs::ffi::Failure>`.
#[derive(Clone, Debug)]
pub struct CFunction {
    pub c_name: String,
    pub fortran_name: String,
    pub doc: String,
    pub args: Vec<Arg>,
    pub body: TokenStream,
}

/// The C, Rust and Fortran spellings of an element type.
pub fn c_type(t: ScalarType) -> &'static str {
    match t {
        ScalarType::Bool => "bool",
        ScalarType::I32 => "int32_t",
        ScalarType::I64 => "int64_t",
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
    }
}

pub fn fortran_type(t: ScalarType) -> &'static str {
    match t {
        ScalarType::Bool => "logical(c_bool)",
        ScalarType::I32 => "integer(c_int32_t)",
        ScalarType::I64 => "integer(c_int64_t)",
        ScalarType::F32 => "real(c_float)",
        ScalarType::F64 => "real(c_double)",
    }
}

/// Checks a Fortran name's length (the standard's limit).
pub fn check_fortran_name(name: &str, span: proc_macro2::Span) -> syn::Result<()> {
    if name.len() > FORTRAN_NAME_LIMIT {
        return Err(syn::Error::new(
            span,
            format!(
                "`{name}` has {} characters; Fortran names have at most {FORTRAN_NAME_LIMIT}: export it under a shorter name",
                name.len()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
