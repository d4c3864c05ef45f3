//! A failure of a CPU kernel as generated code: the [`Failure`] the emitter knows, built in the
//! cold error path, and handed with the values and point of the run to
//! `gt4rs::__private::failure::failed`, which formats the message as every backend does.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use gt4rs_ir::failure::{Failure, FieldName};

use crate::codegen::stage_walk::PointNames;

/// The expression of the error of `failure`, with `values` (`i64` expressions) and the
/// coordinates of `point`.
pub(super) fn error(failure: &Failure, values: &[TokenStream], point: &PointNames) -> TokenStream {
    let failure = value(failure);
    let point = point.iter().map(|(dim, c)| {
        let c = coordinate(c);
        quote!((#dim, #c))
    });
    quote! {
        ::gt4rs::__private::failure::failed(NAME, &#failure, &[#(#values),*], &[#(#point),*])
    }
}

/// The coordinates of `point` as an `[i64; n]` expression: the key by which a kernel's error
/// slot keeps the failure at the least point (`ErrorSlot::record`).
pub(super) fn point_key(point: &PointNames) -> TokenStream {
    let coordinates = point.iter().map(|(_, c)| coordinate(c));
    quote!([#(#coordinates),*])
}

/// A coordinate of a point: a variable of the loop, or a sparse output's slot (a number).
fn coordinate(coordinate: &str) -> TokenStream {
    match coordinate.parse::<i64>() {
        Ok(slot) => {
            let slot = proc_macro2::Literal::i64_suffixed(slot);
            quote!(#slot)
        }
        Err(_) => {
            let name = format_ident!("{}", coordinate);
            quote!(#name)
        }
    }
}

/// `failure` as a Rust expression.
fn value(failure: &Failure) -> TokenStream {
    let module = quote!(::gt4rs::__private::ir::failure);
    let string = |s: &str| quote!(::std::string::String::from(#s));
    let field = |f: &FieldName| match f {
        FieldName::Argument(name) => {
            let name = string(name);
            quote!(#module::FieldName::Argument(#name))
        }
        FieldName::Temporary(t) => quote!(#module::FieldName::Temporary(#t)),
    };
    match failure {
        Failure::OutputTooSmall {
            stage,
            field: f,
            dim,
        } => {
            let (f, dim) = (field(f), string(dim));
            quote!(#module::Failure::OutputTooSmall { stage: #stage, field: #f, dim: #dim })
        }
        Failure::ShiftedReadOutside {
            stage,
            field: f,
            dim,
            shift,
        } => {
            let (f, dim) = (field(f), string(dim));
            quote!(#module::Failure::ShiftedReadOutside { stage: #stage, field: #f, dim: #dim, shift: #shift })
        }
        Failure::LocalDimension { arg, dim, count } => {
            let (arg, dim) = (string(arg), string(dim));
            quote!(#module::Failure::LocalDimension { arg: #arg, dim: #dim, count: #count })
        }
        Failure::EmptyArgument { arg, dim } => {
            let (arg, dim) = (string(arg), string(dim));
            quote!(#module::Failure::EmptyArgument { arg: #arg, dim: #dim })
        }
        Failure::ReadOutside { field: f, dim } => {
            let (f, dim) = (field(f), string(dim));
            quote!(#module::Failure::ReadOutside { field: #f, dim: #dim })
        }
        Failure::RowOutside { offset, from } => {
            let (offset, from) = (string(offset), string(from));
            quote!(#module::Failure::RowOutside { offset: #offset, from: #from })
        }
        Failure::MissingNeighbour { offset, from, slot } => {
            let (offset, from) = (string(offset), string(from));
            quote!(#module::Failure::MissingNeighbour { offset: #offset, from: #from, slot: #slot })
        }
        Failure::DivisionByZero => quote!(#module::Failure::DivisionByZero),
        Failure::ReversedDomain { dim } => {
            let dim = string(dim);
            quote!(#module::Failure::ReversedDomain { dim: #dim })
        }
        Failure::Undefined { field: f } => {
            let f = field(f);
            quote!(#module::Failure::Undefined { field: #f })
        }
    }
}
