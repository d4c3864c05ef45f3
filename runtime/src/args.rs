//! The arguments of a call as every backend sees them, independent of the typed `Args` struct a
//! program generates: views of the fields (any element type, any layout) and scalar values.

use ndarray::{ArrayViewD, ArrayViewMutD};

use crate::dims::Dims;
use crate::field::{Field, Scalar};

pub use gt4rs_ir::ScalarValue;

/// A read-only field argument: its data and the index of its first element per dimension.
pub enum FieldView<'a> {
    /// A `bool` field: its data, and the index of its first element per dimension.
    Bool(ArrayViewD<'a, bool>, &'a [i64]),
    /// An `i32` field: its data, and the index of its first element per dimension.
    I32(ArrayViewD<'a, i32>, &'a [i64]),
    /// An `i64` field: its data, and the index of its first element per dimension.
    I64(ArrayViewD<'a, i64>, &'a [i64]),
    /// An `f32` field: its data, and the index of its first element per dimension.
    F32(ArrayViewD<'a, f32>, &'a [i64]),
    /// An `f64` field: its data, and the index of its first element per dimension.
    F64(ArrayViewD<'a, f64>, &'a [i64]),
}

/// A writable field argument.
pub enum FieldViewMut<'a> {
    /// A `bool` field: its data, and the index of its first element per dimension.
    Bool(ArrayViewMutD<'a, bool>, &'a [i64]),
    /// An `i32` field: its data, and the index of its first element per dimension.
    I32(ArrayViewMutD<'a, i32>, &'a [i64]),
    /// An `i64` field: its data, and the index of its first element per dimension.
    I64(ArrayViewMutD<'a, i64>, &'a [i64]),
    /// An `f32` field: its data, and the index of its first element per dimension.
    F32(ArrayViewMutD<'a, f32>, &'a [i64]),
    /// An `f64` field: its data, and the index of its first element per dimension.
    F64(ArrayViewMutD<'a, f64>, &'a [i64]),
}

/// One program argument, in the order of `Program::params`.
pub enum Arg<'a> {
    /// A field the program reads only.
    Field(FieldView<'a>),
    /// A field the program writes (and may read).
    FieldMut(FieldViewMut<'a>),
    /// A scalar.
    Scalar(ScalarValue),
}

impl<'a> Arg<'a> {
    /// A read-only view of `field`.
    pub fn field<D: Dims, T: Scalar>(field: &'a Field<D, T>) -> Self {
        Arg::Field(T::view(field.as_array(), field.origin()))
    }
    /// A writable view of `field`.
    pub fn field_mut<D: Dims, T: Scalar>(field: &'a mut Field<D, T>) -> Self {
        let (data, origin) = field.parts_mut();
        Arg::FieldMut(T::view_mut(data, origin))
    }
    /// A scalar argument of `value`.
    pub fn scalar<T: Scalar>(value: T) -> Self {
        Arg::Scalar(value.into_value())
    }
}
