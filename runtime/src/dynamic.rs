//! Calling a program with arguments looked up by name, for tools (reference verification, the
//! command line, foreign callers). The typed `Args` path stays the fast one; this path builds
//! typed fields from named arrays once per call.

use std::time::{Duration, Instant};

use ndarray::ArrayD;

use crate::args::ScalarValue;
use crate::dims::Dims;
use crate::error::Error;
use crate::field::{Field, Scalar};
use crate::ScalarType;

/// An owned n-dimensional array of any field dtype.
#[derive(Clone, Debug, PartialEq)]
pub enum DynArray {
    /// A `bool` array.
    Bool(ArrayD<bool>),
    /// An `i32` array.
    I32(ArrayD<i32>),
    /// An `i64` array.
    I64(ArrayD<i64>),
    /// An `f32` array.
    F32(ArrayD<f32>),
    /// An `f64` array.
    F64(ArrayD<f64>),
}

impl DynArray {
    /// The element type.
    pub fn dtype(&self) -> ScalarType {
        match self {
            DynArray::Bool(_) => ScalarType::Bool,
            DynArray::I32(_) => ScalarType::I32,
            DynArray::I64(_) => ScalarType::I64,
            DynArray::F32(_) => ScalarType::F32,
            DynArray::F64(_) => ScalarType::F64,
        }
    }
    /// The number of points per dimension.
    pub fn shape(&self) -> &[usize] {
        match self {
            DynArray::Bool(a) => a.shape(),
            DynArray::I32(a) => a.shape(),
            DynArray::I64(a) => a.shape(),
            DynArray::F32(a) => a.shape(),
            DynArray::F64(a) => a.shape(),
        }
    }
}

/// A field without its static dimension types: data plus the index of its first element per
/// dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct DynField {
    /// The elements.
    pub data: DynArray,
    /// The index of the first element per dimension.
    pub origin: Vec<i64>,
}

/// Element types convertible to and from [`DynArray`].
pub trait DynScalar: Scalar {
    /// Wraps a typed array.
    fn wrap(array: ArrayD<Self>) -> DynArray;
    /// The typed array, or `None` where `array` holds another element type.
    fn unwrap(array: DynArray) -> Option<ArrayD<Self>>;
    /// The value, or `None` where `value` is of another element type.
    fn from_value(value: ScalarValue) -> Option<Self>;
}

macro_rules! dyn_scalar {
    ($t:ty, $variant:ident) => {
        impl DynScalar for $t {
            fn wrap(array: ArrayD<Self>) -> DynArray {
                DynArray::$variant(array)
            }
            fn unwrap(array: DynArray) -> Option<ArrayD<Self>> {
                match array {
                    DynArray::$variant(a) => Some(a),
                    _ => None,
                }
            }
            fn from_value(value: ScalarValue) -> Option<Self> {
                match value {
                    ScalarValue::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
dyn_scalar!(bool, Bool);
dyn_scalar!(i32, I32);
dyn_scalar!(i64, I64);
dyn_scalar!(f32, F32);
dyn_scalar!(f64, F64);

/// Supplies a program's arguments by parameter name and receives its outputs.
pub trait ArgSource {
    /// The field argument `name`, expected over `dims` with elements of `dtype`.
    fn field(&mut self, name: &str, dims: &[&str], dtype: ScalarType) -> Result<DynField, Error>;
    /// The scalar argument `name`.
    fn scalar(&mut self, name: &str, dtype: ScalarType) -> Result<ScalarValue, Error>;
    /// The value of output (or in/out) field `name` after the call.
    fn output(&mut self, name: &str, value: DynField) -> Result<(), Error>;
}

/// Takes field `name` from `source` as a typed field.
pub fn take_field<D: Dims, T: DynScalar>(
    program: &str,
    source: &mut dyn ArgSource,
    name: &str,
) -> Result<Field<D, T>, Error> {
    let arg_err = |message: String| Error::Argument {
        program: program.to_string(),
        arg: name.to_string(),
        message,
    };
    let DynField { data, origin } = source.field(name, D::names(), T::DTYPE)?;
    let found = data.dtype();
    let array = T::unwrap(data).ok_or_else(|| {
        arg_err(format!(
            "expected elements of {}, found {}",
            T::DTYPE.rust_name(),
            found.rust_name()
        ))
    })?;
    if array.ndim() != D::RANK {
        return Err(arg_err(format!(
            "expected {} dimensions ({}), found an array of shape {:?}",
            D::RANK,
            D::names().join(", "),
            array.shape()
        )));
    }
    Field::from_array(array, &origin).map_err(|e| arg_err(e.to_string()))
}

/// Takes scalar `name` from `source`.
pub fn take_scalar<T: DynScalar>(
    program: &str,
    source: &mut dyn ArgSource,
    name: &str,
) -> Result<T, Error> {
    let value = source.scalar(name, T::DTYPE)?;
    T::from_value(value).ok_or_else(|| Error::Argument {
        program: program.to_string(),
        arg: name.to_string(),
        message: format!(
            "expected a scalar of type {}, found {value:?}",
            T::DTYPE.rust_name()
        ),
    })
}

/// Hands output field `name` back to `source`.
pub fn give_field<D: Dims, T: DynScalar>(
    source: &mut dyn ArgSource,
    name: &str,
    field: Field<D, T>,
) -> Result<(), Error> {
    let origin = field.origin().to_vec();
    source.output(
        name,
        DynField {
            data: T::wrap(field.into_array()),
            origin,
        },
    )
}

/// A compiled program behind a trait object, for tools that pick programs by name.
pub trait DynProgram: Send + Sync {
    /// The program's name.
    fn name(&self) -> &'static str;
    /// Its parameters: names, dimensions, element types and roles.
    fn signature(&self) -> crate::Signature;
    /// Takes every argument from `source` by name once, calls the program `calls` times with
    /// them, and hands the outputs back; the time of each call, without the conversion of its
    /// arguments (what a benchmark reports). Every call updates the fields it writes in place,
    /// so a later call reads what an earlier one wrote. The first failing call ends the run
    /// with its error, and nothing is handed back.
    ///
    /// # Errors
    /// A missing or mistyped argument, or any error of a call.
    fn call_dynamic_timed(
        &self,
        source: &mut dyn ArgSource,
        calls: usize,
    ) -> Result<Vec<Duration>, Error>;

    /// Takes every argument from `source` by name, calls the program, and hands each written
    /// field back through [`ArgSource::output`].
    ///
    /// # Errors
    /// A missing or mistyped argument, or any error of the call itself.
    fn call_dynamic(&self, source: &mut dyn ArgSource) -> Result<(), Error> {
        self.call_dynamic_timed(source, 1).map(drop)
    }
}

/// Runs `call` `calls` times and times each run; stops at the first error.
pub fn timed_calls(
    calls: usize,
    mut call: impl FnMut() -> Result<(), Error>,
) -> Result<Vec<Duration>, Error> {
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let start = Instant::now();
        call()?;
        times.push(start.elapsed());
    }
    Ok(times)
}
